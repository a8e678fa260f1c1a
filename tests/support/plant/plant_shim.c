// plant_shim.c — libplant_shim.so, a planted allocator regression for the tests
// of `bench check`, preloaded in front of an allocator (LD_PRELOAD=libplant_shim.so:
// libjemalloc.so.2) or alone (glibc). Read once, at the first call: PLANT_WORK=N
// (or PLANT_WORK_FILE, lines "N ARGS": the N of the line whose ARGS is this
// process's command line after its name) adds exactly 2N instructions (callgrind's Ir) to every allocating
// call and none to free or delete; PLANT_PAD=B asks for B more bytes per block;
// PLANT_PAGES=N maps a fresh page, touches it and unmaps it on every Nth
// allocating call of the process: one mmap, one munmap and one minor fault
// more per N calls, the kernel's share of a regression.
// Forwarding costs instructions too: compare with the shim at PLANT_WORK=0.
// One user call pays once: a thread's depth (initial-exec TLS) marks the
// outermost allocating call, and calls nested in it (libstdc++'s operator new
// calling malloc, its nothrow new calling new) neither work nor pad. The
// cleanup attribute (built with -fexceptions) unwinds the depth when the
// allocator's operator new throws. x86-64 only (the loop is assembly).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static size_t work, pad;  // loop iterations and bytes added per call
static size_t pages_every, calls;  // PLANT_PAGES; the process's allocating calls so far
static int state;         // 0 unresolved, 1 resolving, 2 ready
static __thread unsigned depth __attribute__((tls_model("initial-exec")));

static struct {
  void *(*malloc)(size_t), *(*valloc)(size_t), *(*pvalloc)(size_t), *(*realloc)(void *, size_t);
  void *(*calloc)(size_t, size_t), *(*aligned_alloc)(size_t, size_t), *(*memalign)(size_t, size_t);
  int (*posix_memalign)(void **, size_t, size_t);
  void (*free)(void *);
  size_t (*usable)(void *);
} next;

// dlsym may allocate (glibc: its error buffer) while `next` is unknown: such
// blocks come from this zeroed arena, carry their size in the 16 bytes before
// them and never reach the allocator.
static _Alignas(64) char arena[64 * 1024];
static size_t arena_used;

