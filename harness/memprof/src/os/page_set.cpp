// page_set.cpp — the page set of page_set.h: a range cut at GiB boundaries,
// each piece applied to its slot: a whole GiB as one mark (or its slot
// emptied), part of one as bits in the slot's leaf, the leaf installed by
// compare-and-swap (the loser unmaps its own). Leaves are never unmapped once
// installed, so a walk may read one while other threads change its bits.
#include "os/page_set.h"

#include <string.h>
#include <sys/mman.h>

#include "os/procfs.h"
#include "os/raw_syscalls.h"

namespace memprof::page_set {

namespace {

constexpr uintptr_t kUserSpaceEnd = uintptr_t(1) << 47;
constexpr size_t kLeafBytes = kWordsPerLeaf * sizeof(uint64_t);

// The mark of a GiB entirely in the set (never a leaf's address: leaves are page-aligned).
uint64_t* whole_mark() { return reinterpret_cast<uint64_t*>(uintptr_t(1)); }

void note_filled(PageSet& set, size_t index) {
  set.filled[index / 64].fetch_or(uint64_t(1) << (index % 64), std::memory_order_release);
}

enum class Install { kDone, kChanged, kNoMemory };

// Replaces the slot's `expected` (empty, or the whole mark) with a fresh
// leaf of zeros, or of ones (the whole GiB, about to lose some pages).
Install install_leaf(PageSet& set, size_t index, uint64_t* expected, bool ones) {
  void* m = raw::mmap(nullptr, kLeafBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return Install::kNoMemory;
  if (ones) memset(m, 0xff, kLeafBytes);
  uint64_t* fresh = static_cast<uint64_t*>(m);
  if (!set.slots[index].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    raw::munmap(m, kLeafBytes);
    return Install::kChanged;
  }
  note_filled(set, index);
  return Install::kDone;
}

// Calls change(word, mask) for the bits of pages [first, last) of one leaf.
template <typename Change>
void for_each_word(uint64_t* leaf, size_t first, size_t last, Change change) {
  for (size_t page = first; page < last;) {
    size_t word_end = (page | 63) + 1;
    if (word_end > last) word_end = last;
    unsigned count = unsigned(word_end - page);
    uint64_t mask = (count == 64 ? ~uint64_t(0) : (uint64_t(1) << count) - 1) << (page & 63);
    change(&leaf[page >> 6], mask);
    page = word_end;
  }
}

void set_bits(uint64_t* leaf, size_t first, size_t last) {
  for_each_word(leaf, first, last, [](uint64_t* word, uint64_t mask) {
    if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != mask) __atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
  });
}

bool clear_bits(uint64_t* leaf, size_t first, size_t last) {
  uint64_t was = 0;
  for_each_word(leaf, first, last, [&was](uint64_t* word, uint64_t mask) {
    if (__atomic_load_n(word, __ATOMIC_RELAXED) & mask) was |= __atomic_fetch_and(word, ~mask, __ATOMIC_RELAXED) & mask;
  });
  return was != 0;
}

// Pages [first, last) of slot `index` (counted from the GiB's start) join the set.
void add_in_slot(PageSet& set, size_t index, size_t first, size_t last) {
  bool whole = first == 0 && last == kPagesPerSlot;
  for (;;) {
    uint64_t* s = set.slots[index].load(std::memory_order_acquire);
    if (s == whole_mark()) return;
    if (s) return set_bits(s, first, last);
    if (whole) {
      if (set.slots[index].compare_exchange_strong(s, whole_mark(), std::memory_order_acq_rel)) {
        note_filled(set, index);
        return;
      }
      continue;
    }
    if (install_leaf(set, index, nullptr, false) == Install::kNoMemory) return;
  }
}

bool remove_in_slot(PageSet& set, size_t index, size_t first, size_t last) {
  bool whole = first == 0 && last == kPagesPerSlot;
  for (;;) {
    uint64_t* s = set.slots[index].load(std::memory_order_acquire);
    if (!s) return false;
    if (s != whole_mark()) return clear_bits(s, first, last);
    if (whole) {
      if (set.slots[index].compare_exchange_strong(s, nullptr, std::memory_order_acq_rel)) return true;
      continue;
    }
    // Without memory for the leaf the GiB stays whole: its pages over-counted, not lost.
    if (install_leaf(set, index, s, true) == Install::kNoMemory) return true;
  }
}

// Calls apply(index, first, last) for each GiB [address, address + n) touches,
// with the pages it covers there (widened to whole pages, cut at user space's end).
template <typename Apply>
void for_each_slot(uintptr_t address, size_t n, Apply apply) {
  if (address >= kUserSpaceEnd) return;
  uintptr_t end = n > kUserSpaceEnd - address ? kUserSpaceEnd : address + n;
  uintptr_t page = address >> kPageShift;
  uintptr_t last = (end + (uintptr_t(1) << kPageShift) - 1) >> kPageShift;
  while (page < last) {
    size_t index = page / kPagesPerSlot;
    uintptr_t slot_end = uintptr_t(index + 1) * kPagesPerSlot;
    if (slot_end > last) slot_end = last;
    apply(index, size_t(page % kPagesPerSlot), size_t(slot_end - index * kPagesPerSlot));
    page = slot_end;
  }
}

}  // namespace

void add(PageSet& set, uintptr_t address, size_t n, const PageSet* within) {
  for_each_slot(address, n, [&](size_t index, size_t first, size_t last) {
    if (within && !within->slots[index].load(std::memory_order_acquire)) return;
    add_in_slot(set, index, first, last);
  });
}

bool remove(PageSet& set, uintptr_t address, size_t n) {
  bool was = false;
  for_each_slot(address, n, [&](size_t index, size_t first, size_t last) {
    was = remove_in_slot(set, index, first, last) || was;
  });
  return was;
}

Slot slot(const PageSet& set, size_t index) {
  uint64_t* s = set.slots[index].load(std::memory_order_acquire);
  if (s == whole_mark()) return {true, nullptr};
  return {false, s};
}

uint64_t resident_bytes(const PageSet& set) {
  uint64_t total = procfs::resident_bytes(set.slots, sizeof set.slots) +
                   procfs::resident_bytes(set.filled, sizeof set.filled);
  for_each_filled(set, [&](size_t index) {
    if (const uint64_t* leaf = slot(set, index).leaf) total += procfs::resident_bytes(leaf, kLeafBytes);
  });
  return total;
}

}  // namespace memprof::page_set
