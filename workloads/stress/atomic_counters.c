/* atomic_counters.c — not a workload: the yardsticks scripts/overhead times beside
 * memprof. An interposer that counts as malloc_count does (preloaded like
 * memprof): one atomic add to a shared counter per malloc and per free, and the
 * peak, total bytes and allocation count updated in shared memory without a
 * lock. malloc_count keeps bytes through a header; this counts blocks, so it
 * reads nothing at free: what it costs is the shared counters alone.
 * Built with FORWARD_ONLY it counts nothing: the least any preloaded
 * interposer costs (the program's call lands in it, and it calls on). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static void* (*real_malloc)(size_t);
static void* (*real_calloc)(size_t, size_t);
static void* (*real_realloc)(void*, size_t);
static void (*real_free)(void*);

/* dlsym may allocate (calloc) before the real functions are known. */
static _Alignas(16) char bootstrap[16384];
static size_t bootstrap_used;
static int resolving;

static int is_bootstrap(const void* p) {
  return (const char*)p >= bootstrap && (const char*)p < bootstrap + sizeof bootstrap;
}

static void* bootstrap_alloc(size_t n) {
  size_t rounded = (n + 15) & ~(size_t)15;
  if (n > sizeof bootstrap || rounded > sizeof bootstrap - bootstrap_used) return NULL;
  void* p = bootstrap + bootstrap_used;
  bootstrap_used += rounded;
  return p; /* static storage: already zero */
}

static void resolve(void) {
  resolving = 1;
  real_malloc = (void* (*)(size_t))dlsym(RTLD_NEXT, "malloc");
  real_calloc = (void* (*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
  real_realloc = (void* (*)(void*, size_t))dlsym(RTLD_NEXT, "realloc");
  real_free = (void (*)(void*))dlsym(RTLD_NEXT, "free");
  resolving = 0;
}

#ifdef FORWARD_ONLY
static void count_in(size_t n) { (void)n; }
static void count_out(void) {}
#else
static uint64_t allocations, requested_bytes, live_blocks, live_blocks_peak;

// Relaxed loads and stores: the plain read-modify-writes malloc_count does, without a data race.
static void count_in(size_t n) {
  uint64_t live = __atomic_add_fetch(&live_blocks, 1, __ATOMIC_RELAXED);
  if (live > __atomic_load_n(&live_blocks_peak, __ATOMIC_RELAXED))
    __atomic_store_n(&live_blocks_peak, live, __ATOMIC_RELAXED);
  __atomic_store_n(&requested_bytes, __atomic_load_n(&requested_bytes, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
  __atomic_store_n(&allocations, __atomic_load_n(&allocations, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

static void count_out(void) { __atomic_sub_fetch(&live_blocks, 1, __ATOMIC_RELAXED); }
#endif

void* malloc(size_t n) {
  if (!real_malloc) {
    if (resolving) return bootstrap_alloc(n);
    resolve();
  }
  void* p = real_malloc(n);
  if (p) count_in(n);
  return p;
}

void* calloc(size_t count, size_t size) {
  if (!real_calloc) {
    if (resolving) return count && size > SIZE_MAX / count ? NULL : bootstrap_alloc(count * size);
    resolve();
  }
  void* p = real_calloc(count, size);
  if (p) count_in(count * size);
  return p;
}

void* realloc(void* old, size_t n) {
  if (!real_realloc) resolve();
  if (is_bootstrap(old)) {  /* a dlsym block: copy what the arena holds */
    void* p = malloc(n);
    size_t available = (size_t)(bootstrap + sizeof bootstrap - (char*)old);
    if (p) memcpy(p, old, n < available ? n : available);
    return p;
  }
  void* p = real_realloc(old, n);
  if (p && !old) count_in(n);
  if (old && !n && !p) count_out();
  return p;
}

void free(void* p) {
  if (!p || is_bootstrap(p)) return;
  if (!real_free) resolve();
  count_out();
  real_free(p);
}
