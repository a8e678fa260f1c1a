// tx_set.cpp — the transactional free set (tx_set.h): linear probing with
// backward-shift deletion, so no tombstones accumulate over millions of
// transactions.
#include "recording/tx_set.h"

#include <string.h>
#include <sys/mman.h>

#include "os/raw_syscalls.h"

namespace memprof {
namespace {

constexpr uint32_t kFirstCapacity = 512;  // one page of slots

void** map_words(uint64_t n) {
  void* m = raw::mmap(nullptr, n * sizeof(void*), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? nullptr : static_cast<void**>(m);
}

void unmap_words(void** p, uint64_t n) {
  if (p) raw::munmap(p, n * sizeof(void*));
}

inline uint32_t home(const TxSet& s, void* p) {
  uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15ull;
  return uint32_t(h >> 32) & s.mask;
}

// The slot holding p, or the empty slot where it would go.
inline uint32_t probe(const TxSet& s, void* p) {
  uint32_t i = home(s, p);
  while (s.slots[i] && s.slots[i] != p) i = (i + 1) & s.mask;
  return i;
}

bool grow_slots(TxSet& s) {
  uint32_t old_capacity = s.slots ? s.mask + 1 : 0;
  uint32_t capacity = old_capacity ? old_capacity * 2 : kFirstCapacity;
  void** fresh = map_words(capacity);
  if (!fresh) return false;
  void** old = s.slots;
  s.slots = fresh;
  s.mask = capacity - 1;
  for (uint32_t i = 0; i < old_capacity; ++i)
    if (old[i]) s.slots[probe(s, old[i])] = old[i];
  unmap_words(old, old_capacity);
  return true;
}

bool grow_log(TxSet& s) {
  uint32_t capacity = s.added_capacity ? s.added_capacity * 2 : kFirstCapacity;
  void** fresh = map_words(capacity);
  if (!fresh) return false;
  if (s.added) memcpy(fresh, s.added, uint64_t(s.added_count) * sizeof(void*));
  unmap_words(s.added, s.added_capacity);
  s.added = fresh;
  s.added_capacity = capacity;
  return true;
}

}  // namespace

bool tx_set_insert(TxSet& s, void* p, bool logged) {
  if (!s.slots && !grow_slots(s)) return false;
  uint32_t i = probe(s, p);
  if (s.slots[i] == p) return true;
  // At most half full, so probes stay short and one slot is always empty.
  if (uint64_t(s.count + 1) * 2 > uint64_t(s.mask) + 1) {
    if (!grow_slots(s)) return false;
    i = probe(s, p);
  }
  if (logged && s.added_count == s.added_capacity && !grow_log(s)) return false;
  s.slots[i] = p;
  ++s.count;
  if (logged) s.added[s.added_count++] = p;
  return true;
}

bool tx_set_remove(TxSet& s, void* p) {
  if (s.count == 0) return false;
  uint32_t i = probe(s, p);
  if (s.slots[i] != p) return false;
  // Backward shift: move later entries of the run into the gap when the gap
  // lies on their way from their home slot.
  uint32_t gap = i;
  for (uint32_t j = (i + 1) & s.mask; s.slots[j]; j = (j + 1) & s.mask) {
    uint32_t h = home(s, s.slots[j]);
    bool movable = gap <= j ? (h <= gap || h > j) : (h <= gap && h > j);
    if (movable) {
      s.slots[gap] = s.slots[j];
      gap = j;
    }
  }
  s.slots[gap] = nullptr;
  --s.count;
  return true;
}

void tx_set_reset(TxSet& s) {
  for (uint32_t k = 0; k < s.added_count && s.count != 0; ++k) tx_set_remove(s, s.added[k]);
  s.added_count = 0;
  s.count = 0;
}

void tx_set_release(TxSet& s) {
  unmap_words(s.slots, s.slots ? uint64_t(s.mask) + 1 : 0);
  unmap_words(s.added, s.added_capacity);
  s = TxSet{};
}

}  // namespace memprof
