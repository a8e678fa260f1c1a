// threads — two workers with cross-thread frees, a thread that ends early, and
// a deep stack: exact counts by region (par while more than one thread lives).
// `threads 0` starts and joins the same threads but they do nothing.
// `threads many` ends more threads at once than glibc caches the stacks of, so
// glibc frees the TLS vectors it allocated for them: neither the program's
// blocks nor unknown ones.
// `threads foreign` starts a thread through the C library's own pthread_create,
// behind memprof's back, as an allocator starts its background threads: what
// that thread allocates is not the program's; the main thread's 3 blocks are.
// `threads foreign-idle` does the same with a thread that allocates nothing.
// `threads frees-main`: two workers free the 1,000 blocks main made, 500 each
// (the load, integrated at publications, dipped below 0 and wrapped).
// `threads main-exits`: main leaves through pthread_exit while a worker runs;
// once main has ended, the worker, the one thread left, allocates 10 blocks: seq.
// `threads stacks`: main recurses 512 KiB deep; then a thread recurses 256 KiB
// deep and ends (joined) before a second thread, which recurses nowhere, ends.
// `threads stacks-base` does the same but recurse.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

constexpr int kBlocks = 1000;
void* handoff[kBlocks];
std::atomic<int> handed{0};
std::atomic<bool> consumer_started{false};  // so that three threads are alive at once
bool work = true;
void* kept_by_early[10];

void* producer(void*) {
  if (!work) return nullptr;
  while (!consumer_started.load(std::memory_order_acquire)) {
  }
  for (int i = 0; i < kBlocks; ++i) {
    handoff[i] = malloc(24);
    handed.store(i + 1, std::memory_order_release);
  }
  return nullptr;
}

// Its own function: stack-clash probing touches a large frame on entry.
__attribute__((noinline)) void use_deep_stack() {
  volatile char deep[256 * 1024];
  memset(const_cast<char*>(deep), 1, sizeof deep);
}

// `kib` frames of a KiB each, every one written: a recursion the stack holds.
__attribute__((noinline)) int recurse(int kib) {
  volatile char frame[1024];
  memset(const_cast<char*>(frame), kib & 0xff, sizeof frame);
  return kib > 1 ? recurse(kib - 1) + frame[kib % sizeof frame] : frame[0];
}

void* recurse_on_thread(void* kib) {
  recurse(int(reinterpret_cast<long>(kib)));
  return nullptr;
}

int stacks(bool deep) {
  if (deep) recurse(512);
  for (long kib : {deep ? 256L : 1L, 1L}) {
    pthread_t t;
    if (pthread_create(&t, nullptr, recurse_on_thread, reinterpret_cast<void*>(kib)) != 0) return 1;
    pthread_join(t, nullptr);  // the deep one has ended before the shallow one starts
  }
  puts("threads: ok");
  return 0;
}

void* consumer(void*) {
  if (!work) return nullptr;
  consumer_started.store(true, std::memory_order_release);
  for (int i = 0; i < kBlocks; ++i) {
    while (handed.load(std::memory_order_acquire) <= i) {
    }
    free(handoff[i]);  // freed on another thread than it was allocated
  }
  use_deep_stack();
  return nullptr;
}

void* early(void*) {
  if (!work) return nullptr;
  for (int i = 0; i < 10; ++i) kept_by_early[i] = malloc(100);  // outlive the thread
  for (int i = 0; i < 5; ++i) free(malloc(200));
  return nullptr;
}

std::atomic<int> detached_done{0};
int detached_mark;

void* short_lived(void* detached) {
  free(malloc(64));
  if (detached) detached_done.fetch_add(1);
  return nullptr;
}

