// report.cpp — turns the totals into output, once: Contract 1 records
// ("@memprof", "@scope", "@sample" lines, each below PIPE_BUF) when MEMPROF_OUT
// is set, else a summary a person can read on stderr.
#include "output/report.h"

#include "key_names.h"
#include "versions.h"

#include "base/options.h"
#include "base/text.h"
#include "os/kernel_calls.h"
#include "os/os_pages.h"
#include "os/process.h"
#include "os/procfs.h"
#include "recording/registry.h"
#include "recording/scopes.h"
#include "recording/series.h"
#include "recording/shadow.h"
#include "recording/threads.h"
#include "recording/totals.h"
#include "recording/usable.h"

namespace memprof::report {

namespace {

struct Figures {
  Totals totals;
  threads::Stacks stacks;
  Phase phase;
  os_pages::Figures allocator_pages_at_exit;
  bool kernel_calls_counted;
  uint64_t self_kb;
  uint64_t series_points;
  uint64_t duration_ns;
  double load_total;
  char program[64];
};

// Builds records of one kind, starting a continuation record before a line
// would reach PIPE_BUF; each record goes out with a single write().
class Records {
 public:
  Records(int fd, const char* kind, uint64_t pid) : fd_(fd), kind_(kind), pid_(pid), ppid_(uint64_t(process::parent_pid())) {
    start();
  }
  Records& kv(const char* key, uint64_t v) { room(); line_.kv(key, v); return *this; }
  Records& kvs(const char* key, int64_t v) { room(); line_.kvs(key, v); return *this; }
  Records& kvstr(const char* key, const char* v) { room(); line_.kvstr(key, v); return *this; }
  // A value that may be long (up to a quarter of a record): a fresh record when it would not fit.
  Records& kvtext(const char* key, const text::Line& v) {
    room(v.size() + 64);
    line_.add(' ').add(key).add('=').append(v);
    return *this;
  }
  Records& kvwhole(const char* key, double v) {
    room();
    line_.add(' ').add(key).add('=').whole(v);
    return *this;
  }
  void finish() {
    line_.add('\n');
    line_.write_to(fd_);
  }

 private:
  void start() {
    line_.clear();
    line_.add('@').add(kind_).kv(keys::pid, pid_).kv(keys::ppid, ppid_);
  }
  void room(size_t needed = 128) {
    if (line_.size() + needed < text::Line::kCapacity) return;
    finish();
    start();
  }
  text::Line line_;
  int fd_;
  const char* kind_;
  uint64_t pid_;
  uint64_t ppid_;
};

void write_records(int fd, const Figures& f) {
  const Totals& t = f.totals;
  const procfs::Memory& m = f.phase.memory;
  Records r(fd, "memprof", uint64_t(process::pid()));
  r.kv(keys::format, ALLOCSTAMP_RECORD_FORMAT).kvstr(keys::program, f.program).kv(keys::threads_peak_count, uint64_t(registry::peak_alive()))
      .kv(keys::startup_allocs_count, shared.startup_allocs.load())
      .kv(keys::startup_requested_bytes, shared.startup_bytes.load());
  text::Line saturated;  // the counters that stopped at 2^64 - 1 (saturating.h), comma-separated
#define MEMPROF_COUNTER(name)                                                              \
  if (f.kernel_calls_counted || !Counters::is_kernel_call(offsetof(Counters, name))) {     \
    r.kv(#name, t.c.name);                                                                 \
    if (t.c.name == UINT64_MAX && saturated.size() < 1000) saturated.add(saturated.size() ? "," : "").add(#name); \
  }
#include "recording/each_counter.inc"
#undef MEMPROF_COUNTER
  if (shared.startup_bytes.load() == UINT64_MAX) saturated.add(saturated.size() ? "," : "").add(keys::startup_requested_bytes);
  if (saturated.size()) r.kvtext(keys::saturated_keys, saturated);
  if (options.track_heap) {
    r.kvs(keys::heap_requested_peak_bytes, t.req_peak).kvs(keys::heap_requested_end_bytes, t.req_end);
    if (options.track_usable)
      r.kvs(keys::heap_usable_peak_bytes, t.use_peak).kvs(keys::heap_usable_end_bytes, t.use_end)
          .kvs(keys::heap_usable_phase_end_bytes, f.phase.heap_use)
          .kv(keys::usable_memo_mismatch_count, usable::mismatches());
    r.kv(keys::heap_peak_error_bytes, t.peak_error_bytes)
        .kvs(keys::live_blocks_peak_count, t.blocks_peak)
        .kvs(keys::live_blocks_end_count, t.blocks_end)
        .kvs(keys::heap_requested_phase_end_bytes, f.phase.heap_req)
        .kvs(keys::live_blocks_phase_end_count, f.phase.blocks)
        .kv(keys::live_blocks_peak_error_count, t.blocks_peak_error)
        .kvwhole(keys::load_total_byte_ns, f.load_total)
        .kv(keys::load_avg_bytes, f.duration_ns ? uint64_t(f.load_total / double(f.duration_ns)) : 0);
  }
  r.kv(keys::duration_ns, f.duration_ns)
      .kv(keys::stack_peak_main_bytes, f.stacks.main_bytes)
      .kv(keys::stack_peak_thread_max_bytes, f.stacks.thread_max_bytes)
      .kv(keys::stack_count, f.stacks.count);
  if (m.valid)
    r.kv(keys::rss_kb, m.rss_kb).kv(keys::pss_kb, m.pss_kb).kv(keys::uss_kb, m.uss_kb).kv(keys::pss_anon_kb, m.pss_anon_kb);
  const introspect::AllocatorStats& a = f.phase.allocator;
  r.kvstr(keys::alloc_stats, a.source);
  auto optional = [&](const char* key, int64_t v) {
    if (v >= 0) r.kvs(key, v);
  };
  optional(keys::alloc_in_use_bytes, a.in_use);
  optional(keys::alloc_cached_bytes, a.cached);
  optional(keys::alloc_resident_bytes, a.resident);
  optional(keys::alloc_mapped_bytes, a.mapped);
  optional(keys::alloc_metadata_bytes, a.metadata);
  for (int i = 0; i < a.own_count; ++i) optional(a.own[i].key, a.own[i].value);
  if (f.kernel_calls_counted)
    r.kv(keys::alloc_os_mapped_bytes, f.phase.allocator_pages.mapped_bytes)
        .kv(keys::alloc_os_resident_bytes, f.phase.allocator_pages.resident_bytes)
        .kv(keys::alloc_os_mapped_exit_bytes, f.allocator_pages_at_exit.mapped_bytes)
        .kv(keys::alloc_os_resident_exit_bytes, f.allocator_pages_at_exit.resident_bytes);
  r.kv(keys::hwm_kb, m.hwm_kb).kv(keys::memprof_self_kb, f.self_kb).kv(keys::series_points_count, f.series_points)
      .kv(keys::peak_slack_bytes, uint64_t(shared.slack));  // as applied: at most kMaxLaneSlack
  r.finish();

  ScopeReport scopes[kMaxScopes];
  uint32_t n = scope_totals(scopes, kMaxScopes);
  for (uint32_t i = 0; i < n; ++i) {
    Records s(fd, "scope", uint64_t(process::pid()));
    s.kvstr(keys::scopes::name, scopes[i].name).kv(keys::scopes::calls_count, scopes[i].calls)
        .kv(keys::scopes::allocs_count, scopes[i].allocs).kv(keys::scopes::requested_bytes, scopes[i].bytes)
        .kvs(keys::scopes::held_bytes, scopes[i].held).kv(keys::scopes::duration_ns, scopes[i].duration_ns);
    s.finish();
  }

  uint64_t count;
  const series::Point* points = series::points(&count);
  text::Line batch;
  for (uint64_t i = 0; i < count; ++i) {
    text::Line one;
    one.add("@sample").kv(keys::series::t_ns, points[i].t_ns).kvs(keys::series::heap_requested_bytes, points[i].heap_req)
        .kvs(keys::series::heap_requested_max_bytes, points[i].heap_req_max)
        .kvs(keys::series::heap_usable_bytes, points[i].heap_use).kv(keys::series::rss_kb, points[i].rss_kb).add('\n');
    if (batch.size() + one.size() >= text::Line::kCapacity) {
      batch.write_to(fd);
      batch.clear();
    }
    for (size_t k = 0; k < one.size(); ++k) batch.add(one.data()[k]);
  }
  if (batch.size()) batch.write_to(fd);
}

// 12345678 -> "11.8 MiB"
text::Line& bytes(text::Line& l, double v) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  bool negative = v < 0;
  if (negative) v = -v;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (negative) l.add('-');
  return u == 0 ? l.num(uint64_t(v)).add(" B") : l.fixed(v, 1).add(' ').add(units[u]);
}

// 1234567 -> "1,234,567"
text::Line& grouped(text::Line& l, uint64_t v) {
  char digits[24];
  int n = 0;
  do digits[n++] = char('0' + v % 10); while (v /= 10);
  for (int i = n - 1; i >= 0; --i) {
    l.add(digits[i]);
    if (i && i % 3 == 0) l.add(',');
  }
  return l;
}

text::Line bytes_text(double v) {
  text::Line l;
  bytes(l, v);
  return l;
}

text::Line count_text(uint64_t v) {
  text::Line l;
  grouped(l, v);
  return l;
}

void write_text(const Figures& f) {
  const Totals& t = f.totals;
  Counters c = t.c;
  const procfs::Memory& m = f.phase.memory;
  text::Line l;
  l.add("memprof: pid ").num(uint64_t(process::pid())).add(" (").add(f.program).add(")");
  if (threads::forked_child()) l.add(", forked from pid ").num(uint64_t(threads::parent_pid()));
  l.add(", ").fixed(double(f.duration_ns) / 1e9, 3).add(" s measured, ").num(uint64_t(registry::peak_alive()))
      .add(registry::peak_alive() == 1 ? " thread\n" : " threads at most\n");
  l.add("  region          allocs           frees       requested\n");
  static const char* names[] = {"seq", "par", "tx"};
  for (int r = 0; r < 3; ++r) {
    l.add("  ").add(names[r]).pad(l.size() + 3 - text::length(names[r]));
    l.right(count_text(c.allocs()[r]), 14).right(count_text(c.frees()[r]), 16)
        .right(bytes_text(double(c.requested()[r])), 16).add('\n');
  }
  l.add("  before start    ").append(count_text(shared.startup_allocs.load())).add(" allocations (")
      .append(bytes_text(double(shared.startup_bytes.load())))
      .add(") by shared-library initialisers, not counted above\n");
  l.add("  reallocs ").append(count_text(c.reallocs_count)).add(" (").append(count_text(c.realloc_moves_count))
      .add(" moved), failed ").append(count_text(c.allocs_failed_count)).add(", frees of unknown blocks ")
      .append(count_text(c.frees_untracked_count)).add('\n');
  if (!options.track_heap) {
    l.add("  heap            not tracked (MEMPROF_HEAP=0: counts only)\n");
  } else {
    l.add("  heap requested  peak ").append(bytes_text(double(t.req_peak))).add(", at exit ")
        .append(bytes_text(double(t.req_end)));
    if (t.peak_error_bytes) l.add(" (peak within +/- ").append(bytes_text(double(t.peak_error_bytes))).add(')');
    l.add('\n');
  }
  if (options.track_usable) {
    l.add("  heap usable     peak ").append(bytes_text(double(t.use_peak))).add(", at exit ")
        .append(bytes_text(double(t.use_end))).add('\n');
    if (uint64_t wrong = usable::mismatches())
      l.add("  heap usable     approximate: ").append(count_text(wrong))
          .add(" checked blocks had another usable size than their size's first block\n");
  }
  if (options.track_heap)
    l.add("  live blocks     peak ").append(count_text(uint64_t(t.blocks_peak > 0 ? t.blocks_peak : 0)))
      .add(", at exit ").append(count_text(uint64_t(t.blocks_end > 0 ? t.blocks_end : 0))).add('\n');
  if (options.track_heap && f.phase.ended_by_program) {
    l.add("  at phase end    requested ").append(bytes_text(double(f.phase.heap_req)));
    if (options.track_usable) l.add(", usable ").append(bytes_text(double(f.phase.heap_use)));
    l.add(", ").append(count_text(uint64_t(f.phase.blocks > 0 ? f.phase.blocks : 0))).add(" blocks live\n");
  }
  if (options.track_heap)
    l.add("  load average    ")
        .append(bytes_text(f.duration_ns ? f.load_total / double(f.duration_ns) : 0)).add('\n');
  l.add("  sizes          ");
  static const char* bins[] = {"<=16", "<=32", "<=48", "<=64", "<=96", "<=128", "<=256", "<=512", "<=1K", ">1K"};
  for (int b = 0; b < 10; ++b) l.add(' ').add(bins[b]).add(':').append(count_text(c.histogram()[b]));
  l.add('\n');
  l.add("  stack           main ").append(bytes_text(double(f.stacks.main_bytes)))
      .add(", deepest other thread ").append(bytes_text(double(f.stacks.thread_max_bytes)))
      .add(" (").num(f.stacks.count).add(" stacks)\n");
  if (m.valid)
    l.add("  memory          rss ").append(bytes_text(double(m.rss_kb) * 1024))
        .add(", pss ").append(bytes_text(double(m.pss_kb) * 1024))
        .add(", uss ").append(bytes_text(double(m.uss_kb) * 1024))
        .add(", peak rss ").append(bytes_text(double(m.hwm_kb) * 1024))
        .add(" (memprof itself ").append(bytes_text(double(f.self_kb) * 1024)).add(")\n");
  const introspect::AllocatorStats& a = f.phase.allocator;
  if (text::iequal(a.source, "none")) {
    l.add("  allocator       no statistics (unknown allocator)\n");
  } else if (text::iequal(a.source, "tbbmalloc")) {
    l.add("  allocator       tbbmalloc has no statistics API\n");
  } else {
    l.add("  allocator       (").add(a.source).add(") ");
    const char* names[] = {", in use ", ", cached ", ", resident ", ", mapped ", ", metadata "};
    int64_t values[] = {a.in_use, a.cached, a.resident, a.mapped, a.metadata};
    bool first = true;
    for (int i = 0; i < 5; ++i) {
      if (values[i] < 0) continue;
      l.add(first ? names[i] + 2 : names[i]).append(bytes_text(double(values[i])));
      first = false;
    }
    l.add('\n');
  }
  if (f.kernel_calls_counted) {
    l.add("  kernel calls    mmap ").append(count_text(c.kcall_mmap_count)).add(", munmap ")
        .append(count_text(c.kcall_munmap_count)).add(", mremap ").append(count_text(c.kcall_mremap_count))
        .add(", madvise dontneed ").append(count_text(c.kcall_madvise_dontneed_count)).add(" free ")
        .append(count_text(c.kcall_madvise_free_count)).add(" other ").append(count_text(c.kcall_madvise_other_count))
        .add(", brk ").append(count_text(c.kcall_brk_count)).add(" (the allocator's)\n");
    l.add("  its pages       mapped ").append(bytes_text(double(f.phase.allocator_pages.mapped_bytes)))
        .add(", resident ").append(bytes_text(double(f.phase.allocator_pages.resident_bytes))).add("; at exit ")
        .append(bytes_text(double(f.allocator_pages_at_exit.mapped_bytes))).add(", resident ")
        .append(bytes_text(double(f.allocator_pages_at_exit.resident_bytes))).add('\n');
  }
  l.write_to(2);
}

// MEMPROF_ONLY: is `program` one of the comma-separated names?
bool selected(const char* program) {
  const char* list = options.only;
  if (!*list) return true;
  size_t n = text::length(program);
  for (const char* p = list; *p;) {
    const char* end = p;
    while (*end && *end != ',') ++end;
    if (size_t(end - p) == n && text::starts_with(p, program)) return true;
    p = *end ? end + 1 : end;
  }
  return false;
}

}  // namespace

void write_final(const Phase& phase, const os_pages::Figures& allocator_pages_at_exit, int fd) {
  ThreadState& self_state = self;
  ++self_state.depth;
  Figures f{};
  f.phase = phase;
  f.allocator_pages_at_exit = allocator_pages_at_exit;
  f.kernel_calls_counted = kernel_calls::counted();
  f.totals = collect(f.phase.end_ns);
  f.stacks = threads::stacks();
  f.duration_ns = f.phase.end_ns - f.phase.begin_ns;
  // Integrated at the threads' publications, the load can dip below 0 by up
  // to slack x threads (a thread that frees others' blocks publishes before
  // they do): no heap holds less than nothing (it once wrapped to 2^64 - 4277).
  f.load_total = f.phase.load_end - f.phase.load_begin;
  if (!(f.load_total > 0)) f.load_total = 0;
  procfs::program_name(f.program, sizeof f.program);
  const void* series_base;
  uint64_t series_len = series::mapped_bytes(&series_base);
  uint64_t self_bytes = shadow::resident_bytes() + os_pages::resident_bytes();
  if (series_len) self_bytes += procfs::resident_bytes(series_base, series_len);
  f.self_kb = self_bytes / 1024;
  series::points(&f.series_points);

  if (!selected(f.program)) {
    // MEMPROF_ONLY names other programs (a wrapper script, a helper process).
  } else if (threads::forked_child()) {
    if (options.fork_report) write_text(f);
  } else if (fd >= 0) {
    write_records(fd, f);
  } else {
    write_text(f);
  }
  --self_state.depth;
}

}  // namespace memprof::report
