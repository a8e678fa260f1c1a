// shadow.cpp — leaf installation (mmap + compare-and-swap, the loser unmaps)
// and the shadow's resident size for memprof_self_kb.
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

uint64_t resident_bytes() {
  uint64_t total = procfs::resident_bytes(leaves, sizeof leaves);
  for (size_t i = 0; i < kLeaves; ++i) {
    uint8_t* leaf = leaves[i].load(std::memory_order_acquire);
    if (leaf) total += procfs::resident_bytes(leaf, kLeafBytes + kLeafPad);
  }
  return total;
}

}  // namespace memprof::shadow
