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

// Null for an address beyond user space or not 8-byte aligned (no allocator
// returns one; a granule can only hold one block's entry).
// One test for both: rotated right by 3, an aligned address is its granule
// number, below 2^44; a misaligned one has a low bit on top, a larger one a
// granule number of 2^44 or more.
inline uint8_t* slot(uintptr_t address, bool create) {
  uintptr_t granule = (address >> kGranuleShift) | (address << (64 - kGranuleShift));
  if (__builtin_expect(granule >= (uintptr_t(1) << (47 - kGranuleShift)), 0)) return nullptr;
  size_t index = granule >> (kLeafShift - kGranuleShift);
  uint8_t* leaf = leaves[index].load(std::memory_order_acquire);
  if (__builtin_expect(leaf == nullptr, 0)) {
    if (!create) return nullptr;
    leaf = install_leaf(index);
    if (!leaf) return nullptr;
  }
  return leaf + (granule & (kLeafBytes - 1));
}

// `c ? a : b` without a branch: the compiler would turn a plain ?: back into
// one, and a branch on the size is what these functions must not have.
inline uint64_t select(bool c, uint64_t a, uint64_t b) {
#if defined(__x86_64__)
  __asm__("test %b[c], %b[c]\n\tcmovne %[a], %[b]" : [b] "+r"(b) : [a] "r"(a), [c] "q"(c) : "cc");
  return b;
#else
  uint64_t mask = -uint64_t(c);
  __asm__("" : "+r"(mask));  // opaque: no longer known to be 0 or all ones
  return b ^ ((a ^ b) & mask);
#endif
}
template <typename T>
inline T* select(bool c, T* a, T* b) {
  return reinterpret_cast<T*>(select(c, reinterpret_cast<uint64_t>(a), reinterpret_cast<uint64_t>(b)));
}

void remember_odd(uint8_t* s, size_t size);

// Remembers that `p` holds `size` requested bytes (and whether its usable size
// is odd); false if it cannot (misaligned or impossible address).
// No branch on the size: programs mix sizes, and a mispredicted branch on every
// call would cost more than the rest of the entry. The spill word goes to the
// block's next granules if the size spills, else to the caller's `scratch`.
// `create`: map the leaf if this is the first block in its GiB (else: false).
inline bool remember(const void* p, size_t size, bool odd, uint64_t* scratch, bool create = true) {
  uint8_t* s = slot(reinterpret_cast<uintptr_t>(p), create);
  if (__builtin_expect(s == nullptr, 0)) return false;
  if (__builtin_expect(odd, 0)) {
    remember_odd(s, size);
    return true;
  }
  // spills = size >= kInlineLimit; code = spills ? kSpilled : size + 1;
  // word = spills ? s + 1 : scratch — one comparison, two conditional moves.
  uint64_t code = size + 1;
  void* word = scratch;
#if defined(__x86_64__)
  __asm__("cmpq %[limit], %[size]\n\tcmovae %[spilled], %[code]\n\tcmovae %[next], %[word]"
          : [code] "+r"(code), [word] "+r"(word)
          : [size] "r"(size), [limit] "i"(int(kInlineLimit)), [spilled] "r"(uint64_t(kSpilled)), [next] "r"(s + 1)
          : "cc");
#else
  bool spills = size >= kInlineLimit;
  code = select(spills, kSpilled, code);
  word = select<void>(spills, s + 1, word);
#endif
  const uint64_t v = size;
  __builtin_memcpy(word, &v, sizeof v);
  __atomic_store_n(s, uint8_t(code), __ATOMIC_RELAXED);
  return true;
}

// Returns the size remembered for `p` (and its odd mark) and forgets it; false
// if unknown. The bytes beyond the entry are cleared too: stale ones could be
// read as the entry of a block memprof never saw. Branch-free like remember().
inline bool forget(const void* p, size_t* size, bool* odd, uint64_t* scratch) {
  uint8_t* s = slot(reinterpret_cast<uintptr_t>(p), false);
  if (__builtin_expect(s == nullptr, 0)) return false;
  uint8_t code = __atomic_load_n(s, __ATOMIC_RELAXED);
  if (__builtin_expect(code == 0, 0)) return false;
  if (__builtin_expect(uint8_t(code - kOddTiny) <= kOddByte - kOddTiny, 0)) {  // odd, not spilled
    *odd = true;
    if (code == kOddByte) {
      *size = __atomic_load_n(s + 1, __ATOMIC_RELAXED);
      __atomic_store_n(s + 1, uint8_t(0), __ATOMIC_RELAXED);
    } else {
      *size = size_t(code - kOddTiny);
    }
    __atomic_store_n(s, uint8_t(0), __ATOMIC_RELAXED);
    return true;
  }
  bool spilled = code == kSpilled;
  void* word = select<void>(spilled, s + 1, scratch);
  uint64_t v;
  __builtin_memcpy(&v, word, sizeof v);
  const uint64_t zero = 0;
  __builtin_memcpy(word, &zero, sizeof zero);
  *size = size_t(select(spilled, v & ~kSpillOddBit, uint64_t(code) - 1));
  *odd = spilled & bool(v >> 63);
  __atomic_store_n(s, uint8_t(0), __ATOMIC_RELAXED);
  return true;
}

// Puts back an entry taken by forget() (a realloc that failed).
inline void restore(const void* p, size_t size, bool odd) {
  uint64_t scratch;
  remember(p, size, odd, &scratch);
}

// Resident bytes of all leaves (mincore), for memprof_self_kb.
uint64_t resident_bytes();

}  // namespace memprof::shadow
