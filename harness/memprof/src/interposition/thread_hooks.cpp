// thread_hooks.cpp — pthread_create and the joins. pthread_create is wrapped
// so that memprof knows when the program's threads start (for the par region
// and their stack range: threads.h), and the joins mark glibc's teardown
// frees as its own.
#include <pthread.h>

#include "interposition/exports.h"
#include "recording/registry.h"
#include "recording/threads.h"

namespace memprof {

namespace {

struct Launch {
  void* (*fn)(void*);
  void* arg;
  bool user_stack;
};

void* trampoline(void* raw) {
  Launch launch = *static_cast<Launch*>(raw);
  ThreadState& t = threads::on_start(launch.user_stack);
  ++t.depth;  // the launch block was never the program's
  real.free(raw);
  --t.depth;
  return launch.fn(launch.arg);
}

// Joining a thread may free the TLS vectors of ended threads whose stacks
// leave glibc's cache: glibc's own blocks, allocated inside pthread_create.
template <typename Join, typename... Args>
int join_quietly(Join next, Args... args) {
  if (!shared.ready.load(std::memory_order_acquire)) return next(args...);
  ThreadState& t = current_thread();
  ++t.teardown;
  int rc = next(args...);
  --t.teardown;
  return rc;
}

}  // namespace

}  // namespace memprof

extern "C" MEMPROF_EXPORT int pthread_create(
    pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  using namespace memprof;
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static Create cached = nullptr;
  Create next = memprof::next_definition(cached, "pthread_create");
  if (!shared.ready.load(std::memory_order_acquire)) return next(thread, attr, fn, arg);

  ThreadState& t = current_thread();
  // A thread an allocator starts from inside malloc (jemalloc's background
  // threads) is not the program's.
  if (t.depth != 0) return next(thread, attr, fn, arg);
  ++t.depth;  // what glibc allocates for the new thread (its TLS vector) is not the program's
  auto* launch = static_cast<Launch*>(real.malloc(sizeof(Launch)));
  if (!launch) {
    int rc = next(thread, attr, fn, arg);
    --t.depth;
    return rc;
  }
  launch->fn = fn;
  launch->arg = arg;
  launch->user_stack = false;
  if (attr) {
    // Without an address set, glibc reports "address 0 minus size" as the stack.
    void* addr = nullptr;
    size_t size = 0;
    launch->user_stack = pthread_attr_getstack(attr, &addr, &size) == 0 && addr != nullptr &&
                         reinterpret_cast<uintptr_t>(addr) + size != 0;
  }
  registry::thread_started();
  int rc = next(thread, attr, trampoline, launch);
  if (rc != 0) {
    registry::thread_ended();
    real.free(launch);
  }
  --t.depth;
  return rc;
}

using memprof::join_quietly;

extern "C" MEMPROF_EXPORT int pthread_join(pthread_t thread, void** result) {
  static int (*next)(pthread_t, void**) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_join"), thread, result);
}

extern "C" MEMPROF_EXPORT int pthread_tryjoin_np(pthread_t thread, void** result) {
  static int (*next)(pthread_t, void**) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_tryjoin_np"), thread, result);
}

extern "C" MEMPROF_EXPORT int pthread_timedjoin_np(pthread_t thread, void** result, const struct timespec* until) {
  static int (*next)(pthread_t, void**, const struct timespec*) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_timedjoin_np"), thread, result, until);
}

extern "C" MEMPROF_EXPORT int pthread_clockjoin_np(pthread_t thread, void** result, clockid_t clock,
                                        const struct timespec* until) {
  static int (*next)(pthread_t, void**, clockid_t, const struct timespec*) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_clockjoin_np"), thread, result, clock, until);
}
