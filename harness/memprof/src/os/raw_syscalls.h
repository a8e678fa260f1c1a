// raw_syscalls.h — the kernel's memory calls made directly with syscall(),
// never through the mmap, munmap, mremap, madvise and mprotect that kernel_hooks.cpp
// exports. memprof maps its own memory (shadow leaves, buffers, the series,
// the trace) with these: through the exported symbols its maps would be
// counted and would re-enter the hooks. Each returns what libc's wrapper
// returns and sets errno as it does.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace memprof::raw {

inline void* mmap(void* address, size_t n, int prot, int flags, int fd, off_t offset) {
  return reinterpret_cast<void*>(syscall(SYS_mmap, address, n, prot, flags, fd, offset));
}

inline int munmap(void* address, size_t n) { return int(syscall(SYS_munmap, address, n)); }

// `new_address` is read by the kernel only with MREMAP_FIXED.
inline void* mremap(void* old_address, size_t old_n, size_t new_n, int flags, void* new_address) {
  return reinterpret_cast<void*>(syscall(SYS_mremap, old_address, old_n, new_n, flags, new_address));
}

inline int mprotect(void* address, size_t n, int prot) { return int(syscall(SYS_mprotect, address, n, prot)); }

inline int pkey_mprotect(void* address, size_t n, int prot, int key) {
  return int(syscall(SYS_pkey_mprotect, address, n, prot, key));
}

inline int madvise(void* address, size_t n, int advice) { return int(syscall(SYS_madvise, address, n, advice)); }

// The current program break (brk(0) never fails: it answers the break).
inline uintptr_t program_break() { return uintptr_t(syscall(SYS_brk, 0)); }

}  // namespace memprof::raw
