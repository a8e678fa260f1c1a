/* crashing_allocator — libcrashalloc.so, an LD_PRELOAD allocator stand-in for the
 * driver's tests: glibc's malloc that dies by SIGSEGV (or hangs) at the N-th malloc. */

/* Environment, read at the first malloc (getenv, no allocation):
 *   CRASHALLOC_AFTER=N   the N-th call to malloc (counting from 1) triggers;
 *                        default 100000; 0 never triggers
 *   CRASHALLOC_MODE=hang that call blocks forever instead of raising SIGSEGV
 * Only malloc is counted; every entry point forwards to glibc's __libc_*. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
/* Not exported by current glibc: resolves to NULL, then dlsym(RTLD_NEXT). */
extern size_t __malloc_usable_size(void *ptr) __attribute__((weak));

extern char **environ;

#define VISIBLE __attribute__((visibility("default")))

enum { MODE_SEGV = 0, MODE_HANG = 1 };

static atomic_ulong malloc_calls;
static atomic_int config_state; /* 0: not read yet, 1: read */
static atomic_ulong config_after = 100000;
static atomic_int config_mode = MODE_SEGV;

static void read_config(void) {
  if (atomic_load_explicit(&config_state, memory_order_acquire)) return;
  /* Too early (environment not set up yet): use the defaults for now and
   * read again at the next call. */
  if (!environ) return;
  unsigned long after = 100000;
  const char *text = getenv("CRASHALLOC_AFTER");
  if (text && *text) {
    unsigned long value = 0;
    int valid = 1;
    for (const char *c = text; *c; ++c) {
      if (*c < '0' || *c > '9' || value > (ULONG_MAX - 9) / 10) {
        valid = 0;
        break;
      }
      value = value * 10 + (unsigned long)(*c - '0');
    }
    if (valid) after = value;
  }
  const char *mode = getenv("CRASHALLOC_MODE");
  /* Every thread that gets here computes the same values. */
  atomic_store_explicit(&config_after, after, memory_order_relaxed);
  atomic_store_explicit(&config_mode, (mode && strcmp(mode, "hang") == 0) ? MODE_HANG : MODE_SEGV,
                        memory_order_relaxed);
  atomic_store_explicit(&config_state, 1, memory_order_release);
}

static void count_malloc(void) {
  unsigned long n = atomic_fetch_add_explicit(&malloc_calls, 1, memory_order_relaxed) + 1;
  read_config();
  unsigned long after = atomic_load_explicit(&config_after, memory_order_relaxed);
  if (after == 0 || n < after) return;
  if (atomic_load_explicit(&config_mode, memory_order_relaxed) == MODE_HANG) {
    if (n == after)
      for (;;) pause();
    return;
  }
  /* Every call from the N-th on raises, in case a handler returned. */
  raise(SIGSEGV);
}

VISIBLE void *malloc(size_t size) {
  count_malloc();
  return __libc_malloc(size);
}

VISIBLE void free(void *ptr) { __libc_free(ptr); }

VISIBLE void *calloc(size_t nmemb, size_t size) { return __libc_calloc(nmemb, size); }

VISIBLE void *realloc(void *ptr, size_t size) { return __libc_realloc(ptr, size); }

VISIBLE void *memalign(size_t alignment, size_t size) { return __libc_memalign(alignment, size); }

VISIBLE void *aligned_alloc(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    errno = EINVAL;
    return NULL;
  }
  return __libc_memalign(alignment, size);
}

VISIBLE int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  int saved = errno;
  void *p = __libc_memalign(alignment, size);
  errno = saved;
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

typedef size_t (*usable_size_fn)(void *);
static _Atomic(usable_size_fn) next_usable_size;

VISIBLE size_t malloc_usable_size(void *ptr) {
  if (__malloc_usable_size) return __malloc_usable_size(ptr);
  usable_size_fn fn = atomic_load_explicit(&next_usable_size, memory_order_acquire);
  if (!fn) {
    void *symbol = dlsym(RTLD_NEXT, "malloc_usable_size");
    if (!symbol) return 0;
    memcpy(&fn, &symbol, sizeof fn); /* object to function pointer, as POSIX allows */
    atomic_store_explicit(&next_usable_size, fn, memory_order_release);
  }
  return fn(ptr);
}
