// procfs.h — what the kernel says about this process's memory: smaps_rollup,
// status, statm, and page residency (mincore) for stacks and memprof's own maps.
// All reads use fixed buffers on the stack: safe at exit and in the sampler.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace memprof::procfs {

struct Memory {
  bool valid;
  uint64_t rss_kb, pss_kb, uss_kb, pss_anon_kb, hwm_kb;
};

// /proc/self/smaps_rollup (Rss, Pss, Private_Clean + Private_Dirty, Pss_Anon)
// and /proc/self/status (VmHWM).
Memory read_memory();
// Resident set from /proc/self/statm, in KiB: cheap enough to sample.
uint64_t read_rss_kb();
// Resident bytes of [p, p + n) (page-aligned outward).
uint64_t resident_bytes(const void* p, size_t n);
// Deepest resident page of a downward-growing stack that ends at `top`:
// returns top minus the lowest resident address in [low, top).
uint64_t stack_depth(uintptr_t low, uintptr_t top);
// The mapping around `inside` as far as it is mapped (probed with mincore).
void mapped_range(uintptr_t inside, uintptr_t* low, uintptr_t* high);
// Short program name (from /proc/self/comm) into buf.
void program_name(char* buf, size_t n);

}  // namespace memprof::procfs
