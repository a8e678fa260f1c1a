// os_pages.cpp — the allocator's page bitmap (os_pages.h): leaf installation
// (the raw mmap + compare-and-swap, the loser unmaps), marking a range word by
// word, and the measurement: marked pages counted, their residency asked in
// runs of consecutive pages, a static buffer's worth per mincore call.
#include "os/os_pages.h"

#include <errno.h>
#include <sys/mman.h>

#include <atomic>

#include "os/procfs.h"
#include "os/raw_syscalls.h"

namespace memprof::os_pages {

namespace {

constexpr size_t kPage = size_t(1) << kPageShift;
constexpr unsigned kPagesPerLeafShift = kLeafShift - kPageShift;
constexpr uintptr_t kPagesInUserSpace = uintptr_t(1) << (47 - kPageShift);
constexpr size_t kLeafBytes = kWordsPerLeaf * sizeof(uint64_t);

constinit std::atomic<uint64_t*> leaves[kLeaves];
// One bit per leaf installed: the measurement reads only those entries of
// `leaves` (reading the whole table would map all of its pages).
constinit std::atomic<uint64_t> installed[kLeaves / 64];

uint64_t* leaf_at(size_t index, bool create) {
  uint64_t* leaf = leaves[index].load(std::memory_order_acquire);
  if (leaf || !create) return leaf;
  void* m = raw::mmap(nullptr, kLeafBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  uint64_t* fresh = static_cast<uint64_t*>(m);
  if (!leaves[index].compare_exchange_strong(leaf, fresh, std::memory_order_acq_rel)) {
    raw::munmap(m, kLeafBytes);
    return leaf;
  }
  installed[index / 64].fetch_or(uint64_t(1) << (index % 64), std::memory_order_release);
  return fresh;
}

// Calls visit(index, leaf) for every leaf installed, in address order.
template <typename Visit>
void for_each_leaf(Visit visit) {
  for (size_t w = 0; w < kLeaves / 64; ++w) {
    uint64_t bits = installed[w].load(std::memory_order_acquire);
    while (bits) {
      size_t index = w * 64 + size_t(__builtin_ctzll(bits));
      bits &= bits - 1;
      visit(index, leaves[index].load(std::memory_order_acquire));
    }
  }
}

// Calls change(word, mask) for the bits of pages [first, last), one word at a
// time; leaves missing are created, or skipped when !create.
template <typename Change>
void for_each_word(uintptr_t address, size_t n, bool create, Change change) {
  constexpr uintptr_t kUserSpaceEnd = kPagesInUserSpace << kPageShift;
  if (address >= kUserSpaceEnd) return;
  uintptr_t end = n > kUserSpaceEnd - address ? kUserSpaceEnd : address + n;
  uintptr_t first = address >> kPageShift;
  uintptr_t last = (end + kPage - 1) >> kPageShift;
  for (uintptr_t page = first; page < last;) {
    size_t index = page >> kPagesPerLeafShift;
    uintptr_t leaf_end = uintptr_t(index + 1) << kPagesPerLeafShift;
    if (leaf_end > last) leaf_end = last;
    uint64_t* leaf = leaf_at(index, create);
    if (!leaf) {
      page = leaf_end;
      continue;
    }
    while (page < leaf_end) {
      uintptr_t word_end = (page | 63) + 1;
      if (word_end > leaf_end) word_end = leaf_end;
      unsigned count = unsigned(word_end - page);
      uint64_t mask = (count == 64 ? ~uint64_t(0) : (uint64_t(1) << count) - 1) << (page & 63);
      change(&leaf[(page >> 6) & (kWordsPerLeaf - 1)], mask);
      page = word_end;
    }
  }
}

// The residency buffer: the end of the phase and the exit take turns.
constexpr size_t kChunkPages = 16384;  // 64 MiB per mincore call
unsigned char residency[kChunkPages];
constinit std::atomic<bool> residency_busy{false};

// Resident pages of [first, last) (page numbers), all marked as mapped. A
// chunk mincore refuses (a page unmapped behind memprof's back, e.g. by a raw
// system call) is asked page by page.
uint64_t resident_pages(uintptr_t first, uintptr_t last) {
  uint64_t resident = 0;
  for (uintptr_t page = first; page < last;) {
    size_t pages = last - page < kChunkPages ? size_t(last - page) : kChunkPages;
    void* at = reinterpret_cast<void*>(page << kPageShift);
    if (mincore(at, pages * kPage, residency) == 0) {
      for (size_t i = 0; i < pages; ++i) resident += residency[i] & 1;
    } else {
      for (size_t i = 0; i < pages; ++i)
        if (mincore(static_cast<char*>(at) + i * kPage, kPage, residency) == 0) resident += residency[0] & 1;
    }
    page += pages;
  }
  return resident;
}

}  // namespace

void mark_mapped(uintptr_t address, size_t n) {
  for_each_word(address, n, true, [](uint64_t* word, uint64_t mask) {
    if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != mask) __atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
  });
}

bool mark_unmapped(uintptr_t address, size_t n) {
  uint64_t was = 0;
  for_each_word(address, n, false, [&was](uint64_t* word, uint64_t mask) {
    if (__atomic_load_n(word, __ATOMIC_RELAXED) & mask) was |= __atomic_fetch_and(word, ~mask, __ATOMIC_RELAXED) & mask;
  });
  return was != 0;
}

Figures measure() {
  int saved_errno = errno;
  while (residency_busy.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
  Figures f{true, 0, 0};
  uint64_t mapped_pages = 0, resident = 0;
  uintptr_t run_first = 0, run_last = 0;  // the run of marked pages being gathered
  for_each_leaf([&](size_t index, const uint64_t* leaf) {
    for (size_t w = 0; w < kWordsPerLeaf; ++w) {
      uint64_t bits = __atomic_load_n(&leaf[w], __ATOMIC_RELAXED);
      if (!bits) continue;
      mapped_pages += uint64_t(__builtin_popcountll(bits));
      uintptr_t base = (uintptr_t(index) << kPagesPerLeafShift) + w * 64;
      while (bits) {
        unsigned start = unsigned(__builtin_ctzll(bits));
        uint64_t from_start = bits >> start;
        unsigned length = from_start == ~uint64_t(0) ? 64 - start : unsigned(__builtin_ctzll(~from_start));
        if (base + start != run_last) {
          resident += resident_pages(run_first, run_last);
          run_first = base + start;
        }
        run_last = base + start + length;
        bits = start + length == 64 ? 0 : bits & (~uint64_t(0) << (start + length));
      }
    }
  });
  resident += resident_pages(run_first, run_last);
  residency_busy.store(false, std::memory_order_release);
  f.mapped_bytes = mapped_pages * kPage;
  f.resident_bytes = resident * kPage;
  errno = saved_errno;
  return f;
}

uint64_t resident_bytes() {
  uint64_t total = procfs::resident_bytes(leaves, sizeof leaves) + procfs::resident_bytes(installed, sizeof installed);
  for_each_leaf([&total](size_t, const uint64_t* leaf) { total += procfs::resident_bytes(leaf, kLeafBytes); });
  return total;
}

}  // namespace memprof::os_pages
