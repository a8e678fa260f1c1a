// os_pages.h — the pages the allocator has mapped from the kernel: one bit per
// 4 KiB page of user space, in leaves of 32 KiB (one per GiB of addresses)
// mapped on first use through the raw system call. A bit is set where the
// allocator's mmap, mremap, brk or sbrk made a mapping, and cleared wherever a
// mapping goes, whoever removes it (munmap, mremap's old range, another
// caller's mmap over it, the break moving down). Lock-free: fetch_or and fetch_and on 64-bit words; no malloc.
// Its figures, at the end of the measured phase and at exit: the pages set,
// and those of them the kernel says are resident (mincore).
// Resident cost: the root table's pages that were touched, and 4 KiB of leaf
// per 128 MiB of addresses the allocator mapped; counted in memprof_self_kb.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace memprof::os_pages {

constexpr unsigned kPageShift = 12;
constexpr unsigned kLeafShift = 30;  // one leaf per GiB of addresses
constexpr size_t kLeaves = size_t(1) << (47 - kLeafShift);
constexpr size_t kWordsPerLeaf = (size_t(1) << (kLeafShift - kPageShift)) / 64;

// The pages of [address, address + n) (widened to whole pages) are the
// allocator's mapping now.
void mark_mapped(uintptr_t address, size_t n);
// The pages of [address, address + n) are no longer mapped, or no longer the
// allocator's. True when any of them was marked.
bool mark_unmapped(uintptr_t address, size_t n);

struct Figures {
  bool measured;  // false: no allocator preloaded (nothing was marked)
  uint64_t mapped_bytes, resident_bytes;
};

// Counts the marked pages and asks the kernel which are resident.
Figures measure();

// The bitmap's own resident bytes, for memprof_self_kb.
uint64_t resident_bytes();

}  // namespace memprof::os_pages
