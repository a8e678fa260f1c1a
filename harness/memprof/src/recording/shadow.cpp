// shadow.cpp — leaf installation (mmap + compare-and-swap, the loser unmaps),
// the rare entries (spilled sizes, odd and unknown blocks at free), and the
// shadow's resident size for memprof_self_kb.
#include "recording/shadow.h"

#include <sys/mman.h>

#include "os/procfs.h"
#include "os/raw_syscalls.h"

namespace memprof::shadow {

constinit std::atomic<uint8_t*> leaves[kLeaves];

uint8_t* install_leaf(size_t index) {
  void* m = raw::mmap(nullptr, kLeafBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  uint8_t* fresh = static_cast<uint8_t*>(m);
  uint8_t* expected = nullptr;
  if (!leaves[index].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    raw::munmap(m, kLeafBytes);
    return expected;
  }
  return fresh;
}

// The spill word is written before the entry that says it is there.
void remember_spilled(uint16_t* s, size_t size, bool odd) {
  const uint64_t v = size;
  __builtin_memcpy(s + 1, &v, sizeof v);
  __atomic_store_n(s, uint16_t(kSpilled | (odd ? kOddBit : 0)), __ATOMIC_RELAXED);
}

bool forget_rare(const void* p, size_t* size, bool* odd) {
  uint16_t* s = slot(reinterpret_cast<uintptr_t>(p), false);
  if (!s) return false;
  uint16_t entry = __atomic_load_n(s, __ATOMIC_RELAXED);
  if (entry == 0) return false;
  *odd = (entry & kOddBit) != 0;
  uint16_t code = entry & uint16_t(~kOddBit);
  if (code == kSpilled) {
    uint64_t v;
    __builtin_memcpy(&v, s + 1, sizeof v);
    const uint64_t zero = 0;
    __builtin_memcpy(s + 1, &zero, sizeof zero);
    *size = size_t(v);
  } else {
    *size = size_t(code) - 1;
  }
  __atomic_store_n(s, uint16_t(0), __ATOMIC_RELAXED);
  return true;
}

uint64_t resident_bytes() {
  uint64_t total = procfs::resident_bytes(leaves, sizeof leaves);
  for (size_t i = 0; i < kLeaves; ++i) {
    uint8_t* leaf = leaves[i].load(std::memory_order_acquire);
    if (!leaf) continue;
    // Each half and its pad; the rest of the gap between them is never touched.
    total += procfs::resident_bytes(leaf, kHalfBytes + kPadBytes);
    total += procfs::resident_bytes(leaf + (size_t(1) << kSecondHalfShift), kHalfBytes + kPadBytes);
  }
  return total;
}

}  // namespace memprof::shadow
