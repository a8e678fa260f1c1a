// kernel_hooks.cpp — the interposed kernel calls (os/kernel_calls.h): each
// exported function only passes its caller's address on; the functions above
// them forward the call and record it.
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "os/allocator_code.h"
#include "interposition/exports.h"
#include "os/os_pages.h"
#include "os/raw_syscalls.h"
#include "recording/recorder.h"
#include "recording/totals.h"

namespace memprof::kernel_calls {

namespace {

using Counter = uint64_t Counters::*;

// Adds to a counter of the calling thread, or of the process for a thread
// without counters of its own (totals.h: count_unowned); a sum of lengths may
// reach 2^64 (one call may ask for any length): it saturates.
inline void add(ThreadState& t, Counter counter, uint64_t v) {
  if (t.status == kLive) saturating::bump(t.c.*counter, v);
  else count_unowned(counter, v);
}

// One call of the allocator's: its kind's count and bytes, and its region.
void count(ThreadState& t, Counter calls, Counter bytes, uint64_t n) {
  static constexpr Counter by_region[] = {&Counters::kcalls_seq_count, &Counters::kcalls_par_count,
                                          &Counters::kcalls_tx_count};
  add(t, calls, 1);
  add(t, bytes, n);
  add(t, by_region[call_region(t)], 1);
}

// Whether the call made from `code` on thread `t` is the allocator's.
inline bool by_allocator(const ThreadState& t, const void* code) {
  allocator_code::find();
  return allocator_code::preloaded() && (t.depth != 0 || allocator_code::contains(code));
}

uintptr_t address_of(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Whether a new mapping may hold resident pages from the start: it has access,
// or a file behind it (mincore then reports the file's cached pages).
inline bool opens(int prot, int flags) { return prot != PROT_NONE || (flags & MAP_ANONYMOUS) == 0; }

void* map(const void* code, void* address, size_t n, int prot, int flags, int fd, off_t offset) {
  void* p = raw::mmap(address, n, prot, flags, fd, offset);
  int saved_errno = errno;
  ThreadState& t = self;
  if (by_allocator(t, code)) {
    count(t, &Counters::kcall_mmap_count, &Counters::kcall_mmap_bytes, n);
    if (p != MAP_FAILED) os_pages::mark_mapped(address_of(p), n, opens(prot, flags));
  } else if (p != MAP_FAILED && allocator_code::preloaded()) {
    os_pages::mark_unmapped(address_of(p), n);  // a mapping over the allocator's replaced it
  }
  errno = saved_errno;
  return p;
}

// The pages are unmarked before the call: once unmapped, the range may be
// the allocator's next mapping, marked by another thread. A call that fails
// unmapped nothing: its pages are marked again, as opened (whether they were
// is forgotten; asking mincore about them costs time, never a wrong figure).
int unmap(const void* code, void* address, size_t n) {
  ThreadState& t = self;
  bool mine = by_allocator(t, code);
  bool marked = allocator_code::preloaded() && os_pages::mark_unmapped(address_of(address), n);
  int rc = raw::munmap(address, n);
  int saved_errno = errno;
  if (mine) count(t, &Counters::kcall_munmap_count, &Counters::kcall_munmap_bytes, n);
  if (rc != 0 && marked) os_pages::mark_mapped(address_of(address), n, true);
  errno = saved_errno;
  return rc;
}

void* remap(const void* code, void* old_address, size_t old_n, size_t new_n, int flags, void* new_address) {
  ThreadState& t = self;
  bool mine = by_allocator(t, code);
#ifdef MREMAP_DONTUNMAP
  bool old_goes = (flags & MREMAP_DONTUNMAP) == 0;
#else
  bool old_goes = true;
#endif
  bool marked = old_goes && allocator_code::preloaded() && os_pages::mark_unmapped(address_of(old_address), old_n);
  void* q = raw::mremap(old_address, old_n, new_n, flags, new_address);
  int saved_errno = errno;
  if (mine) count(t, &Counters::kcall_mremap_count, &Counters::kcall_mremap_bytes, new_n);
  if (q == MAP_FAILED) {
    if (marked) os_pages::mark_mapped(address_of(old_address), old_n, true);
  } else if (mine) {
    os_pages::mark_mapped(address_of(q), new_n, true);  // it may carry resident pages
  } else if (allocator_code::preloaded()) {
    os_pages::mark_unmapped(address_of(q), new_n);
  }
  errno = saved_errno;
  return q;
}

int advise(const void* code, void* address, size_t n, int advice) {
  int rc = raw::madvise(address, n, advice);
  int saved_errno = errno;
  ThreadState& t = self;
  if (by_allocator(t, code)) {
    if (advice == MADV_DONTNEED)
      count(t, &Counters::kcall_madvise_dontneed_count, &Counters::kcall_madvise_dontneed_bytes, n);
    else if (advice == MADV_FREE)
      count(t, &Counters::kcall_madvise_free_count, &Counters::kcall_madvise_free_bytes, n);
    else
      count(t, &Counters::kcall_madvise_other_count, &Counters::kcall_madvise_other_bytes, n);
  }
  errno = saved_errno;
  return rc;
}

// Pages given access, by anyone's call: those the allocator mapped are opened
// (scudo's GWP-ASan opens its guarded slots so). Not counted as calls.
int protect(void* address, size_t n, int prot, int pkey) {
  int rc = pkey == -1 ? raw::mprotect(address, n, prot) : raw::pkey_mprotect(address, n, prot, pkey);
  int saved_errno = errno;
  if (rc == 0 && prot != PROT_NONE) {
    allocator_code::find();
    if (allocator_code::preloaded()) os_pages::mark_opened(address_of(address), n);
  }
  errno = saved_errno;
  return rc;
}

// The program break moved from `before` to `after`: pages the allocator's
// call added are its mapping, pages anyone's call gave back are no longer
// (only whole pages: the one holding the new break stays mapped).
void note_break(bool mine, uintptr_t before, uintptr_t after) {
  if (after > before && mine) {
    os_pages::mark_mapped(before, after - before, true);
  } else if (after < before) {
    uintptr_t first_gone = (after + 4095) & ~uintptr_t(4095);
    if (first_gone < before) os_pages::mark_unmapped(first_gone, before - first_gone);
  }
}

int move_break(const void* code, void* end) {
  static int (*next)(void*) = nullptr;
  auto forward = next_definition(next, "brk");
  ThreadState& t = self;
  bool mine = by_allocator(t, code);
  bool tracked = allocator_code::preloaded();
  uintptr_t before = tracked ? raw::program_break() : 0;
  int rc = forward ? forward(end) : (errno = ENOMEM, -1);
  int saved_errno = errno;
  if (tracked && rc == 0) {
    uintptr_t after = address_of(end);
    uint64_t distance = after > before ? after - before : before - after;
    if (mine) count(t, &Counters::kcall_brk_count, &Counters::kcall_brk_bytes, distance);
    note_break(mine, before, after);
  } else if (mine) {
    count(t, &Counters::kcall_brk_count, &Counters::kcall_brk_bytes, 0);
  }
  errno = saved_errno;
  return rc;
}

// sbrk answers the break before the move.
void* grow_break(const void* code, intptr_t increment) {
  static void* (*next)(intptr_t) = nullptr;
  auto forward = next_definition(next, "sbrk");
  void* before = forward ? forward(increment) : (errno = ENOMEM, reinterpret_cast<void*>(-1));
  int saved_errno = errno;
  ThreadState& t = self;
  bool mine = by_allocator(t, code);
  bool moved = before != reinterpret_cast<void*>(-1);
  uint64_t distance = increment < 0 ? uint64_t(-(increment + 1)) + 1 : uint64_t(increment);
  if (mine) count(t, &Counters::kcall_brk_count, &Counters::kcall_brk_bytes, moved ? distance : 0);
  if (moved && allocator_code::preloaded())
    note_break(mine, address_of(before), address_of(before) + uintptr_t(increment));
  errno = saved_errno;
  return before;
}

}  // namespace

}  // namespace memprof::kernel_calls

using namespace memprof;

extern "C" MEMPROF_EXPORT void* mmap(void* address, size_t n, int prot, int flags, int fd, off_t offset) noexcept {
  return kernel_calls::map(__builtin_return_address(0), address, n, prot, flags, fd, offset);
}

extern "C" MEMPROF_EXPORT void* mmap64(void* address, size_t n, int prot, int flags, int fd, off64_t offset) noexcept {
  return kernel_calls::map(__builtin_return_address(0), address, n, prot, flags, fd, off_t(offset));
}

extern "C" MEMPROF_EXPORT int munmap(void* address, size_t n) noexcept {
  return kernel_calls::unmap(__builtin_return_address(0), address, n);
}

// The new address is there only with MREMAP_FIXED (glibc reads it the same way).
extern "C" MEMPROF_EXPORT void* mremap(void* old_address, size_t old_n, size_t new_n, int flags, ...) noexcept {
  void* new_address = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list rest;
    va_start(rest, flags);
    new_address = va_arg(rest, void*);
    va_end(rest);
  }
  return kernel_calls::remap(__builtin_return_address(0), old_address, old_n, new_n, flags, new_address);
}

extern "C" MEMPROF_EXPORT int madvise(void* address, size_t n, int advice) noexcept {
  return kernel_calls::advise(__builtin_return_address(0), address, n, advice);
}

// pkey_mprotect with key -1 is mprotect (glibc's wrapper makes the same call).
extern "C" MEMPROF_EXPORT int mprotect(void* address, size_t n, int prot) noexcept {
  return kernel_calls::protect(address, n, prot, -1);
}

extern "C" MEMPROF_EXPORT int pkey_mprotect(void* address, size_t n, int prot, int pkey) noexcept {
  return kernel_calls::protect(address, n, prot, pkey);
}

extern "C" MEMPROF_EXPORT int brk(void* end) noexcept {
  return kernel_calls::move_break(__builtin_return_address(0), end);
}

extern "C" MEMPROF_EXPORT void* sbrk(intptr_t increment) noexcept {
  return kernel_calls::grow_break(__builtin_return_address(0), increment);
}
