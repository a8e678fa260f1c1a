// threads.h — the life of threads as memprof sees them: a thread's start (its
// stack range), its end (its figures merged), their stack high-water marks,
// and what fork does to all of it. The hooks that see threads start and end
// are interposition/thread_hooks.cpp; the list of live states is registry.h.
#pragma once
#include <stdint.h>

#include "recording/thread_state.h"

namespace memprof::threads {

// Installs the thread-exit key and the fork handlers; called once at start.
void install();
// First thing on a thread memprof's pthread_create started: attaches it as
// the program's and notes its stack range (`user_stack`: the program gave the
// stack, so glibc's reused pages below it are not dropped).
ThreadState& on_start(bool user_stack);
// Exit-time figures for the main thread and the threads that ended.
struct Stacks {
  uint64_t main_bytes;
  uint64_t thread_max_bytes;
  uint64_t count;  // stacks measured (main included)
};
Stacks stacks();
// Records the main thread's stack range (called from the constructor).
void note_main_stack(uintptr_t sp);
// True in a process that fork()ed from the one that started memprof.
bool forked_child();
int parent_pid();

}  // namespace memprof::threads
