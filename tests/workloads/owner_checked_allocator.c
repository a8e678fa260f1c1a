/* owner_checked_allocator — libownercheck.so, an LD_PRELOAD allocator
 * stand-in for the tests: glibc's malloc with a 16-byte header naming the
 * thread that allocated each block. With OWNERCHECK_LEAK=1 in the environment
 * it is broken the way a careless thread-caching allocator can be: a block
 * freed by any other thread than its owner is leaked (dropped, never reused),
 * so a program that frees across threads grows without bound; otherwise every
 * free is a free. (What memprof sees is the same both ways: the program frees.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);

struct header {
  void *base;       /* what glibc returned */
  uintptr_t owner;  /* the allocating thread's number */
};

/* Each thread's number, from 1, never reused (pthread_self() values are). */
static _Atomic uintptr_t threads_seen;
static __thread uintptr_t my_number;
static uintptr_t me(void) {
  if (!my_number) my_number = ++threads_seen;
  return my_number;
}

static int leak_mode = -1; /* read at the first free (getenv allocates nothing) */

static void *wrap(void *base, size_t offset) {
  if (!base) return NULL;
  struct header *h = (struct header *)((char *)base + offset) - 1;
  h->base = base;
  h->owner = me();
  return h + 1;
}

static struct header *header_of(void *p) { return (struct header *)p - 1; }

void *malloc(size_t n) {
  if (n > SIZE_MAX - 64) return errno = ENOMEM, NULL;
  return wrap(__libc_malloc(n + sizeof(struct header)), sizeof(struct header));
}

void free(void *p) {
  if (!p) return;
  if (leak_mode < 0) {
    const char *v = getenv("OWNERCHECK_LEAK");
    leak_mode = v && v[0] == '1';
  }
  struct header *h = header_of(p);
  if (leak_mode && h->owner != me()) return; /* the broken path */
  __libc_free(h->base);
}

void *calloc(size_t count, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) return errno = ENOMEM, NULL;
  void *p = malloc(n);
  if (p) memset(p, 0, n);
  return p;
}

void *memalign(size_t alignment, size_t n) {
  if (alignment < sizeof(struct header)) alignment = sizeof(struct header);
  if (n > SIZE_MAX - 2 * alignment) return errno = ENOMEM, NULL;
  return wrap(__libc_memalign(alignment, n + alignment), alignment);
}

int posix_memalign(void **out, size_t alignment, size_t n) {
  void *p = memalign(alignment, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t n) { return memalign(alignment, n); }
void *valloc(size_t n) { return memalign(4096, n); }
void *pvalloc(size_t n) { return memalign(4096, (n + 4095) & ~(size_t)4095); }

size_t malloc_usable_size(void *p) {
  if (!p) return 0;
  struct header *h = header_of(p);
  static size_t (*next)(void *);
  if (!next) next = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
  size_t whole = next ? next(h->base) : 0;
  size_t before = (size_t)((char *)p - (char *)h->base);
  return whole > before ? whole - before : 0;
}

void *realloc(void *p, size_t n) {
  if (!p) return malloc(n);
  if (n == 0) {
    free(p);
    return NULL;
  }
  void *q = malloc(n);
  if (!q) return NULL;
  size_t old = malloc_usable_size(p);
  memcpy(q, p, old < n ? old : n);
  free(p);
  return q;
}
