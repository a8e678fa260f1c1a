// shadow.h — the requested size of every live block, kept outside the block
// (a header would change the allocator's size classes). One byte per 8-byte
// granule of address space, in lazily mapped 128 MiB leaves per GiB of heap:
//   0        unknown (never seen, or already freed)
//   1..254   requested size + 1 (sizes 0..253)
//   255      larger: the exact size is in the next 8 granules' bytes, which
//            lie inside the same block (it spans at least 32 granules).
// Resident cost: at most 1/8 of the address span where blocks start; it is
// counted in memprof_self_kb. Lookups are two loads; no lock, no malloc.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

namespace memprof::shadow {

constexpr unsigned kGranuleShift = 3;
constexpr unsigned kLeafShift = 30;                  // one leaf per GiB of addresses
constexpr size_t kLeaves = size_t(1) << (47 - kLeafShift);
constexpr size_t kLeafBytes = size_t(1) << (kLeafShift - kGranuleShift);
constexpr uint8_t kSpilled = 255;
constexpr size_t kInline = 254;                      // sizes below this fit in the byte

extern std::atomic<uint8_t*> leaves[kLeaves];

uint8_t* install_leaf(size_t index);

inline uint8_t* slot(uintptr_t address, bool create) {
  size_t index = address >> kLeafShift;
  if (index >= kLeaves) return nullptr;
  uint8_t* leaf = leaves[index].load(std::memory_order_acquire);
  if (__builtin_expect(leaf == nullptr, 0)) {
    if (!create) return nullptr;
    leaf = install_leaf(index);
    if (!leaf) return nullptr;
  }
  return leaf + ((address & ((uintptr_t(1) << kLeafShift) - 1)) >> kGranuleShift);
}

void store_spilled(uintptr_t address, size_t size);
size_t load_spilled(uintptr_t address);

// Remembers that `p` holds `size` requested bytes; false if it cannot.
// True when the 8 spill bytes after `s` lie in the same leaf (almost always).
inline bool spill_in_leaf(uintptr_t address) {
  return ((address >> kGranuleShift) & (kLeafBytes - 1)) < kLeafBytes - 9;
}

inline bool remember(const void* p, size_t size) {
  auto a = reinterpret_cast<uintptr_t>(p);
  if (a & ((1u << kGranuleShift) - 1)) return false;
  uint8_t* s = slot(a, true);
  if (!s) return false;
  if (__builtin_expect(size < kInline, 1)) {
    __atomic_store_n(s, uint8_t(size + 1), __ATOMIC_RELAXED);
  } else {
    if (__builtin_expect(spill_in_leaf(a), 1)) {
      uint64_t v = size;
      __builtin_memcpy(s + 1, &v, sizeof v);
    } else {
      store_spilled(a, size);
    }
    __atomic_store_n(s, kSpilled, __ATOMIC_RELAXED);
  }
  return true;
}

// Returns the size remembered for `p` and forgets it; false if unknown.
inline bool forget(const void* p, size_t* size) {
  auto a = reinterpret_cast<uintptr_t>(p);
  if (a & ((1u << kGranuleShift) - 1)) return false;
  uint8_t* s = slot(a, false);
  if (!s) return false;
  uint8_t v = __atomic_load_n(s, __ATOMIC_RELAXED);
  if (v == 0) return false;
  if (__builtin_expect(v != kSpilled, 1)) {
    *size = size_t(v - 1);
  } else if (__builtin_expect(spill_in_leaf(a), 1)) {
    uint64_t spilled;
    __builtin_memcpy(&spilled, s + 1, sizeof spilled);
    *size = size_t(spilled);
    // Stale spill bytes could be read as the entry of a block memprof never saw.
    const uint64_t zero = 0;
    __builtin_memcpy(s + 1, &zero, sizeof zero);
  } else {
    *size = load_spilled(a);
    store_spilled(a, 0);
  }
  __atomic_store_n(s, uint8_t(0), __ATOMIC_RELAXED);
  return true;
}

// Puts back an entry taken by forget() (a realloc that failed).
inline void restore(const void* p, size_t size) { remember(p, size); }

// Resident bytes of all leaves (mincore), for memprof_self_kb.
uint64_t resident_bytes();

}  // namespace memprof::shadow