// Rounds of 12 threads alive at once, then joined: more ended stacks than
// glibc's cache keeps, so glibc frees some (with their TLS vectors) on joining.
// Detached threads between the rounds free cached stacks on their own way out.
int many_threads() {
  for (int round = 0; round < 2; ++round) {
    pthread_t t[12];
    for (pthread_t& each : t)
      if (pthread_create(&each, nullptr, short_lived, nullptr) != 0) return 1;
    for (pthread_t& each : t) pthread_join(each, nullptr);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < 12; ++i) {
      pthread_t d;
      if (pthread_create(&d, &attr, short_lived, &detached_mark) != 0) return 1;
    }
    pthread_attr_destroy(&attr);
    while (detached_done.load() < 12 * (round + 1)) {
    }
  }
  puts("threads: ok");
  return 0;
}

bool foreign_work = true;

void* allocator_like(void*) {
  if (!foreign_work) return nullptr;
  void* kept[7];
  for (void*& p : kept) p = malloc(320);
  for (void* p : kept) free(p);
  return nullptr;
}

int foreign_thread() {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  auto create = libc ? reinterpret_cast<Create>(dlsym(libc, "pthread_create")) : nullptr;
  if (!create) return 1;
  void* mine[3];
  for (void*& p : mine) p = malloc(48);
  pthread_t t;
  if (create(&t, nullptr, allocator_like, nullptr) != 0) return 1;
  pthread_join(t, nullptr);
  for (void* p : mine) free(p);
  puts("threads: ok");
  return 0;
}

// Waits until the main thread has ended (its /proc state Z), then allocates.
void* outlives_main(void*) {
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", int(getpid()));
  for (;;) {
    const int fd = open(path, O_RDONLY);  // no stdio: nothing of its own allocated
    const ssize_t n = fd < 0 ? -1 : read(fd, stat, sizeof stat - 1);
    if (fd >= 0) close(fd);
    if (n <= 0) break;  // the task is gone
    stat[n] = 0;
    const char* state = strrchr(stat, ')');
    if (state && state[1] == ' ' && state[2] == 'Z') break;
    usleep(1000);
  }
  void* blocks[10];
  for (void*& p : blocks) p = malloc(3333);
  for (void* p : blocks) free(p);
  exit(0);  // not a return: an allocator's background thread (jemalloc's) would keep the process alive
}

void* made_by_main[1000];
void* free_half(void* arg) {
  for (long i = reinterpret_cast<long>(arg); i < 1000; i += 2) free(made_by_main[i]);
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "many") == 0) return many_threads();
  if (argc > 1 && strcmp(argv[1], "frees-main") == 0) {
    for (void*& p : made_by_main) p = malloc(24);
    pthread_t t[2];
    for (long k = 0; k < 2; ++k) pthread_create(&t[k], nullptr, free_half, reinterpret_cast<void*>(k));
    for (pthread_t& each : t) pthread_join(each, nullptr);
    return 0;
  }
  if (argc > 1 && strncmp(argv[1], "stacks", 6) == 0) return stacks(strcmp(argv[1], "stacks-base") != 0);
  if (argc > 1 && strcmp(argv[1], "main-exits") == 0) {
    pthread_t t;
    pthread_create(&t, nullptr, outlives_main, nullptr);
    pthread_exit(nullptr);
  }
  if (argc > 1 && strncmp(argv[1], "foreign", 7) == 0) {
    foreign_work = strcmp(argv[1], "foreign-idle") != 0;
    return foreign_thread();
  }
  work = !(argc > 1 && argv[1][0] == '0');
  void* before = work ? malloc(1000) : nullptr;  // seq
  pthread_t a, b, c;
  pthread_create(&c, nullptr, early, nullptr);
  pthread_join(c, nullptr);                    // ends before the others start
  pthread_create(&a, nullptr, producer, nullptr);
  pthread_create(&b, nullptr, consumer, nullptr);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  for (void* p : kept_by_early) free(p);       // seq again
  free(before);
  if (work) {
    void* leak = malloc(77);                   // still live at exit
    (void)leak;
  }
  puts("threads: ok");
  return 0;
}
