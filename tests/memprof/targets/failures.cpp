// failures — allocations that fail (calloc overflow, an impossible malloc, a
// throwing operator new) and realloc(p, 0): the counts must stay exact and
// later allocations must still be seen. FAILURES_BASELINE=1 skips the part
// after the failures, so that a test can subtract what startup allocates.
// FAILURES_NO_THROW=1 skips the throwing new (mimalloc aborts there, by design).
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <new>

int main() {
  volatile size_t huge = SIZE_MAX / 2;
  if (calloc(huge, 4) != nullptr) return 2;             // overflow: NULL
  if (malloc(size_t(1) << 62) != nullptr) return 3;     // impossible: NULL
  bool threw = getenv("FAILURES_NO_THROW") != nullptr;
  if (!threw) try {
    void* p = ::operator new(size_t(1) << 62);
    ::operator delete(p);
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  if (!threw) return 4;
  // libstdc++'s nothrow new[] calls ::operator new inside: still one failure.
  volatile size_t too_much = size_t(1) << 62;
  if (::operator new[](too_much, std::nothrow) != nullptr) return 5;
  if (getenv("FAILURES_BASELINE")) {
    printf("realloc_zero_returned_block=%d\n", 0);
    return 0;
  }
  void* q = malloc(16);                                 // seen after the throw
  void* r = realloc(q, 0);                              // frees q; may return a block
  printf("realloc_zero_returned_block=%d\n", r != nullptr);
  free(r);
  void* s = malloc(32);
  free(s);
  return 0;
}
