// scopes.h — named scopes on the calling thread (memprof_scope_begin/end) and
// their totals per name, for the report (scopes.cpp).
#pragma once
#include <stdint.h>

#include "recording/thread_state.h"

namespace memprof {

constexpr uint32_t kMaxScopes = 64;

struct ScopeReport {
  const char* name;
  uint64_t calls, allocs, bytes, duration_ns;
  int64_t held;
};

void scope_begin(ThreadState& t, const char* name);
void scope_end(ThreadState& t);
// A block of n bytes allocated or freed inside the thread's innermost scope.
void scope_note_alloc(ThreadState& t, uint64_t n);
void scope_note_free(ThreadState& t, uint64_t n);
// A realloc to n bytes of a block of old_n (0: not known) inside the innermost
// scope: n requested and old_n freed, no allocation counted (as the totals
// count a realloc).
void scope_note_realloc(ThreadState& t, uint64_t n, uint64_t old_n);
uint32_t scope_totals(ScopeReport* out, uint32_t max);

// Fork handlers hold this across fork (the name table's only lock).
void scope_names_lock();
void scope_names_unlock();

}  // namespace memprof
