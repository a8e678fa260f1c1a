// shifty_alloc — a test allocator whose usable size is not a function of the
// requested size: glibc underneath, every other malloc asking for 64 bytes more.
// memprof's usable-size memo must notice (usable_memo_mismatch_count > 0) and
// still give every block back the usable bytes it counted for it.
#define _GNU_SOURCE
#include "glibc_underneath.h"

static unsigned long calls;

void* malloc(size_t n) { return __libc_malloc(n + (++calls % 2 ? 64 : 0)); }
