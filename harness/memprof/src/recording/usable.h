// usable.h — each block's malloc_usable_size at a fraction of its cost. glibc's
// is read from the chunk header. Other allocators give a plain malloc(n) of a
// small n the usable size of n's size class, always the same, and their classes
// are multiples of 8: it is asked once per 8 bytes of n and remembered (the
// memo), and asked again to check about one block in 64 of each thread
// (due_for_check).
// Blocks the memo cannot vouch for (aligned, resized, a size that did not match)
// are marked odd in the shadow and asked again when freed.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "base/options.h"
#include "os/real.h"

namespace memprof::usable {

constexpr size_t kMemoMax = 4096;    // larger blocks ask the allocator (rarer, and costlier anyway)

// Usable size by requested size, rounded up to 8 (n = 0 on its own):
// `at_alloc` serves new blocks and is emptied if the memo is ever found wrong;
// `at_free` only ever gains entries, so a block counted with a memo entry is
// uncounted with the same one. Side by side: one cache line serves both.
struct MemoEntry {
  uint16_t at_alloc;
  uint16_t at_free;
};
constexpr size_t kMemoEntries = (kMemoMax + 7) / 8 + 1;
extern MemoEntry memo[kMemoEntries];
inline size_t memo_index(size_t n) { return (n + 7) >> 3; }  // n <= kMemoMax
inline uint16_t* at_alloc(size_t n) { return &memo[memo_index(n)].at_alloc; }
inline uint16_t* at_free(size_t n) { return &memo[memo_index(n)].at_free; }

// glibc's malloc_usable_size also reads the next chunk's header (another cache
// line); a live chunk's own header is enough: its size less the header words.
inline size_t glibc_usable_size(void* p) {
  size_t header = static_cast<size_t*>(p)[-1];
  size_t chunk = header & ~size_t(7);
  return (header & 2) ? chunk - 16 : chunk - 8;  // 2: IS_MMAPPED
}

// The allocator's answer, and whether it is odd (not the memo's for `n`).
size_t ask(void* p, size_t n, bool* odd);
// A plain allocation whose memo entry is missing or due for its check.
size_t fill_or_check(void* p, size_t n, bool* odd);

// Whether this new block is one the memo is checked on: each thread counts
// its memo-served blocks down; at 0 the block is checked and the next check is
// set 32 to 95 blocks away, picked by the block's address, so that a program
// repeating a cycle of sizes still has every size checked.
inline bool due_for_check(uint8_t& countdown, const void* p) {
  if (__builtin_expect(--countdown != 0, 1)) return false;
  countdown = uint8_t(32 + ((reinterpret_cast<uintptr_t>(p) >> 4) & 63));
  return true;
}

// The memo missed, is due for its check, or cannot serve this block.
inline size_t of_new_block_rare(void* p, size_t n, bool plain, bool* odd) {
  if (plain && n <= kMemoMax) return fill_or_check(p, n, odd);
  return ask(p, n, odd);
}

// A new block of `n` requested bytes; `plain`: it came from malloc, calloc or a
// non-aligned operator new with exactly `n`.
// `countdown`: the thread's, for due_for_check.
inline size_t of_new_block(void* p, size_t n, bool plain, bool* odd, uint8_t& countdown) {
  *odd = false;
  if (!options.track_usable) return 0;
  if (real.glibc_layout) return glibc_usable_size(p);
  if (__builtin_expect(plain && n <= kMemoMax, 1)) {
    uint32_t known = __atomic_load_n(at_alloc(n), __ATOMIC_ACQUIRE);
    if (__builtin_expect(known != 0 && !due_for_check(countdown, p), 1)) return known;
    return fill_or_check(p, n, odd);
  }
  return ask(p, n, odd);
}

// A block about to be freed, as remembered in the shadow.
inline size_t of_freed_block(void* p, size_t n, bool odd) {
  if (!options.track_usable) return 0;
  if (real.glibc_layout) return glibc_usable_size(p);
  if (__builtin_expect(!odd && n <= kMemoMax, 1)) return __atomic_load_n(at_free(n), __ATOMIC_ACQUIRE);
  return real.malloc_usable_size(p);
}

// Plain blocks whose usable size differed from the memo's (0 for the five allocators).
uint64_t mismatches();

}  // namespace memprof::usable
