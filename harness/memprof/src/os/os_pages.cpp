// os_pages.cpp — the allocator's pages (os_pages.h): its two page sets, and
// the measurement: mapped pages counted slot by slot, the residency of those
// both mapped and opened asked in runs of consecutive pages, a static
// buffer's worth per mincore call.
#include "os/os_pages.h"

#include <errno.h>
#include <sys/mman.h>

#include <atomic>

#include "os/page_set.h"

namespace memprof::os_pages {

namespace {

using page_set::kPagesPerSlot;
using page_set::kPageShift;
using page_set::kWordsPerLeaf;
constexpr size_t kPage = size_t(1) << kPageShift;

constinit page_set::PageSet mapped{};
constinit page_set::PageSet opened{};

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

// Gathers runs of consecutive pages and asks mincore about each run once.
struct Runs {
  uintptr_t first = 0, last = 0;
  uint64_t resident = 0;
  void add(uintptr_t page, uintptr_t count) {
    if (page != last) {
      resident += resident_pages(first, last);
      first = page;
    }
    last = page + count;
  }
  uint64_t finish() {
    resident += resident_pages(first, last);
    first = last = 0;
    return resident;
  }
};

// The runs of set bits in `bits`, the word of pages from `base`.
void add_runs(Runs& runs, uintptr_t base, uint64_t bits) {
  while (bits) {
    unsigned start = unsigned(__builtin_ctzll(bits));
    uint64_t from_start = bits >> start;
    unsigned length = from_start == ~uint64_t(0) ? 64 - start : unsigned(__builtin_ctzll(~from_start));
    runs.add(base + start, length);
    bits = start + length == 64 ? 0 : bits & (~uint64_t(0) << (start + length));
  }
}

}  // namespace

void mark_mapped(uintptr_t address, size_t n, bool open) {
  page_set::add(mapped, address, n);
  if (open) page_set::add(opened, address, n);
  else page_set::remove(opened, address, n);
}

void mark_opened(uintptr_t address, size_t n) { page_set::add(opened, address, n, &mapped); }

bool mark_unmapped(uintptr_t address, size_t n) {
  page_set::remove(opened, address, n);
  return page_set::remove(mapped, address, n);
}

Figures measure() {
  int saved_errno = errno;
  while (residency_busy.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
  uint64_t mapped_pages = 0;
  Runs runs;
  page_set::for_each_filled(mapped, [&](size_t index) {
    page_set::Slot m = page_set::slot(mapped, index);
    page_set::Slot o = page_set::slot(opened, index);
    uintptr_t base = uintptr_t(index) * kPagesPerSlot;
    if (m.whole) mapped_pages += kPagesPerSlot;
    else if (m.leaf)
      for (size_t w = 0; w < kWordsPerLeaf; ++w) mapped_pages += uint64_t(__builtin_popcountll(m.word(w)));
    if (m.empty() || o.empty()) return;
    if (m.whole && o.whole) return runs.add(base, kPagesPerSlot);
    for (size_t w = 0; w < kWordsPerLeaf; ++w) add_runs(runs, base + w * 64, m.word(w) & o.word(w));
  });
  uint64_t resident = runs.finish();
  residency_busy.store(false, std::memory_order_release);
  errno = saved_errno;
  return Figures{true, mapped_pages * kPage, resident * kPage};
}

uint64_t resident_bytes() { return page_set::resident_bytes(mapped) + page_set::resident_bytes(opened); }

}  // namespace memprof::os_pages
