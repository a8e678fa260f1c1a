// shadow.cpp — leaf installation (mmap + compare-and-swap, the loser unmaps)
// the rare entries of odd blocks, and the shadow's resident size for memprof_self_kb.
#include "shadow.h"

#include <sys/mman.h>

#include "procfs.h"

namespace memprof::shadow {

constinit std::atomic<uint8_t*> leaves[kLeaves];

uint8_t* install_leaf(size_t index) {
  void* m = mmap(nullptr, kLeafBytes + kLeafPad, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  uint8_t* fresh = static_cast<uint8_t*>(m);
  uint8_t* expected = nullptr;
  if (!leaves[index].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    munmap(m, kLeafBytes + kLeafPad);
    return expected;
  }
  return fresh;
}

// Odd blocks (aligned, resized, or not matching the usable-size memo) are rare:
// their entry is written out of line.
void remember_odd(uint8_t* s, size_t size) {
  if (size <= 8) {
    __atomic_store_n(s, uint8_t(kOddTiny + size), __ATOMIC_RELAXED);
  } else if (size <= 255) {
    __atomic_store_n(s + 1, uint8_t(size), __ATOMIC_RELAXED);
    __atomic_store_n(s, kOddByte, __ATOMIC_RELAXED);
  } else {
    uint64_t v = uint64_t(size) | kSpillOddBit;
    __builtin_memcpy(s + 1, &v, sizeof v);
    __atomic_store_n(s, kSpilled, __ATOMIC_RELAXED);
  }
}

uint64_t resident_bytes() {
  uint64_t total = procfs::resident_bytes(leaves, sizeof leaves);
  for (size_t i = 0; i < kLeaves; ++i) {
    uint8_t* leaf = leaves[i].load(std::memory_order_acquire);
    if (leaf) total += procfs::resident_bytes(leaf, kLeafBytes + kLeafPad);
  }
  return total;
}

}  // namespace memprof::shadow
