// code_span.h — the executable span of a loaded object, read from its program
// headers in memory: one range from the lowest to the highest byte of its
// executable PT_LOAD segments. A call is told to come from libitm (real.cpp)
// or from the allocator (allocator_code.cpp) by its return address in such a
// span. No lock, no allocation.
#pragma once
#include <link.h>
#include <stdint.h>

namespace memprof {

struct CodeSpan {
  uintptr_t begin = 0, end = 0;  // empty: begin == end
  bool contains(const void* code) const {
    return reinterpret_cast<uintptr_t>(code) - begin < end - begin;
  }
};

// `base`: the object's load bias (link_map::l_addr, dl_phdr_info::dlpi_addr).
inline CodeSpan executable_span(uintptr_t base, const ElfW(Phdr)* headers, int count) {
  uintptr_t low = UINTPTR_MAX, high = 0;
  for (int i = 0; i < count; ++i) {
    const ElfW(Phdr)& s = headers[i];
    if (s.p_type != PT_LOAD || !(s.p_flags & PF_X)) continue;
    if (base + s.p_vaddr < low) low = base + s.p_vaddr;
    if (base + s.p_vaddr + s.p_memsz > high) high = base + s.p_vaddr + s.p_memsz;
  }
  return low < high ? CodeSpan{low, high} : CodeSpan{};
}

}  // namespace memprof
