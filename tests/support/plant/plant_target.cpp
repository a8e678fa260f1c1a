// plant_target — what plant_shim_test runs under callgrind: kRounds rounds of
// every kind of allocating call the shim plants work in, inside measured()
// (the only function callgrind collects: --toggle-collect=measured), each block
// written and read back so that a padded block costs cache lines. Prints its
// number of allocating calls.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

// pvalloc is left out: jemalloc has none, and glibc's block crashes its free.
constexpr int kRounds = 500, kBlocks = 16, kCalls = kBlocks + 1;  // realloc(malloc()) is two calls
static void* blocks[kRounds][kBlocks];

extern "C" __attribute__((noinline)) long measured() {
  const std::align_val_t al{32};
  for (auto& b : blocks) {
    b[0] = malloc(16), b[1] = calloc(2, 8), b[2] = realloc(malloc(8), 16);  // two calls
    b[3] = reallocarray(nullptr, 2, 8), b[5] = aligned_alloc(32, 32), b[6] = memalign(32, 16);
    b[7] = valloc(16);
    if (posix_memalign(&b[4], 32, 16)) abort();
    b[8] = operator new(16), b[9] = operator new[](16), b[10] = operator new(16, std::nothrow);
    b[11] = operator new[](16, std::nothrow), b[12] = operator new(16, al), b[13] = operator new[](16, al);
    b[14] = operator new(16, al, std::nothrow), b[15] = operator new[](16, al, std::nothrow);
  }
  long sum = 0;
  for (int pass = 0; pass < 4; ++pass)
    for (auto& b : blocks)
      for (void* p : b) memset(p, pass, 16), sum += static_cast<char*>(p)[15];
  for (auto& b : blocks) {
    for (int k = 0; k <= 7; ++k) free(b[k]);
    operator delete(b[8], 16), operator delete[](b[9], 16), operator delete(b[10]), operator delete[](b[11]);
    operator delete(b[12], 16, al), operator delete[](b[13], 16, al), operator delete(b[14], al);
    operator delete[](b[15], al);
  }
  return sum;
}

int main() {
  free(malloc(1));  // the shim resolves its allocator outside the measured calls
  printf("calls=%d sum=%ld\n", kRounds * kCalls, measured());
}
