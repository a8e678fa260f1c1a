// threads.h — the life of threads as memprof sees them: the registry of live
// thread states, threads alive (for the automatic par region), stack
// high-water marks, and what fork does to all of it. The recorder reads the
// registry; interposition/threads.cpp keeps it, from pthread_create, thread exit
// and fork.
#pragma once
#include <stdint.h>

#include "recording/recorder.h"

namespace memprof::threads {

void lock();
void unlock();
ThreadState* first();  // live threads, under lock()

// Installs the pthread key and fork handlers; called once at start.
void install();
// Exit-time figures for the main thread and the threads that ended.
struct Stacks {
  uint64_t main_bytes;
  uint64_t thread_max_bytes;
  uint64_t count;  // stacks measured (main included)
};
Stacks stacks();
int peak_alive();
// Records the main thread's stack range (called from the constructor).
void note_main_stack(uintptr_t sp);
// True in a process that fork()ed from the one that started memprof.
bool forked_child();
int parent_pid();

}  // namespace memprof::threads
