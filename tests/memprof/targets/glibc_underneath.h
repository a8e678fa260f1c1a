// glibc_underneath.h — what the test allocators share: glibc's own functions
// serve every entry point but malloc, which each allocator defines itself
// (its one difference). Included once, by the allocator's only source file.
#pragma once
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

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

#ifdef __cplusplus
}
#endif
