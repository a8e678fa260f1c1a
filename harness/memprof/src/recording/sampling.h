// sampling.h — MEMPROF_SAMPLE_BYTES=N: call sites, sampled as jemalloc's heap
// profiler does. Each thread counts down a number of bytes drawn from an
// exponential distribution with mean N; the allocation that takes it below
// zero is sampled (so a block of n bytes is taken with probability
// 1 - exp(-n/N), large blocks nearly always, and a sample stands for
// 1 / that probability blocks without bias). A sampled allocation takes a
// backtrace (glibc's backtrace(), loaded before counting starts), interns it
// in a process-wide lock-free table of stacks with estimated counters, and is
// remembered by address (and marked odd in the shadow, so its free takes the
// rare path and finds its stack). At exit the stacks go to MEMPROF_CALLSITES
// with the process's executable mappings, for the driver to symbolise.
// Off (the default), the hot path pays one subtraction and one branch per
// allocation, and memprof's counts do not change either way.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "recording/thread_state.h"

namespace memprof::sampling {

// At start (options read, before counting): sets the first countdown of every
// thread that attaches, and loads the unwinder.
void start();
// The countdown a thread starts with (INT64_MAX when sampling is off).
int64_t first_countdown();
// p (n bytes, already remembered in the shadow) took the countdown below zero.
void take(ThreadState& t, void* p, size_t n);
// An odd block of n requested bytes is being freed (before the allocator
// takes it back): if it was sampled, its stack's freed estimates grow.
void on_odd_free(const void* p, size_t n);
// At exit: writes the stacks to MEMPROF_CALLSITES.
void finish();

// Called after every allocation is remembered.
inline void after_alloc(ThreadState& t, void* p, size_t n) {
  if (__builtin_expect(t.sample_left < 0, 0)) take(t, p, n);
}

}  // namespace memprof::sampling
