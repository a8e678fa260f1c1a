// page_set.h — a set of 4 KiB pages of user space whose bookkeeping does not
// grow with the ranges added: one slot per GiB of addresses, either empty,
// marked whole (one word: a GiB entirely in the set, as a reservation of
// scudo's 180 GiB makes 180 of them) or pointing to a leaf of one bit per page
// (32 KiB, mapped on first use through the raw system call). A whole GiB
// partly removed becomes a leaf of ones first; a whole GiB removed empties its
// slot. Lock-free (compare-and-swap on slots, fetch_or and fetch_and on leaf
// words), no malloc: safe inside the allocator's kernel calls. Two sets are
// kept by os_pages.cpp: the allocator's mapped pages, and those of them opened
// (given access) since they were mapped.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

namespace memprof::page_set {

constexpr unsigned kPageShift = 12;
constexpr unsigned kSlotShift = 30;  // one slot per GiB of addresses
constexpr size_t kSlots = size_t(1) << (47 - kSlotShift);
constexpr size_t kPagesPerSlot = size_t(1) << (kSlotShift - kPageShift);
constexpr size_t kWordsPerLeaf = kPagesPerSlot / 64;

struct PageSet {
  std::atomic<uint64_t*> slots[kSlots];
  // One bit per slot ever filled: walks read only those slots (reading the
  // whole table would map all of its pages).
  std::atomic<uint64_t> filled[kSlots / 64];
};

// The pages of [address, address + n) (widened to whole pages) join the set.
// With `within`, only in the GiBs where `within` holds something.
void add(PageSet& set, uintptr_t address, size_t n, const PageSet* within = nullptr);
// The pages of [address, address + n) leave the set; true when any was in it.
bool remove(PageSet& set, uintptr_t address, size_t n);

// One GiB's slot as read by a walk: whole, a leaf, or empty (both null).
struct Slot {
  bool whole;
  const uint64_t* leaf;
  // The word of pages [64w, 64w + 64) of this GiB.
  uint64_t word(size_t w) const {
    if (whole) return ~uint64_t(0);
    return leaf ? __atomic_load_n(&leaf[w], __ATOMIC_RELAXED) : 0;
  }
  bool empty() const { return !whole && !leaf; }
};
Slot slot(const PageSet& set, size_t index);

// Calls visit(index) for every slot ever filled, in address order.
template <typename Visit>
void for_each_filled(const PageSet& set, Visit visit) {
  for (size_t w = 0; w < kSlots / 64; ++w) {
    uint64_t bits = set.filled[w].load(std::memory_order_acquire);
    while (bits) {
      visit(w * 64 + size_t(__builtin_ctzll(bits)));
      bits &= bits - 1;
    }
  }
}

// The set's own resident bytes (its table and its leaves), for memprof_self_kb.
uint64_t resident_bytes(const PageSet& set);

}  // namespace memprof::page_set
