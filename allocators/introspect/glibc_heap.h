// glibc_heap.h — the memory glibc's malloc holds, found in /proc/self/maps by
// its own headers and measured with mincore (glibc_heap.cpp). Only meaningful
// when glibc's malloc is the allocator; call outside the malloc path.
#pragma once
#include <stdint.h>

namespace memprof::introspect {

struct HeapHeld {
  uint64_t mapped;    // bytes of the mappings found: [heap], the arenas' heaps, mmapped chunks
  uint64_t resident;  // of those, resident in RAM
  bool valid;         // /proc/self/maps was read
};

HeapHeld glibc_heap_held();

// One word of this process's memory at `address`, or false where nothing is
// mapped there (now): never faults, whatever other threads unmap meanwhile.
bool read_word(uintptr_t address, uintptr_t& value);

}  // namespace memprof::introspect
