// trace_subject — a program for the trace tests that makes every kind of call
// memprof traces: malloc, calloc, realloc (grow, shrink, to and from null),
// the aligned forms, C++ new/delete in every form, blocks freed by another
// thread than their maker, two threads allocating at once, a fork whose child
// allocates (not recorded), an exec'd program (fork, vfork, and an exec of
// its own that fails), and blocks never freed. `--failed-execs N`: two threads
// allocate and free without pause while the main thread fails N execs.
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

constexpr int kBlocks = 500;
void* handed[kBlocks];  // made by one thread, freed by another

void* make_blocks(void*) {
  for (int i = 0; i < kBlocks; ++i) {
    handed[i] = std::malloc(size_t(16 + (i * 37) % 700));
    std::memset(handed[i], 1, 16);
  }
  return nullptr;
}

void* free_blocks(void*) {
  for (int i = 0; i < kBlocks; ++i) std::free(handed[i]);
  return nullptr;
}

char* volatile sink;  // keeps the compiler from folding a new/delete pair away

// Two of these run at once: each deletes its own block, never sink (which the
// other thread may have overwritten in between: a double free).
void* churn(void* arg) {
  long seed = reinterpret_cast<long>(arg);
  for (int i = 0; i < 2000; ++i) {
    char* p = new char[size_t(8 + (i * seed) % 300)];
    sink = p;
    delete[] p;
  }
  return nullptr;
}

std::atomic<bool> stop_churning{false};
std::atomic<int> churning{0};  // threads that have allocated once

// Allocates and frees until told to stop: events from another thread than the
// one that execs, at any moment of it. Each thread allocates before it is
// counted, so the execs start only once both do (on a loaded machine the
// threads could otherwise first run after the last exec, and allocate nothing).
void* churn_until_stopped(void* arg) {
  long seed = reinterpret_cast<long>(arg);
  std::free(std::malloc(size_t(8 + seed)));
  churning.fetch_add(1);
  for (long i = 0; !stop_churning.load(std::memory_order_relaxed); ++i) std::free(std::malloc(size_t(8 + (i * seed) % 500)));
  return nullptr;
}

// Execs that fail while two threads allocate: the trace must stay whole.
int failed_execs(int count) {
  pthread_t t1, t2;
  pthread_create(&t1, nullptr, churn_until_stopped, reinterpret_cast<void*>(5L));
  pthread_create(&t2, nullptr, churn_until_stopped, reinterpret_cast<void*>(11L));
  while (churning.load() < 2) sched_yield();
  for (int i = 0; i < count; ++i) execl("/nonexistent/allocstamp-no-such-program", "none", static_cast<char*>(nullptr));
  stop_churning = true;
  pthread_join(t1, nullptr);
  pthread_join(t2, nullptr);
  std::printf("trace_subject: %d failed execs\n", count);
  return 0;
}

void run(void* (*fn)(void*), void* arg = nullptr) {
  pthread_t t;
  if (pthread_create(&t, nullptr, fn, arg) != 0) std::abort();
  pthread_join(t, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--failed-execs") == 0) return failed_execs(std::atoi(argv[2]));
  bool do_exec = argc > 1 && std::strcmp(argv[1], "--exec") == 0;
  // The C functions.
  char* a = static_cast<char*>(std::malloc(100));
  a[0] = 'd';
  char* b = static_cast<char*>(std::calloc(10, 30));
  a = static_cast<char*>(std::realloc(a, 5000));
  a = static_cast<char*>(std::realloc(a, 40));
  void* c = std::realloc(nullptr, 64);
  void* d = nullptr;
  if (posix_memalign(&d, 64, 200) != 0) return 1;
  void* e = aligned_alloc(256, 512);
  void* f = memalign(128, 77);
  std::free(b), std::free(c), std::free(d), std::free(e), std::free(f);
  // The C++ operators.
  int* one = new int(7);
  int* many = new int[33];
  struct alignas(64) Wide { char bytes[64]; };
  Wide* w = new Wide;
  Wide* ws = new Wide[3];
  void* nothrow = ::operator new(48, std::nothrow);
  delete one;
  delete[] many;
  delete w;
  delete[] ws;
  ::operator delete(nothrow);
  // Threads: blocks that cross threads, then two threads at once.
  run(make_blocks);
  run(free_blocks);
  pthread_t t1, t2;
  pthread_create(&t1, nullptr, churn, reinterpret_cast<void*>(3L));
  pthread_create(&t2, nullptr, churn, reinterpret_cast<void*>(7L));
  pthread_join(t1, nullptr);
  pthread_join(t2, nullptr);
  // A fork: the child's calls are its own (not recorded).
  pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 100; ++i) std::free(std::malloc(size_t(i + 1)));
    _exit(0);
  }
  waitpid(child, nullptr, 0);
  if (do_exec) {
    pid_t runner = fork();
    if (runner == 0) {
      execl("/bin/true", "true", static_cast<char*>(nullptr));
      _exit(127);
    }
    waitpid(runner, nullptr, 0);
    // vfork shares this process's memory and runs no fork handler: its exec
    // must not end this process's trace nor hand it on.
    pid_t shared_child = vfork();
    if (shared_child == 0) {
      execl("/bin/true", "true", static_cast<char*>(nullptr));
      _exit(127);
    }
    waitpid(shared_child, nullptr, 0);
    // An exec of this process that fails: the recording goes on.
    execl("/nonexistent/allocstamp-no-such-program", "none", static_cast<char*>(nullptr));
  }
  // Never freed: live at exit in the recording and in the replay.
  static void* volatile kept[10];
  for (int i = 0; i < 10; ++i) kept[i] = std::malloc(size_t(1000 + i));
  std::printf("trace_subject: kept %p\n", kept[9]);
  std::printf("trace_subject: %s\n", a[0] == 'x' ? "x" : "done");
  // --execveat PROGRAM ARGS: become PROGRAM through execveat(2), which
  // glibc's execve does not go through (memprof interposes it too).
  if (argc > 2 && std::strcmp(argv[1], "--execveat") == 0) {
    std::fflush(stdout);
    execveat(AT_FDCWD, argv[2], argv + 2, environ, 0);
    return 127;
  }
  return 0;
}
