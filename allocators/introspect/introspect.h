// introspect.h — what the allocator in this process says about itself, read at
// the end of the measured phase and mapped onto common columns. Each adapter is
// found with dlsym, so libmemprof.so links against no allocator.
#pragma once
#include <stdint.h>

namespace memprof::introspect {

constexpr int kMaxOwn = 8;

struct AllocatorStats {
  const char* source;  // "jemalloc", "gperftools", "mimalloc", "scudo", "glibc", "tbbmalloc" (no API), "none"
  // Common figures; -1 where the allocator does not tell.
  int64_t in_use;      // bytes handed out to the program
  int64_t cached;      // free bytes the allocator keeps (caches, free lists, free pages)
  int64_t resident;    // bytes of the allocator's memory resident in RAM
  int64_t mapped;      // bytes the allocator has mapped from the system
  int64_t metadata;    // bytes of the allocator's own bookkeeping
  // The allocator's own figures, under its own names.
  struct Own {
    const char* key;
    int64_t value;
  } own[kMaxOwn];
  int own_count;
};

// Reads the allocator's statistics. `glibc_is_allocator`: no other allocator
// is preloaded (glibc's mallinfo2 would otherwise describe an unused heap).
// Call outside the malloc path: some allocators allocate to answer.
AllocatorStats read(bool glibc_is_allocator);

}  // namespace memprof::introspect
