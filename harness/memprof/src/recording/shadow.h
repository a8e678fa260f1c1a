// shadow.h — the requested size of every live block, kept outside the block
// (a header would change the allocator's size classes). A 16-bit entry per
// place a block can start, in lazily mapped leaves, one per GiB of heap:
//   0            unknown (never seen, or already freed)
//   bit 15       odd: the block's malloc_usable_size may differ from what the
//                allocator gives a plain malloc of its size (usable.h), so it
//                is asked again at free
//   1..0x7FFE    (bits 0..14) requested size + 1: sizes 0..32765
//   0x7FFF       spilled: the size is in the 8 bytes after the entry
// Blocks start 16-byte aligned, except in 8-byte size classes (and classes
// such as 24 or 40 bytes): a leaf keeps the 16-byte-aligned starts in its first
// half and the starts 8 bytes past one in its second, so no two blocks share an
// entry and no entry has to be written byte by byte. A spill takes the entries
// of the block's next 64 bytes, inside a block of 32766 bytes or more; a pad
// after each half takes the spills of blocks at a half's end.
// Resident cost: 1/8 of the address span where blocks start (the second half
// is touched only where blocks start 8 bytes past 16); it is counted in
// memprof_self_kb. No lock, no malloc.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

namespace memprof::shadow {

constexpr unsigned kLeafShift = 30;                   // one leaf per GiB of addresses
constexpr size_t kLeaves = size_t(1) << (47 - kLeafShift);
constexpr unsigned kGranuleShift = 3;                 // blocks start 8-byte aligned
constexpr size_t kHalfBytes = size_t(1) << (kLeafShift - 4 + 1);  // 2-byte entries per 16 bytes
constexpr unsigned kSecondHalfShift = kLeafShift - 4 + 2;         // second half at 2 * kHalfBytes
constexpr size_t kPadBytes = 4096;  // after each half: spills of the blocks at its end
constexpr size_t kLeafBytes = (size_t(1) << kSecondHalfShift) + kHalfBytes + kPadBytes;

constexpr uint16_t kOddBit = 0x8000;
constexpr uint16_t kSpilled = 0x7FFF;
constexpr size_t kInlineMax = kSpilled - 2;  // the largest size kept in the entry itself

extern std::atomic<uint8_t*> leaves[kLeaves];

uint8_t* install_leaf(size_t index);

// The entry of a block at `address`. Null for an address beyond user space or
// not 8-byte aligned (no allocator returns one), or in a GiB without a leaf yet
// when !create.
// One test for both: rotated right by 3, an aligned address is its 8-byte
// granule number, below 2^44; a misaligned one has a low bit on top, a larger
// one a granule number of 2^44 or more. The granule number's low bit picks the
// half (8 bytes past 16 or not), the rest the entry.
inline uint16_t* slot(uintptr_t address, bool create) {
  uintptr_t granule = (address >> kGranuleShift) | (address << (64 - kGranuleShift));
  if (__builtin_expect(granule >= (uintptr_t(1) << (47 - kGranuleShift)), 0)) return nullptr;
  size_t index = granule >> (kLeafShift - kGranuleShift);
  uint8_t* leaf = leaves[index].load(std::memory_order_acquire);
  if (__builtin_expect(leaf == nullptr, 0)) {
    if (!create) return nullptr;
    leaf = install_leaf(index);
    if (!leaf) return nullptr;
  }
  uintptr_t in_leaf = granule & ((uintptr_t(1) << (kLeafShift - kGranuleShift)) - 1);
  uintptr_t offset = (in_leaf & ~uintptr_t(1)) | ((in_leaf & 1) << kSecondHalfShift);
  return reinterpret_cast<uint16_t*>(leaf + offset);
}

// Blocks of more than kInlineMax bytes (out of line: rare, and costly anyway).
void remember_spilled(uint16_t* s, size_t size, bool odd);

// remember() of a size the caller knows is at most kInlineMax: one store.
// `create`: map the leaf if this is the first block in its GiB (else: false).
inline bool remember_inline(const void* p, size_t size, bool odd, bool create = false) {
  uint16_t* s = slot(reinterpret_cast<uintptr_t>(p), create);
  if (__builtin_expect(s == nullptr, 0)) return false;
  __atomic_store_n(s, uint16_t((size + 1) | (odd ? kOddBit : 0)), __ATOMIC_RELAXED);
  return true;
}

// Remembers that `p` holds `size` requested bytes (and whether its usable size
// is odd); false if it cannot (misaligned or impossible address).
inline bool remember(const void* p, size_t size, bool odd, bool create = true) {
  if (__builtin_expect(size <= kInlineMax, 1)) return remember_inline(p, size, odd, create);
  uint16_t* s = slot(reinterpret_cast<uintptr_t>(p), create);
  if (!s) return false;
  remember_spilled(s, size, odd);
  return true;
}

// The common free in one test: if `p` is known, not odd and not spilled, sets
// its size, forgets it and returns true; otherwise changes nothing.
inline bool forget_plain(const void* p, size_t* size) {
  uint16_t* s = slot(reinterpret_cast<uintptr_t>(p), false);
  if (__builtin_expect(s == nullptr, 0)) return false;
  uint16_t entry = __atomic_load_n(s, __ATOMIC_RELAXED);
  // 0 wraps to 0xFFFF; odd entries and kSpilled land at kSpilled - 1 or above.
  if (__builtin_expect(uint16_t(entry - 1) >= kSpilled - 1, 0)) return false;
  *size = size_t(entry) - 1;
  __atomic_store_n(s, uint16_t(0), __ATOMIC_RELAXED);
  return true;
}

// forget() for odd or spilled entries, and unknown blocks.
bool forget_rare(const void* p, size_t* size, bool* odd);

// Returns the size remembered for `p` (and its odd mark) and forgets it; false
// if unknown. A spill's bytes are cleared too: stale ones could be read as the
// entries of blocks memprof never saw.
inline bool forget(const void* p, size_t* size, bool* odd) {
  *odd = false;
  return forget_plain(p, size) || forget_rare(p, size, odd);
}

// Puts back an entry taken by forget() (a realloc that failed).
inline void restore(const void* p, size_t size, bool odd) { remember(p, size, odd); }

// Resident bytes of all leaves (mincore), for memprof_self_kb.
uint64_t resident_bytes();

}  // namespace memprof::shadow
