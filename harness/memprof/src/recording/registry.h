// registry.h — the threads memprof counts for. A thread attaches on its first
// call (its state set up and listed); the list of live states is what the
// totals, the trace and the report walk, under one lock taken only at thread
// start and exit, at fork, and by those walks. It also keeps how many of the
// program's threads live (the automatic par region, and the peak).
#pragma once
#include <stdint.h>

#include "recording/thread_state.h"

namespace memprof {

// Attaches the calling thread's state `t` (registry.cpp): on its first call.
void thread_attach(ThreadState& t);

inline ThreadState& current_thread() {
  ThreadState& t = self;
  if (__builtin_expect(t.status == kNew, 0)) thread_attach(t);
  return t;
}

}  // namespace memprof

namespace memprof::registry {

// Installs the pthread key whose destructor `at_exit` runs with a thread's
// state when the thread ends; called once at start.
void install(void (*at_exit)(void*));

void lock();
void unlock();
ThreadState* first();  // live threads, under lock()
// Takes `t` off the list (under lock()).
void remove(ThreadState& t);
// In a forked child: the survivor alone is listed and alive.
void keep_only(ThreadState& survivor);

// A thread of the program's starts, or did not start after all, or ended:
// the count alive and the region that follows from it.
void thread_started();
void thread_ended();
int peak_alive();

}  // namespace memprof::registry
