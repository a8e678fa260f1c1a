// saturating.h — sums that stop at their type's bound instead of wrapping.
// A sum of bytes has no bound of its own (one call may ask for 2^63 bytes),
// and counts summed over 2^20 threads could pass 2^64: such a figure stops at
// 2^64 - 1, which the record names (saturated_keys), never a small number that
// reads as true. No libc: used inside malloc.
#pragma once
#include <stdint.h>

#include <atomic>

namespace memprof::saturating {

inline uint64_t add(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

inline int64_t add(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? (b < 0 ? INT64_MIN : INT64_MAX) : sum;
}

// A counter only its own thread writes while others may read it: one store of
// the saturated sum, so a reader sees the old value or the new one.
inline void bump(uint64_t& counter, uint64_t v) {
  __atomic_store_n(&counter, add(__atomic_load_n(&counter, __ATOMIC_RELAXED), v), __ATOMIC_RELAXED);
}

// A sum several threads add to.
inline void add_atomic(uint64_t* sum, uint64_t v) {
  uint64_t old = __atomic_load_n(sum, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(sum, &old, add(old, v), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

template <typename T>
void add_atomic(std::atomic<T>& sum, T v) {
  T old = sum.load(std::memory_order_relaxed);
  while (!sum.compare_exchange_weak(old, add(old, v), std::memory_order_relaxed)) {
  }
}

}  // namespace memprof::saturating
