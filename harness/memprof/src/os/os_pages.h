// os_pages.h — the pages the allocator has mapped from the kernel, and those
// of them opened (given access) since they were mapped, as two page sets
// (page_set.h: a GiB wholly in a set is one mark, so scudo's 180 GiB
// reservation costs 180 words, not 5.9 MB of bits). A page is mapped where the
// allocator's mmap, mremap, brk or sbrk made a mapping, and no longer wherever
// a mapping goes, whoever removes it (munmap, mremap's old range, another
// caller's mmap over it, the break moving down). It is opened where that
// mapping had access (or a file behind it), or where anyone's mprotect or
// pkey_mprotect gave it access later; a fresh PROT_NONE anonymous mapping
// over it closes it again. A page never opened since it was mapped holds
// nothing the kernel could count resident, so only opened pages are asked
// about. Lock-free; no malloc.
// Its figures, at the end of the measured phase and at exit: the pages
// mapped, and those of them the kernel says are resident (mincore).
// Resident cost: the slot tables' pages that were touched, and 4 KiB of leaf
// per 128 MiB of addresses mapped or opened in part of a GiB; counted in memprof_self_kb.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace memprof::os_pages {

// The pages of [address, address + n) (widened to whole pages) are the
// allocator's mapping now: opened, or not (PROT_NONE, anonymous).
void mark_mapped(uintptr_t address, size_t n, bool opened);
// The pages of [address, address + n) were given access: those the allocator
// has mapped are opened.
void mark_opened(uintptr_t address, size_t n);
// The pages of [address, address + n) are no longer mapped, or no longer the
// allocator's. True when any of them was marked.
bool mark_unmapped(uintptr_t address, size_t n);

struct Figures {
  bool measured;  // false: no allocator preloaded (nothing was marked)
  uint64_t mapped_bytes, resident_bytes;
};

// Counts the mapped pages and asks the kernel which of the opened ones are resident.
Figures measure();

// The page sets' own resident bytes, for memprof_self_kb.
uint64_t resident_bytes();

}  // namespace memprof::os_pages
