// allocator_code.h — where the preloaded allocator's code lies, so that a
// kernel call is told to be the allocator's by its return address (also on
// threads the allocator started itself, and in the allocator's free, which the
// hot path calls outside the nesting guard). The allocator is the library
// LD_PRELOAD names after libmemprof.so, with the libraries it needs that are
// not the C and C++ runtime (TBB's proxy forwards to libtbbmalloc.so.2).
// Found once, from the first kernel call or from memprof's start, whichever
// comes first: allocators map memory in their own set-up, before memprof is
// ready. No malloc, no dlsym.
#pragma once
#include <stdint.h>

#include <atomic>

#include "os/code_span.h"

namespace memprof::allocator_code {

constexpr int kMaxObjects = 4;

struct Found {
  std::atomic<int> state;  // 0 not looked for, 1 being looked for, 2 done
  int count;               // objects found: 0 when nothing is preloaded behind memprof
  CodeSpan spans[kMaxObjects];
};
extern Found found;

// Looks for the allocator's objects once; later calls return at once.
void find_slow();
inline void find() {
  if (__builtin_expect(found.state.load(std::memory_order_acquire) != 2, 0)) find_slow();
}

// True when an allocator library is preloaded behind memprof (after find()).
inline bool preloaded() { return found.count != 0; }

// True when `code` (a return address) lies in the allocator's executable code.
inline bool contains(const void* code) {
  for (int i = 0; i < found.count; ++i)
    if (found.spans[i].contains(code)) return true;
  return false;
}

}  // namespace memprof::allocator_code
