// introspect.cpp — the adapters: jemalloc's mallctl (after refreshing "epoch"),
// gperftools' MallocExtension_GetNumericProperty, mimalloc's mi_process_info,
// scudo's mallinfo2, glibc's mallinfo2. TBB's scalable malloc has no statistics API.
#include "introspect.h"
#include "glibc_heap.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

#include <cstring>

namespace memprof::introspect {

namespace {

void add_own(AllocatorStats& s, const char* key, int64_t value) {
  if (s.own_count < kMaxOwn) s.own[s.own_count++] = {key, value};
}

int64_t non_negative(int64_t v) { return v < 0 ? 0 : v; }

bool read_jemalloc(AllocatorStats& s) {
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (!mallctl) return false;
  uint64_t epoch = 1;
  size_t epoch_len = sizeof epoch;
  mallctl("epoch", &epoch, &epoch_len, &epoch, sizeof epoch);  // statistics are cached until refreshed
  auto get = [&](const char* name) -> int64_t {
    size_t v = 0, len = sizeof v;
    return mallctl(name, &v, &len, nullptr, 0) == 0 ? int64_t(v) : -1;
  };
  int64_t allocated = get("stats.allocated"), active = get("stats.active");
  int64_t resident = get("stats.resident"), mapped = get("stats.mapped");
  int64_t metadata = get("stats.metadata"), retained = get("stats.retained");
  if (allocated < 0) return false;  // built without statistics
  s.source = "jemalloc";
  s.in_use = allocated;
  s.resident = resident;
  s.mapped = mapped;
  s.metadata = metadata;
  s.cached = resident >= 0 && metadata >= 0 ? non_negative(resident - allocated - metadata) : -1;
  add_own(s, "je_active_bytes", active);
  add_own(s, "je_retained_bytes", retained);
  return true;
}

bool read_gperftools(AllocatorStats& s) {
  using Property = int (*)(const char*, size_t*);
  auto property = reinterpret_cast<Property>(dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty"));
  if (!property) return false;
  auto get = [&](const char* name) -> int64_t {
    size_t v = 0;
    return property(name, &v) ? int64_t(v) : -1;
  };
  int64_t allocated = get("generic.current_allocated_bytes"), heap = get("generic.heap_size");
  int64_t page_free = get("tcmalloc.pageheap_free_bytes"), unmapped = get("tcmalloc.pageheap_unmapped_bytes");
  int64_t central = get("tcmalloc.central_cache_free_bytes"), transfer = get("tcmalloc.transfer_cache_free_bytes");
  int64_t thread = get("tcmalloc.thread_cache_free_bytes");
  // Physical bytes: the page heap's resident part plus tcmalloc's metadata.
  int64_t physical = get("generic.total_physical_bytes");
  if (allocated < 0) return false;
  s.source = "gperftools";
  s.in_use = allocated;
  // TOMA's decomposition: the page heap less what sits free in the caches.
  if (page_free >= 0 && central >= 0 && transfer >= 0 && thread >= 0)
    s.cached = page_free + central + transfer + thread;
  s.mapped = heap;
  if (physical >= 0) s.resident = physical;
  if (physical >= 0 && heap >= 0 && unmapped >= 0) s.metadata = non_negative(physical - (heap - unmapped));
  add_own(s, "tc_pageheap_free_bytes", page_free);
  add_own(s, "tc_pageheap_unmapped_bytes", unmapped);
  add_own(s, "tc_central_cache_free_bytes", central);
  add_own(s, "tc_transfer_cache_free_bytes", transfer);
  add_own(s, "tc_thread_cache_free_bytes", thread);
  return true;
}

// mimalloc's statistics printer, captured into a fixed buffer.
char mi_text[4096];
size_t mi_text_used = 0;

void mi_collect(const char* msg, void*) {
  while (*msg && mi_text_used + 1 < sizeof mi_text) mi_text[mi_text_used++] = *msg++;
  mi_text[mi_text_used] = 0;
}

// "  reserved:   32.0 MiB   32.0 MiB      0       32.0 MiB" -> the fourth
// figure (current), in bytes; -1 when absent. Units as mimalloc prints them.
int64_t mi_current(const char* label) {
  const char* line = std::strstr(mi_text, label);
  if (!line) return -1;
  const char* p = line + std::strlen(label);
  double value = 0;
  for (int field = 0; field < 4; ++field) {
    while (*p == ' ') ++p;
    char* end = nullptr;
    value = std::strtod(p, &end);
    if (end == p) return -1;
    p = end;
    while (*p == ' ') ++p;
    double scale = 1;
    if (p[0] == 'K' && p[1] == 'i') scale = 1024.0;
    if (p[0] == 'M' && p[1] == 'i') scale = 1024.0 * 1024;
    if (p[0] == 'G' && p[1] == 'i') scale = 1024.0 * 1024 * 1024;
    if (scale > 1 || (p[0] == 'B' && p[1] == ' ')) {
      while (*p && *p != ' ') ++p;
    }
    value *= scale;
  }
  return int64_t(value);
}

bool read_mimalloc(AllocatorStats& s) {
  using ProcessInfo = void (*)(size_t*, size_t*, size_t*, size_t*, size_t*, size_t*, size_t*, size_t*);
  using PrintOut = void (*)(void (*)(const char*, void*), void*);
  auto info = reinterpret_cast<ProcessInfo>(dlsym(RTLD_DEFAULT, "mi_process_info"));
  if (!info) return false;
  size_t elapsed = 0, user = 0, system = 0, rss = 0, peak_rss = 0, commit = 0, peak_commit = 0, faults = 0;
  info(&elapsed, &user, &system, &rss, &peak_rss, &commit, &peak_commit, &faults);
  s.source = "mimalloc";
  s.mapped = int64_t(commit);  // committed by mimalloc; its RSS figure is the whole process's
  add_own(s, "mi_peak_commit_bytes", int64_t(peak_commit));
  // A release build prints reserved/committed/touched only: no bytes in use, and
  // "touched" goes negative once threads free each other's blocks, so only
  // "reserved" is taken.
  auto merge = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "mi_stats_merge"));
  auto print = reinterpret_cast<PrintOut>(dlsym(RTLD_DEFAULT, "mi_stats_print_out"));
  if (merge && print) {
    merge();
    mi_text_used = 0;
    print(mi_collect, nullptr);
    add_own(s, "mi_reserved_bytes", mi_current("reserved:"));
  }
  return true;
}

// scudo answers mallinfo2 from its own statistics: hblkhd is what it has
// mapped, uordblks what it has handed out, fordblks what it keeps free.
bool read_scudo(AllocatorStats& s) {
  if (!dlsym(RTLD_DEFAULT, "__scudo_print_stats")) return false;
  using Mallinfo2 = struct mallinfo2 (*)();
  auto info = reinterpret_cast<Mallinfo2>(dlsym(RTLD_DEFAULT, "mallinfo2"));  // scudo's: preloaded before libc
  if (!info) return false;
  struct mallinfo2 mi = info();
  s.source = "scudo";
  s.in_use = int64_t(mi.uordblks);
  s.cached = int64_t(mi.fordblks);
  s.mapped = int64_t(mi.hblkhd);
  return true;
}

bool read_glibc(AllocatorStats& s) {
  struct mallinfo2 mi = ::mallinfo2();
  s.source = "glibc";
  s.in_use = int64_t(mi.uordblks + mi.hblkhd);
  s.cached = int64_t(mi.fordblks);
  s.mapped = int64_t(mi.arena + mi.hblkhd);
  // Resident: what its own mappings hold (glibc_heap.h); mallinfo2 tells none.
  const HeapHeld held = glibc_heap_held();
  if (held.valid) s.resident = int64_t(held.resident);
  add_own(s, "glibc_arena_bytes", int64_t(mi.arena));
  add_own(s, "glibc_mmap_bytes", int64_t(mi.hblkhd));
  add_own(s, "glibc_releasable_bytes", int64_t(mi.keepcost));
  return true;
}

}  // namespace

AllocatorStats read(bool glibc_is_allocator) {
  AllocatorStats s{"none", -1, -1, -1, -1, -1, {}, 0};
  if (read_jemalloc(s) || read_gperftools(s) || read_mimalloc(s) || read_scudo(s)) return s;
  if (glibc_is_allocator) {
    read_glibc(s);
  } else if (dlsym(RTLD_DEFAULT, "scalable_msize")) {
    s.source = "tbbmalloc";  // loaded, but it has no statistics API: the figures stay empty
  }
  return s;
}

}  // namespace memprof::introspect
