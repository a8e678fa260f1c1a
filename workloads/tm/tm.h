// tm.h — the transactional layer every TM workload is written against. One
// source, three builds: ALLOCSTAMP_TM_STM (GCC's __transaction_atomic on
// libitm, method chosen at run time), ALLOCSTAMP_TM_LOCK (one global mutex),
// ALLOCSTAMP_TM_SEQ (no synchronisation, one thread). ALLOCSTAMP_TM_BUILD names
// the build (stm, lock, seq): a source compiled for each build puts its code in
// a namespace of that name. Each transaction counts
// its attempts (a transaction_pure call at the top of the body re-runs on
// abort) and its commits; in the lock and seq builds it also marks itself for
// memprof (memprof_tx_begin/end), so allocations in it count as `tx`.
//
//   TM_BEGIN
//     ... shared reads and writes, new/delete, malloc/free ...
//   TM_END
#pragma once
#include <cstdint>
#include <mutex>

#include <memprof/memprof.h>

namespace allocstamp::tm {

struct Counts {
  uint64_t attempts = 0;
  uint64_t commits = 0;
};

Counts& thread_counts();   // this thread's, in thread-local storage
std::mutex& global_lock(); // the lock build's single lock

// static: each build's translation unit has its own copy (the attribute differs).
#if defined(ALLOCSTAMP_TM_STM)
__attribute__((transaction_pure)) static inline void note_attempt() { ++thread_counts().attempts; }
#else
static inline void note_attempt() { ++thread_counts().attempts; }
#endif
static inline void note_commit() { ++thread_counts().commits; }

// The lock and seq builds tell memprof where a transaction runs (libitm tells
// it in the stm build), so every build reports the tx region; the guard's
// destructor ends it however the block is left.
struct MarkedTransaction {
  MarkedTransaction() { ::memprof::tx_begin(); }
  ~MarkedTransaction() { ::memprof::tx_end(); }
  MarkedTransaction(const MarkedTransaction&) = delete;
  MarkedTransaction& operator=(const MarkedTransaction&) = delete;
};

}  // namespace allocstamp::tm

#if defined(ALLOCSTAMP_TM_STM)
#define TM_BEGIN __transaction_atomic { ::allocstamp::tm::note_attempt();
#define TM_END } ::allocstamp::tm::note_commit();
#define TM_SAFE __attribute__((transaction_safe))
#define TM_PURE __attribute__((transaction_pure))
#define ALLOCSTAMP_TM_BUILD stm
#elif defined(ALLOCSTAMP_TM_LOCK)
#define TM_BEGIN                                                                   \
  {                                                                                \
    std::lock_guard<std::mutex> tm_lock_guard(::allocstamp::tm::global_lock());    \
    ::allocstamp::tm::MarkedTransaction tm_marked_transaction;                      \
    ::allocstamp::tm::note_attempt();
#define TM_END } ::allocstamp::tm::note_commit();
#define TM_SAFE
#define TM_PURE
#define ALLOCSTAMP_TM_BUILD lock
#elif defined(ALLOCSTAMP_TM_SEQ)
#define TM_BEGIN                                              \
  {                                                           \
    ::allocstamp::tm::MarkedTransaction tm_marked_transaction; \
    ::allocstamp::tm::note_attempt();
#define TM_END } ::allocstamp::tm::note_commit();
#define TM_SAFE
#define TM_PURE
#define ALLOCSTAMP_TM_BUILD seq
#else
#error "define ALLOCSTAMP_TM_STM, ALLOCSTAMP_TM_LOCK or ALLOCSTAMP_TM_SEQ before including tm.h"
#endif
