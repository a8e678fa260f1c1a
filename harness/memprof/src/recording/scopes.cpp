// scopes.cpp — named scopes (memprof_scope_begin/end): per-thread frames on
// the calling thread, folded into process-wide totals per name when a scope
// ends; the name table is the only lock memprof takes, and only at scope_begin
// of a name not seen before.
#include "recording/scopes.h"

#include <atomic>

#include "base/saturating.h"
#include "base/text.h"
#include "os/clock.h"

namespace memprof {

namespace {

struct ScopeTotals {
  char name[48];
  std::atomic<uint64_t> calls, allocs, bytes, duration_ns;
  std::atomic<int64_t> held;
};
constinit ScopeTotals scopes[kMaxScopes];
constinit std::atomic<uint32_t> scope_count{0};
constinit std::atomic<bool> scope_lock{false};

}  // namespace

void scope_names_lock() {
  while (scope_lock.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
}

void scope_names_unlock() { scope_lock.store(false, std::memory_order_release); }

// Names are compared as stored: at most sizeof name - 1 characters.
static bool same_scope_name(const char* stored, const char* name) {
  return text::equal_prefix(stored, name, sizeof(ScopeTotals::name) - 1);
}

static uint32_t scope_id(const char* name) {
  uint32_t n = scope_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i)
    if (same_scope_name(scopes[i].name, name)) return i;
  scope_names_lock();
  n = scope_count.load(std::memory_order_relaxed);
  uint32_t id = kMaxScopes;
  for (uint32_t i = 0; i < n; ++i)
    if (same_scope_name(scopes[i].name, name)) id = i;
  if (id == kMaxScopes && n < kMaxScopes) {
    text::copy(scopes[n].name, sizeof scopes[n].name, name);
    id = n;
    scope_count.store(n + 1, std::memory_order_release);
  }
  scope_names_unlock();
  return id;
}

void scope_begin(ThreadState& t, const char* name) {
  if (t.scope_depth >= kMaxScopeDepth) {
    ++t.scope_depth;  // counted so that ends still match
    return;
  }
  ScopeFrame& f = t.scopes[t.scope_depth++];
  f = ScopeFrame{scope_id(name), now_ns(), 0, 0, 0};
  refresh_slow(t);
}

void scope_end(ThreadState& t) {
  if (t.scope_depth == 0) return;
  if (t.scope_depth-- > kMaxScopeDepth) return;
  refresh_slow(t);
  ScopeFrame& f = t.scopes[t.scope_depth];
  if (f.id < kMaxScopes) {
    ScopeTotals& s = scopes[f.id];
    s.calls.fetch_add(1, std::memory_order_relaxed);
    s.allocs.fetch_add(f.allocs, std::memory_order_relaxed);
    // Sums over every call on every thread: they stop at their bounds (saturating.h).
    saturating::add_atomic(s.bytes, f.bytes);
    saturating::add_atomic(s.held, saturating::add(int64_t(f.bytes > uint64_t(INT64_MAX) ? INT64_MAX : f.bytes),
                                                   -int64_t(f.freed > uint64_t(INT64_MAX) ? INT64_MAX : f.freed)));
    saturating::add_atomic(s.duration_ns, now_ns() - f.start_ns);
  }
  if (t.scope_depth > 0) {
    ScopeFrame& parent = t.scopes[t.scope_depth - 1];
    parent.allocs += f.allocs;
    parent.bytes = saturating::add(parent.bytes, f.bytes);
    parent.freed = saturating::add(parent.freed, f.freed);
  }
}

void scope_note_alloc(ThreadState& t, uint64_t n) {
  if (t.scope_depth > kMaxScopeDepth) return;
  ScopeFrame& f = t.scopes[t.scope_depth - 1];
  ++f.allocs;
  f.bytes = saturating::add(f.bytes, n);
}

void scope_note_free(ThreadState& t, uint64_t n) {
  if (t.scope_depth > kMaxScopeDepth) return;
  uint64_t& freed = t.scopes[t.scope_depth - 1].freed;
  freed = saturating::add(freed, n);
}

void scope_note_realloc(ThreadState& t, uint64_t n, uint64_t old_n) {
  if (t.scope_depth > kMaxScopeDepth) return;
  ScopeFrame& f = t.scopes[t.scope_depth - 1];
  f.bytes = saturating::add(f.bytes, n);
  f.freed = saturating::add(f.freed, old_n);
}

uint32_t scope_totals(ScopeReport* out, uint32_t max) {
  uint32_t n = scope_count.load(std::memory_order_acquire);
  if (n > max) n = max;
  for (uint32_t i = 0; i < n; ++i) {
    out[i].name = scopes[i].name;
    out[i].calls = scopes[i].calls.load();
    out[i].allocs = scopes[i].allocs.load();
    out[i].bytes = scopes[i].bytes.load();
    out[i].held = scopes[i].held.load();
    out[i].duration_ns = scopes[i].duration_ns.load();
  }
  return n;
}

}  // namespace memprof
