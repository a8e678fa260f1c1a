// shadow.h — the requested size of every live block, kept outside the block
// (a header would change the allocator's size classes). One byte per 8-byte
// granule of address space, in lazily mapped 128 MiB leaves per GiB of heap:
//   0          unknown (never seen, or already freed)
//   1..244     requested size + 1 (sizes 0..243)
//   245..253   size 0..8 of a block whose usable size is "odd" (see below)
//   254        odd block of 9..255 bytes: its size is in the next granule's byte
//   255        larger: the next 8 granules' bytes hold the size, bit 63 = odd
// Those next granules lie inside the same block (9 bytes or more cannot leave
// room for another block at the next granule; a spill needs 244 or more), so
// no other entry lives there. A leaf ends in a pad, so a block at a leaf's end
// spills into the pad rather than into the next leaf.
// "Odd": the block's malloc_usable_size may differ from what the allocator
// gives a plain malloc of its size (usable.h), so it is asked again at free.
// Resident cost: at most 1/8 of the address span where blocks start; it is
// counted in memprof_self_kb. No lock, no malloc.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

namespace memprof::shadow {

constexpr unsigned kGranuleShift = 3;
constexpr unsigned kLeafShift = 30;                  // one leaf per GiB of addresses
constexpr size_t kLeaves = size_t(1) << (47 - kLeafShift);
constexpr size_t kLeafBytes = size_t(1) << (kLeafShift - kGranuleShift);
constexpr size_t kLeafPad = 4096;                    // spill bytes of the leaf's last blocks

constexpr uint8_t kInlineLimit = 244;                // sizes below this fit in the byte
constexpr uint8_t kOddTiny = 245;                    // 245 + size, for odd sizes 0..8
constexpr uint8_t kOddByte = 254;
constexpr uint8_t kSpilled = 255;
constexpr uint64_t kSpillOddBit = uint64_t(1) << 63;

extern std::atomic<uint8_t*> leaves[kLeaves];

uint8_t* install_leaf(size_t index);

inline uint8_t* slot(uintptr_t address, bool create) {
  size_t index = address >> kLeafShift;
  if (__builtin_expect(index >= kLeaves, 0)) return nullptr;
  uint8_t* leaf = leaves[index].load(std::memory_order_acquire);
  if (__builtin_expect(leaf == nullptr, 0)) {
    if (!create) return nullptr;
    leaf = install_leaf(index);
    if (!leaf) return nullptr;
  }
  return leaf + ((address & ((uintptr_t(1) << kLeafShift) - 1)) >> kGranuleShift);
}

// Remembers that `p` holds `size` requested bytes (and whether its usable size
// is odd); false if it cannot (misaligned or impossible address).
inline bool remember(const void* p, size_t size, bool odd = false) {
  auto a = reinterpret_cast<uintptr_t>(p);
  if (__builtin_expect(a & ((1u << kGranuleShift) - 1), 0)) return false;
  uint8_t* s = slot(a, true);
  if (__builtin_expect(s == nullptr, 0)) return false;
  if (__builtin_expect(!odd && size < kInlineLimit, 1)) {
    __atomic_store_n(s, uint8_t(size + 1), __ATOMIC_RELAXED);
  } else if (odd && size <= 8) {
    __atomic_store_n(s, uint8_t(kOddTiny + size), __ATOMIC_RELAXED);
  } else if (odd && size <= 255) {
    __atomic_store_n(s + 1, uint8_t(size), __ATOMIC_RELAXED);
    __atomic_store_n(s, kOddByte, __ATOMIC_RELAXED);
  } else {
    uint64_t v = uint64_t(size) | (odd ? kSpillOddBit : 0);
    __builtin_memcpy(s + 1, &v, sizeof v);
    __atomic_store_n(s, kSpilled, __ATOMIC_RELAXED);
  }
  return true;
}

// Returns the size remembered for `p` (and its odd mark) and forgets it; false
// if unknown. The bytes beyond the entry are cleared too: stale ones could be
// read as the entry of a block memprof never saw.
inline bool forget(const void* p, size_t* size, bool* odd) {
  auto a = reinterpret_cast<uintptr_t>(p);
  if (__builtin_expect(a & ((1u << kGranuleShift) - 1), 0)) return false;
  uint8_t* s = slot(a, false);
  if (__builtin_expect(s == nullptr, 0)) return false;
  uint8_t v = __atomic_load_n(s, __ATOMIC_RELAXED);
  if (__builtin_expect(v == 0, 0)) return false;
  if (__builtin_expect(v <= kInlineLimit, 1)) {
    *size = size_t(v - 1);
    *odd = false;
  } else if (v == kSpilled) {
    uint64_t spilled;
    __builtin_memcpy(&spilled, s + 1, sizeof spilled);
    *size = size_t(spilled & ~kSpillOddBit);
    *odd = (spilled & kSpillOddBit) != 0;
    const uint64_t zero = 0;
    __builtin_memcpy(s + 1, &zero, sizeof zero);
  } else if (v == kOddByte) {
    *size = __atomic_load_n(s + 1, __ATOMIC_RELAXED);
    *odd = true;
    __atomic_store_n(s + 1, uint8_t(0), __ATOMIC_RELAXED);
  } else {
    *size = size_t(v - kOddTiny);
    *odd = true;
  }
  __atomic_store_n(s, uint8_t(0), __ATOMIC_RELAXED);
  return true;
}

// Puts back an entry taken by forget() (a realloc that failed).
inline void restore(const void* p, size_t size, bool odd) { remember(p, size, odd); }

// Resident bytes of all leaves (mincore), for memprof_self_kb.
uint64_t resident_bytes();

}  // namespace memprof::shadow
