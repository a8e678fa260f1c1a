// nesting_alloc — a test allocator with an operator new of its own that now and
// then allocates for itself through the exported malloc, as scudo's does when
// GWP-ASan samples a block: glibc's backtrace() dlopens libgcc_s on its first
// call, and ld.so's malloc is the first in the search order, memprof's. Blocks
// come from glibc underneath; the records it keeps (never freed, as ld.so's)
// are not the program's, smaller or larger than what the program asked for.
#include <new>

#include "glibc_underneath.h"

namespace {

constexpr unsigned kEvery = 97;
constexpr size_t kRecordSizes[] = {1, 56, 4000};
constexpr size_t kMaxRecords = 256;
void* records[kMaxRecords];
size_t kept;
unsigned long served;

// After serving a block: every kEvery-th, a record through the exported malloc.
void note_served() {
  if (++served % kEvery != 0 || kept == kMaxRecords) return;
  static void* (*exported_malloc)(size_t);
  if (!exported_malloc) exported_malloc = reinterpret_cast<void* (*)(size_t)>(dlsym(RTLD_DEFAULT, "malloc"));
  records[kept] = exported_malloc(kRecordSizes[kept % 3]);
  ++kept;
}

void* serve(size_t n) {
  void* p = __libc_malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();  // before any record: its exception object is the program's
  note_served();
  return p;
}

}  // namespace

extern "C" void* malloc(size_t n) { return __libc_malloc(n); }

void* operator new(size_t n) { return serve(n); }
void* operator new[](size_t n) { return serve(n); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }
