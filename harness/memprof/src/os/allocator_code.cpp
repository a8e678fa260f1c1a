// allocator_code.cpp — finding the preloaded allocator's objects among the
// loaded ones (dl_iterate_phdr: its name in LD_PRELOAD, then the libraries
// its dynamic section says it needs) and their executable spans.
#include "os/allocator_code.h"

#include <link.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/text.h"

namespace memprof::allocator_code {

constinit Found found{};

namespace {

__thread bool finding;  // this thread is looking: a kernel call meanwhile does not wait for itself

struct Name {
  const char* text = nullptr;
  size_t length = 0;
};

// What follows the last '/' of a path.
Name file_name(const char* path, size_t length) {
  size_t start = length;
  while (start > 0 && path[start - 1] != '/') --start;
  return {path + start, length - start};
}

bool same(Name a, Name b) { return a.length == b.length && text::equal_prefix(a.text, b.text, a.length); }

// The file name of the LD_PRELOAD entry after libmemprof's (entries are
// separated by spaces or colons); empty when there is none.
Name preloaded_after_memprof() {
  const char* list = getenv("LD_PRELOAD");
  if (!list) return {};
  bool after_memprof = false;
  for (const char* p = list; *p;) {
    while (*p == ' ' || *p == ':') ++p;
    const char* end = p;
    while (*end && *end != ' ' && *end != ':') ++end;
    if (end == p) break;
    Name name = file_name(p, size_t(end - p));
    if (after_memprof) return name;
    after_memprof = text::starts_with(name.text, "libmemprof");
    p = end;
  }
  return {};
}

// The C and C++ runtime, which every program uses: an allocator's need of them
// does not make their calls the allocator's.
bool runtime_library(Name name) {
  static const char* const prefixes[] = {"libc.so",   "libm.so",  "libstdc++.so", "libgcc_s.so", "libpthread.so",
                                         "libdl.so",  "librt.so", "ld-linux",     "libmvec.so",  "libatomic.so"};
  for (const char* prefix : prefixes)
    if (name.length >= text::length(prefix) && text::starts_with(name.text, prefix)) return true;
  return false;
}

struct Search {
  Name allocator;
  Name needed[kMaxObjects - 1];  // the libraries it needs, but the runtime
  int needed_count;
};

void add_span(const dl_phdr_info* info) {
  if (found.count == kMaxObjects) return;
  CodeSpan span = executable_span(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
  if (span.begin < span.end) found.spans[found.count++] = span;
}

// The DT_NEEDED names of the object `info` describes, but the runtime's.
void note_needed(const dl_phdr_info* info, Search& search) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dynamic) return;
  uintptr_t strings = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_STRTAB) strings = d->d_un.d_ptr;
  if (!strings) return;
  // The loader relocates the entry in place where the section is writable.
  if (strings < info->dlpi_addr) strings += info->dlpi_addr;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL && search.needed_count < kMaxObjects - 1; ++d) {
    if (d->d_tag != DT_NEEDED) continue;
    const char* needed = reinterpret_cast<const char*>(strings + d->d_un.d_val);
    Name name = file_name(needed, text::length(needed));
    if (!runtime_library(name)) search.needed[search.needed_count++] = name;
  }
}

Name name_of(const dl_phdr_info* info) {
  return info->dlpi_name ? file_name(info->dlpi_name, text::length(info->dlpi_name)) : Name{};
}

// First pass: the preloaded allocator, and what it needs.
int visit_allocator(dl_phdr_info* info, size_t, void* data) {
  Search& search = *static_cast<Search*>(data);
  if (!same(name_of(info), search.allocator)) return 0;
  add_span(info);
  note_needed(info, search);
  return 1;  // stops the walk
}

// Second pass: the libraries it needs (loaded after it).
int visit_needed(dl_phdr_info* info, size_t, void* data) {
  Search& search = *static_cast<Search*>(data);
  Name name = name_of(info);
  for (int i = 0; i < search.needed_count; ++i)
    if (same(name, search.needed[i])) add_span(info);
  return 0;
}

}  // namespace

void find_slow() {
  int expected = 0;
  if (!found.state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    if (finding) return;  // a kernel call made while looking: not the allocator's as far as is known
    while (found.state.load(std::memory_order_acquire) != 2) __builtin_ia32_pause();
    return;
  }
  finding = true;
  Search search{};
  search.allocator = preloaded_after_memprof();
  if (search.allocator.length) {
    dl_iterate_phdr(visit_allocator, &search);
    if (search.needed_count) dl_iterate_phdr(visit_needed, &search);
  }
  finding = false;
  found.state.store(2, std::memory_order_release);
}

}  // namespace memprof::allocator_code
