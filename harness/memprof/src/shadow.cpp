// shadow.cpp — leaf installation (mmap + compare-and-swap, the loser unmaps)
// and the slow paths for sizes that do not fit in one byte.
#include "shadow.h"

#include <sys/mman.h>

#include "procfs.h"

namespace memprof::shadow {

constinit std::atomic<uint8_t*> leaves[kLeaves];

uint8_t* install_leaf(size_t index) {
  void* m = mmap(nullptr, kLeafBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  uint8_t* fresh = static_cast<uint8_t*>(m);
  uint8_t* expected = nullptr;
  if (!leaves[index].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    munmap(m, kLeafBytes);
    return expected;
  }
  return fresh;
}

void store_spilled(uintptr_t address, size_t size) {
  for (unsigned k = 1; k <= 8; ++k) {
    uint8_t* s = slot(address + (uintptr_t(k) << kGranuleShift), true);
    if (s) __atomic_store_n(s, uint8_t(size >> (8 * (k - 1))), __ATOMIC_RELAXED);
  }
}

size_t load_spilled(uintptr_t address) {
  size_t size = 0;
  for (unsigned k = 1; k <= 8; ++k) {
    uint8_t* s = slot(address + (uintptr_t(k) << kGranuleShift), false);
    if (s) size |= size_t(__atomic_load_n(s, __ATOMIC_RELAXED)) << (8 * (k - 1));
  }
  return size;
}

uint64_t resident_bytes() {
  uint64_t total = procfs::resident_bytes(leaves, sizeof leaves);
  for (size_t i = 0; i < kLeaves; ++i) {
    uint8_t* leaf = leaves[i].load(std::memory_order_acquire);
    if (leaf) total += procfs::resident_bytes(leaf, kLeafBytes);
  }
  return total;
}

}  // namespace memprof::shadow
