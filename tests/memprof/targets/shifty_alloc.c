// shifty_alloc — a test allocator whose usable size is not a function of the
// requested size: glibc underneath, every other malloc asking for 64 bytes more.
// memprof's usable-size memo must notice (usable_memo_mismatch_count > 0) and
// still give every block back the usable bytes it counted for it.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);

static unsigned long calls;

void* malloc(size_t n) { return __libc_malloc(n + (++calls % 2 ? 64 : 0)); }
void* calloc(size_t count, size_t size) { return __libc_calloc(count, size); }
void* realloc(void* p, size_t n) { return __libc_realloc(p, n); }
void free(void* p) { __libc_free(p); }
void* memalign(size_t align, size_t n) { return __libc_memalign(align, n); }
void* aligned_alloc(size_t align, size_t n) { return __libc_memalign(align, n); }

int posix_memalign(void** out, size_t align, size_t n) {
  void* p = __libc_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

size_t malloc_usable_size(void* p) {
  static size_t (*next)(void*);
  if (!next) next = (size_t (*)(void*))dlsym(RTLD_NEXT, "malloc_usable_size");
  return p ? next(p) : 0;
}
