// reserving_alloc — a test allocator that reserves address space as scudo
// does: at its first call, one PROT_NONE mapping of RESERVING_ALLOC_GIB GiB
// (default 9, at least 7), opened in parts later. glibc serves the blocks
// (its kernel calls are unseen); the reservation is all memprof sees, and
// what it does there is fixed, so the figures are exact. With G the first
// GiB boundary inside the reservation (GiB k: [G + k GiB, G + (k+1) GiB)):
//   GiB 0: 16 pages opened with mprotect, all 16 touched;
//   GiB 1: 8 pages mapped read-write over it (mmap MAP_FIXED), 5 touched;
//   GiB 2: the whole GiB opened with mprotect, 3 pages touched, then 1
//          untouched page in its middle unmapped (a whole GiB split);
//   GiB 3: 4 pages opened, touched, closed again (still resident);
//   GiB 4: 16 untouched pages unmapped from its middle;
//   GiB 5: unmapped whole.
// Mapped at the end: the reservation less 17 pages and 1 GiB; resident: 28 pages.
// Transparent huge pages are refused for the reservation: a touch is one page.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "glibc_underneath.h"

#define PAGE ((uintptr_t)4096)
#define GIB ((uintptr_t)1 << 30)

static int reserved;

static void touch(uintptr_t at, int pages) {
  for (int i = 0; i < pages; ++i) ((volatile char*)(at + i * PAGE))[0] = 1;
}

static void reserve(void) {
  if (reserved) return;
  reserved = 1;
  const char* gib = getenv("RESERVING_ALLOC_GIB");
  uintptr_t size = (uintptr_t)(gib ? atol(gib) : 9) * GIB;
  if (size < 7 * GIB) abort();
  char* base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED || madvise(base, size, MADV_NOHUGEPAGE) != 0) abort();
  uintptr_t g = ((uintptr_t)base + GIB - 1) & ~(GIB - 1);
  int rw = PROT_READ | PROT_WRITE;
  if (mprotect((void*)g, 16 * PAGE, rw) != 0) abort();
  touch(g, 16);
  if (mmap((void*)(g + GIB), 8 * PAGE, rw, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) abort();
  touch(g + GIB, 5);
  if (mprotect((void*)(g + 2 * GIB), GIB, rw) != 0) abort();
  touch(g + 2 * GIB, 1);
  touch(g + 2 * GIB + 100 * PAGE, 1);
  touch(g + 3 * GIB - PAGE, 1);
  if (munmap((void*)(g + 2 * GIB + GIB / 2), PAGE) != 0) abort();
  if (mprotect((void*)(g + 3 * GIB), 4 * PAGE, rw) != 0) abort();
  touch(g + 3 * GIB, 4);
  if (mprotect((void*)(g + 3 * GIB), 4 * PAGE, PROT_NONE) != 0) abort();
  if (munmap((void*)(g + 4 * GIB + GIB / 2), 16 * PAGE) != 0) abort();
  if (munmap((void*)(g + 5 * GIB), GIB) != 0) abort();
}

void* malloc(size_t n) {
  reserve();
  return __libc_malloc(n);
}
