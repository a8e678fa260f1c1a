// tm_hooks.cpp — libitm's allocation entry points. Inside a transaction GCC
// calls these instead of malloc/new/free/delete. Each forwards to libitm and
// only marks what follows: the next allocation of that size is the program's
// (libitm's own bookkeeping mallocs are not), and a freed block's deferred
// release at commit (or the release of a block of an aborted attempt) is `tx`.
#include <stddef.h>

#include "interposition/exports.h"
#include "os/real.h"
#include "recording/recorder.h"
#include "recording/totals.h"

namespace memprof {
namespace {

// libitm's entry point; the first lookup also tells the recorder libitm is here.
template <typename Fn>
Fn next_itm(Fn& cached, const char* name) {
  if (__builtin_expect(!cached, 0) && refresh_tm_symbols()) note_libitm();
  return next_definition(cached, name);
}

template <typename Fn, typename... Args>
void* tx_alloc(Fn fn, size_t n, const Args&... args) {
  ThreadState& t = self;
  t.itm_pending = n + 1;
  refresh_slow(t);
  void* p = fn(args...);
  t.itm_pending = 0;
  refresh_slow(t);
  return p;
}

template <typename Fn, typename... Args>
void tx_free(Fn fn, void* p, const Args&... args) {
  if (p && shared.ready.load(std::memory_order_relaxed)) tx_set_add(current_thread(), p);
  fn(p, args...);
}

}  // namespace
}  // namespace memprof

using namespace memprof;

#define MEMPROF_TM(type, name, mangled)                                         \
  extern "C" MEMPROF_EXPORT type name __asm__(mangled); \
  type name

#define MEMPROF_TM_NEXT(type, mangled) \
  static type next = nullptr;          \
  auto fn = next_itm(next, mangled)

struct nothrow_tag {};  // std::nothrow_t by reference: only its address is passed

using Alloc = void* (*)(size_t);
using AllocNothrow = void* (*)(size_t, const nothrow_tag&);
using Calloc = void* (*)(size_t, size_t);
using Free = void (*)(void*);
using FreeSized = void (*)(void*, size_t);
using FreeNothrow = void (*)(void*, const nothrow_tag&);
using Commit = void (*)();
using Register = void (*)(void*, size_t);
using Deregister = void (*)(void*);
using CommitEH = void (*)(void*);

MEMPROF_TM(void*, memprof_itm_malloc(size_t n), "_ITM_malloc") {
  MEMPROF_TM_NEXT(Alloc, "_ITM_malloc");
  return tx_alloc(fn, n, n);
}
MEMPROF_TM(void*, memprof_itm_calloc(size_t count, size_t size), "_ITM_calloc") {
  MEMPROF_TM_NEXT(Calloc, "_ITM_calloc");
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) n = SIZE_MAX - 1;
  return tx_alloc(fn, n, count, size);
}
MEMPROF_TM(void, memprof_itm_free(void* p), "_ITM_free") {
  MEMPROF_TM_NEXT(Free, "_ITM_free");
  tx_free(fn, p);
}
MEMPROF_TM(void*, memprof_tm_new(size_t n), "_ZGTtnwm") {
  MEMPROF_TM_NEXT(Alloc, "_ZGTtnwm");
  return tx_alloc(fn, n, n);
}
MEMPROF_TM(void*, memprof_tm_new_array(size_t n), "_ZGTtnam") {
  MEMPROF_TM_NEXT(Alloc, "_ZGTtnam");
  return tx_alloc(fn, n, n);
}
MEMPROF_TM(void*, memprof_tm_new_nothrow(size_t n, const nothrow_tag& tag), "_ZGTtnwmRKSt9nothrow_t") {
  MEMPROF_TM_NEXT(AllocNothrow, "_ZGTtnwmRKSt9nothrow_t");
  return tx_alloc(fn, n, n, tag);
}
MEMPROF_TM(void*, memprof_tm_new_array_nothrow(size_t n, const nothrow_tag& tag), "_ZGTtnamRKSt9nothrow_t") {
  MEMPROF_TM_NEXT(AllocNothrow, "_ZGTtnamRKSt9nothrow_t");
  return tx_alloc(fn, n, n, tag);
}
MEMPROF_TM(void, memprof_tm_delete(void* p), "_ZGTtdlPv") {
  MEMPROF_TM_NEXT(Free, "_ZGTtdlPv");
  tx_free(fn, p);
}
MEMPROF_TM(void, memprof_tm_delete_array(void* p), "_ZGTtdaPv") {
  MEMPROF_TM_NEXT(Free, "_ZGTtdaPv");
  tx_free(fn, p);
}
MEMPROF_TM(void, memprof_tm_delete_sized(void* p, size_t n), "_ZGTtdlPvm") {
  MEMPROF_TM_NEXT(FreeSized, "_ZGTtdlPvm");
  tx_free(fn, p, n);
}
MEMPROF_TM(void, memprof_tm_delete_nothrow(void* p, const nothrow_tag& tag), "_ZGTtdlPvRKSt9nothrow_t") {
  MEMPROF_TM_NEXT(FreeNothrow, "_ZGTtdlPvRKSt9nothrow_t");
  tx_free(fn, p, tag);
}
MEMPROF_TM(void, memprof_tm_delete_array_nothrow(void* p, const nothrow_tag& tag), "_ZGTtdaPvRKSt9nothrow_t") {
  MEMPROF_TM_NEXT(FreeNothrow, "_ZGTtdaPvRKSt9nothrow_t");
  tx_free(fn, p, tag);
}

// A program built with -fgnu-tm registers its transactional clones with
// libitm from its initialisers (and deregisters them at exit); what libitm
// allocates for that is its own, as its bookkeeping inside transactions is.
// (Called only by programs that have clones, hence libitm.)
template <typename Fn, typename... Args>
void in_tm_runtime(Fn fn, const Args&... args) {
  ThreadState& t = current_thread();
  ++t.in_tm_runtime;
  refresh_slow(t);
  fn(args...);
  --t.in_tm_runtime;
  refresh_slow(t);
}
// (Not next_itm: registering runs no transaction, so it need not turn the hot path off.)
MEMPROF_TM(void, memprof_itm_register(void* table, size_t size), "_ITM_registerTMCloneTable") {
  static Register next = nullptr;
  if (auto fn = next_definition(next, "_ITM_registerTMCloneTable")) in_tm_runtime(fn, table, size);
}
MEMPROF_TM(void, memprof_itm_deregister(void* table), "_ITM_deregisterTMCloneTable") {
  static Deregister next = nullptr;
  if (auto fn = next_definition(next, "_ITM_deregisterTMCloneTable")) in_tm_runtime(fn, table);
}

// After the outermost commit, the blocks the transaction allocated are the
// program's for good: their later frees are not transactional.
MEMPROF_TM(void, memprof_itm_commit(), "_ITM_commitTransaction") {
  MEMPROF_TM_NEXT(Commit, "_ITM_commitTransaction");
  fn();
  ThreadState& t = self;
  if (t.tx_set.count && tm_state() == 0) tx_set_clear(t);
}
MEMPROF_TM(void, memprof_itm_commit_eh(void* exception), "_ITM_commitTransactionEH") {
  MEMPROF_TM_NEXT(CommitEH, "_ITM_commitTransactionEH");
  fn(exception);
  ThreadState& t = self;
  if (t.tx_set.count && tm_state() == 0) tx_set_clear(t);
}
