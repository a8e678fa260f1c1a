// procfs.cpp — parsing /proc files read into stack buffers (files.h), and
// mincore walks in bounded chunks.
#include "os/procfs.h"

#include <sys/mman.h>

#include "base/text.h"
#include "os/files.h"

namespace memprof::procfs {

namespace {

constexpr uintptr_t kPage = 4096;

// Value of "Key:   123 kB" in a /proc text; 0 when absent.
uint64_t field(const char* text, const char* key) {
  for (const char* line = text; *line;) {
    if (text::starts_with(line, key)) return text::parse_u64(line + text::length(key), nullptr);
    while (*line && *line != '\n') ++line;
    if (*line) ++line;
  }
  return 0;
}

}  // namespace

Memory read_memory() {
  Memory m{};
  char buf[4096];
  if (files::read_whole("/proc/self/smaps_rollup", buf, sizeof buf)) {
    m.valid = true;
    m.rss_kb = field(buf, "Rss:");
    m.pss_kb = field(buf, "Pss:");
    m.pss_anon_kb = field(buf, "Pss_Anon:");
    m.uss_kb = field(buf, "Private_Clean:") + field(buf, "Private_Dirty:");
  }
  if (files::read_whole("/proc/self/status", buf, sizeof buf)) m.hwm_kb = field(buf, "VmHWM:");
  return m;
}

uint64_t read_rss_kb() {
  char buf[256];
  if (!files::read_whole("/proc/self/statm", buf, sizeof buf)) return 0;
  const char* p;
  text::parse_u64(buf, &p);             // size
  uint64_t pages = text::parse_u64(p, nullptr);  // resident
  return pages * (kPage / 1024);
}

uint64_t resident_bytes(const void* p, size_t n) {
  uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + n + kPage - 1) & ~(kPage - 1);
  unsigned char vec[1024];
  uint64_t resident = 0;
  for (uintptr_t a = lo; a < hi;) {
    size_t pages = (hi - a) / kPage;
    if (pages > sizeof vec) pages = sizeof vec;
    if (mincore(reinterpret_cast<void*>(a), pages * kPage, vec) == 0)
      for (size_t i = 0; i < pages; ++i) resident += (vec[i] & 1) ? kPage : 0;
    a += pages * kPage;
  }
  return resident;
}

uint64_t stack_depth(uintptr_t low, uintptr_t top) {
  low &= ~(kPage - 1);
  uintptr_t lowest = top;
  unsigned char vec[512];
  // Walk upward from the low end; the first resident page is the deepest one.
  for (uintptr_t a = low; a < top;) {
    size_t pages = (top - a + kPage - 1) / kPage;
    if (pages > sizeof vec) pages = sizeof vec;
    if (mincore(reinterpret_cast<void*>(a), pages * kPage, vec) == 0) {
      for (size_t i = 0; i < pages; ++i)
        if (vec[i] & 1) {
          lowest = a + i * kPage;
          return top > lowest ? top - lowest : 0;
        }
    }
    a += pages * kPage;
  }
  return 0;
}

void mapped_range(uintptr_t inside, uintptr_t* low, uintptr_t* high) {
  unsigned char v;
  uintptr_t a = inside & ~(kPage - 1);
  uintptr_t lo = a, hi = a + kPage;
  while (lo >= kPage && mincore(reinterpret_cast<void*>(lo - kPage), kPage, &v) == 0) lo -= kPage;
  while (mincore(reinterpret_cast<void*>(hi), kPage, &v) == 0) hi += kPage;
  *low = lo;
  *high = hi;
}

void program_name(char* buf, size_t n) {
  char tmp[64];
  size_t got = files::read_whole("/proc/self/comm", tmp, sizeof tmp);
  while (got && (tmp[got - 1] == '\n')) tmp[--got] = 0;
  text::copy(buf, n, got ? tmp : "?");
}

}  // namespace memprof::procfs
