// exports.h — what every file that defines an interposed or public symbol
// shares: the one export attribute (the library is built with hidden
// visibility; C entry points add extern "C") and the one way to find the next
// definition of a symbol this library hides.
#pragma once
#include <stdint.h>

#include "real.h"
#include "recorder.h"

#define MEMPROF_EXPORT __attribute__((visibility("default")))

namespace memprof {

// The next definition of `name` (the allocator's, libstdc++'s, libitm's,
// glibc's), looked up once under the nesting guard (dlsym may allocate its
// error text). A miss is remembered too (libstdc++ loaded RTLD_LOCAL by a
// plugin, no libitm): the caller falls back without asking again.
template <typename Fn>
Fn next_definition(Fn& cached, const char* name) {
  static_assert(sizeof(Fn) == sizeof(uintptr_t));
  const Fn missing = reinterpret_cast<Fn>(uintptr_t(1));
  if (__builtin_expect(!cached, 0)) {
    ThreadState& t = self;
    ++t.depth;
    Fn found = reinterpret_cast<Fn>(next_symbol(name));
    --t.depth;
    cached = found ? found : missing;
  }
  return cached == missing ? nullptr : cached;
}

}  // namespace memprof