static void *bootstrap(size_t n, size_t align) {
  size_t used = __atomic_load_n(&arena_used, __ATOMIC_RELAXED), start;
  if (align < 16) align = 16;
  do {
    start = (used + 16 + align - 1) & ~(align - 1);
    if (n > sizeof arena || start + n > sizeof arena) return NULL;
  } while (!__atomic_compare_exchange_n(&arena_used, &used, start + n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  memcpy(arena + start - 16, &n, sizeof n);
  return arena + start;
}
static int in_arena(const void *p) { return (uintptr_t)p - (uintptr_t)arena < sizeof arena; }
static size_t arena_size(const void *p) { size_t n; memcpy(&n, (const char *)p - 16, sizeof n); return n; }

static void say(const char *a, const char *b) {
  struct iovec line[3] = {{(void *)a, strlen(a)}, {(void *)b, strlen(b)}, {"\n", 1}};
  if (writev(2, line, 3) < 0) return;
}
static void *find(const char *name) {
  void *fn = dlsym(RTLD_NEXT, name);
  if (!fn) say("plant: fatal: no next definition of ", name), _exit(127);
  return fn;
}

// The number in [s, end), else `fallback` with a warning.
static size_t number(const char *name, const char *s, const char *end, size_t fallback) {
  size_t v = 0;
  const char *p = s;
  while (p < end && *p >= '0' && *p <= '9') v = v * 10 + (size_t)(*p++ - '0');
  return p == s || p != end ? say("plant: not a number, ignored: ", name), fallback : v;
}

// PLANT_WORK_FILE's N for this process: the file's lines are "N ARGS", ARGS
// the program's arguments after its name joined by single spaces (runs.csv's
// args column, for words that need no quoting); the first line whose ARGS is
// this process's command line wins. Read with raw calls into static buffers.
static size_t file_work(const char *path, size_t fallback) {
  static char cmd[8192], table[256 * 1024];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t len = fd < 0 ? -1 : read(fd, cmd, sizeof cmd - 1);  // one read returns it all (or its start)
  if (fd >= 0) close(fd);
  if (len <= 0) return fallback;
  const char *args = memchr(cmd, '\0', (size_t)len);
  if (!args || args + 1 >= cmd + len) return fallback;
  ++args;
  for (char *c = (char *)args; c < cmd + len - 1; ++c)
    if (*c == '\0') *c = ' ';  // argv[1..] joined by spaces; the last NUL ends it
  fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t got = 0, n;
  while (fd >= 0 && got < (ssize_t)sizeof table - 1 && (n = read(fd, table + got, sizeof table - 1 - got)) > 0) got += n;
  if (fd >= 0) close(fd);
  if (fd < 0) return say("plant: cannot read PLANT_WORK_FILE ", path), fallback;
  table[got] = '\0';
  for (char *line = table; *line;) {
    char *eol = strchr(line, '\n'), *space = strchr(line, ' ');
    if (!eol) eol = line + strlen(line);
    if (space && space < eol && (size_t)(eol - space - 1) == strlen(args) && !memcmp(space + 1, args, strlen(args)))
      return number("PLANT_WORK_FILE", line, space, fallback);
    line = *eol ? eol + 1 : eol;
  }
  return fallback;
}

static size_t setting(const char *name) {
  const char *v = getenv(name);
  return v && *v ? number(name, v, v + strlen(v), 0) : 0;
}

static void init(void) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  next.malloc = find("malloc"), next.calloc = find("calloc"), next.realloc = find("realloc");
  next.free = find("free"), next.posix_memalign = find("posix_memalign");
  next.aligned_alloc = find("aligned_alloc"), next.memalign = find("memalign");
  next.valloc = find("valloc"), next.pvalloc = find("pvalloc"), next.usable = find("malloc_usable_size");
  const char *file = getenv("PLANT_WORK_FILE");
  work = file && *file ? file_work(file, setting("PLANT_WORK")) : setting("PLANT_WORK");
  pad = setting("PLANT_PAD");
  pages_every = setting("PLANT_PAGES");
  __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}
// False only while dlsym runs for init, on its thread or (briefly) another.
static int ready(void) {
  if (__builtin_expect(__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2, 0)) init();
  return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2;
}

// 2n instructions (dec, jnz) per call when n > 0; test and jz run either way.
static inline void plant_work(size_t n) {
  __asm__ volatile("test %0, %0\n\tjz 2f\n1:\tdec %0\n\tjnz 1b\n2:" : "+r"(n) : : "cc");
}
static void touch_fresh_page(void) {
  char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return;
  *(volatile char *)page = 1;
  munmap(page, 4096);
}
static inline size_t enter(void) {
  if (depth++) return 0;
  plant_work(work);
  if (pages_every && __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % pages_every == 0) touch_fresh_page();
  return pad;
}
static void leave(size_t *extra) { (void)extra; --depth; }
#define ENTER() size_t extra __attribute__((cleanup(leave))) = enter()
static inline size_t grow(size_t n, size_t by) { return n + by < n ? SIZE_MAX : n + by; }

// Until ready, a block from the arena aligned as asked.
#define FORWARD(name, params, align, args)           \
  EXPORT void *name params {                         \
    if (!ready()) return bootstrap(n, align);        \
    ENTER();                                         \
    return next.name args;                           \
  }
FORWARD(malloc, (size_t n), 16, (grow(n, extra)))
FORWARD(valloc, (size_t n), 4096, (grow(n, extra)))
FORWARD(pvalloc, (size_t n), 4096, (grow(n, extra)))
FORWARD(aligned_alloc, (size_t align, size_t n), align, (align, grow(n, extra)))
FORWARD(memalign, (size_t align, size_t n), align, (align, grow(n, extra)))
EXPORT void *calloc(size_t count, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) n = SIZE_MAX;  // fails below, as it must
  if (!ready()) return bootstrap(n, 16);
  ENTER();
  return next.calloc(1, grow(n, extra));
}
EXPORT void *realloc(void *p, size_t n) {
  if (!ready() || in_arena(p)) {  // an arena block moves out; the old one stays
    void *q = ready() ? malloc(n) : bootstrap(n, 16);
    if (q && p) memcpy(q, p, arena_size(p) < n ? arena_size(p) : n);
    return q;
  }
  ENTER();
  return next.realloc(p, n ? grow(n, extra) : 0);  // realloc(p, 0) frees, as before
}
// Through realloc, as glibc's: count × size + pad is no count × size.
EXPORT void *reallocarray(void *p, size_t count, size_t size) {
  size_t n;
  return realloc(p, __builtin_mul_overflow(count, size, &n) ? SIZE_MAX : n);
}
EXPORT int posix_memalign(void **out, size_t align, size_t n) {
  if (!ready()) return (*out = bootstrap(n, align)) ? 0 : 12;  // ENOMEM
  ENTER();
  return next.posix_memalign(out, align, grow(n, extra));
}
EXPORT void free(void *p) {
  if (!in_arena(p) && ready()) next.free(p);
}
EXPORT size_t malloc_usable_size(void *p) {
  if (in_arena(p)) return arena_size(p);
  return ready() ? next.usable(p) : 0;
}

// C++'s operators by their mangled names (as mimalloc's alloc-override.c),
// each forwarded to the next definition, found at its first call (a C program
// may load libstdc++ late). new waits while another thread resolves (dlsym
// never calls it); the sized deletes pass the padded size.
#define NEXT(name, type, params)       \
  static type(*fn) params;             \
  if (!__atomic_load_n(&fn, __ATOMIC_ACQUIRE)) __atomic_store_n(&fn, (type(*) params)find(#name), __ATOMIC_RELEASE)
#define NEW(name, params, args) \
  EXPORT void *name params {    \
    while (!ready()) {}         \
    NEXT(name, void *, params); \
    ENTER();                    \
    return fn args;             \
  }
NEW(_Znwm, (size_t n), (grow(n, extra)))
NEW(_Znam, (size_t n), (grow(n, extra)))
NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *tag), (grow(n, extra), tag))
NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *tag), (grow(n, extra), tag))
NEW(_ZnwmSt11align_val_t, (size_t n, size_t al), (grow(n, extra), al))
NEW(_ZnamSt11align_val_t, (size_t n, size_t al), (grow(n, extra), al))
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *tag), (grow(n, extra), al, tag))
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *tag), (grow(n, extra), al, tag))
#define SIZED_DELETE(name, params, args) \
  EXPORT void name params { NEXT(name, void, params); fn args; }
SIZED_DELETE(_ZdlPvm, (void *p, size_t n), (p, n + pad))
SIZED_DELETE(_ZdaPvm, (void *p, size_t n), (p, n + pad))
SIZED_DELETE(_ZdlPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n + pad, al))
SIZED_DELETE(_ZdaPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n + pad, al))
