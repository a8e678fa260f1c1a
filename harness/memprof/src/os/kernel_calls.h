// kernel_calls.h — the allocator's calls to the kernel for memory. mmap,
// mmap64, munmap, mremap, madvise, brk and sbrk are interposed
// (interposition/kernel_hooks.cpp): each forwards at once — mmap, munmap, mremap and
// madvise as the raw system call (allocators map memory in their own set-up,
// before memprof can look anything up), brk and sbrk to the next definition —
// and, when the call was the allocator's, counts it by kind and region
// (kcall_* counters) and keeps the pages it mapped (os_pages.h); mprotect
// and pkey_mprotect are interposed too (forwarded as the raw system call, not
// counted): pages they give access to are opened (os_pages.h). A call is the
// allocator's when it is made inside a call memprof forwards to the allocator
// (depth > 0), or from the allocator's own code on any thread
// (allocator_code.h); the program's own maps are not counted, but any unmap
// clears the pages it takes away, whoever makes it. From the process's start,
// on threads memprof has no state for too. No malloc, no lock, no I/O; errno
// as the kernel left it.
#pragma once

#include "os/allocator_code.h"

namespace memprof::kernel_calls {

// True when the allocator's calls are counted: an allocator library is
// preloaded behind memprof. Under glibc (nothing preloaded) malloc calls the
// kernel through glibc's internal symbols, which memprof cannot see: the
// kcall_* and alloc_os_* keys are then left out of the record.
inline bool counted() {
  allocator_code::find();
  return allocator_code::preloaded();
}

}  // namespace memprof::kernel_calls
