// trace_stats.cpp — figures from a trace (trace_stats.h). Counts follow
// memprof's rules: realloc(p, n) with both non-zero is a realloc, not an
// allocation; libitm's own blocks (region 3) have counters of their own; the
// heap (requested bytes and live blocks) holds every block, libitm's too,
// replayed in time order with frees first at equal times.
#include "trace_stats.h"
#include "key_names.h"
#include "size_bins.h"

#include <algorithm>
#include <array>
#include <map>

namespace allocstamp::trace {
namespace {

// The keys of each region (seq, par, tx) and of each size bin, in keys.def's order.
constexpr const char* kAllocsBy[] = {keys::allocs_seq_count, keys::allocs_par_count, keys::allocs_tx_count};
constexpr const char* kFreesBy[] = {keys::frees_seq_count, keys::frees_par_count, keys::frees_tx_count};
constexpr const char* kRequestedBy[] = {keys::requested_seq_bytes, keys::requested_par_bytes, keys::requested_tx_bytes};
constexpr const char* kSizeBins[size_bins::kCount] = {
    keys::size_le16_count,  keys::size_le32_count,  keys::size_le48_count,   keys::size_le64_count,
    keys::size_le96_count,  keys::size_le128_count, keys::size_le256_count,  keys::size_le512_count,
    keys::size_le1024_count, keys::size_gt1024_count};
constexpr const char* kTmSizeBins[size_bins::kCount] = {
    keys::tm_internal_size_le16_count,   keys::tm_internal_size_le32_count,  keys::tm_internal_size_le48_count,
    keys::tm_internal_size_le64_count,   keys::tm_internal_size_le96_count,  keys::tm_internal_size_le128_count,
    keys::tm_internal_size_le256_count,  keys::tm_internal_size_le512_count, keys::tm_internal_size_le1024_count,
    keys::tm_internal_size_gt1024_count};

unsigned size_bin(uint64_t n) { return size_bins::bin_of(n); }

struct HeapStep {
  uint64_t time;
  int64_t bytes, blocks;
};

bool is_free_call(const Call& c) {
  return c.op == kFree || c.op == kDelete || c.op == kDeleteArray || c.op == kDeleteAligned ||
         c.op == kDeleteArrayAligned;
}

// The calls counted by memprof's rules, and each one's step of the heap.
struct CallCounts {
  std::array<uint64_t, 3> allocs{}, frees{}, requested{};
  std::array<uint64_t, 10> bins{}, tm_bins{};
  uint64_t reallocs = 0, moves = 0, failed = 0, untracked_frees = 0, tm_allocs = 0, tm_frees = 0, tm_bytes = 0;
  std::vector<HeapStep> steps;  // in time order, frees first at equal times
};

CallCounts count_calls(const Trace& trace) {
  CallCounts n;
  std::vector<uint64_t> size_of(trace.blocks + 1, 0);
  // Sizes first: a block may be freed by a thread listed before its maker's.
  for (const ThreadCalls& t : trace.threads)
    for (const Call& c : t.calls)
      if (c.id != 0 && !c.failed && !is_free_call(c)) size_of[c.id] = c.size;

  for (const ThreadCalls& t : trace.threads) {
    for (const Call& c : t.calls) {
      const bool libitm = c.region == 3;
      const unsigned r = c.region < 3 ? c.region : 0;
      if (c.failed) {
        ++n.failed;
        continue;
      }
      if (c.op == kRealloc) {
        if (libitm) {
          n.tm_bytes += c.size;
        } else {
          ++n.reallocs;
          n.requested[r] += c.size;
          if (c.moved) ++n.moves;
        }
        if (c.old_id) n.steps.push_back({c.start_ns, -int64_t(size_of[c.old_id]), -1});
        n.steps.push_back({c.time_ns, int64_t(c.size), 1});
        continue;
      }
      if (is_free_call(c)) {
        if (c.unknown || c.id == 0) {
          ++n.untracked_frees;
          continue;
        }
        if (libitm) ++n.tm_frees;
        else ++n.frees[r];
        n.steps.push_back({c.time_ns, -int64_t(size_of[c.id]), -1});
        continue;
      }
      if (libitm) {
        ++n.tm_allocs;
        n.tm_bytes += c.size;
        ++n.tm_bins[size_bin(c.size)];
      } else {
        ++n.allocs[r];
        n.requested[r] += c.size;
        ++n.bins[size_bin(c.size)];
      }
      n.steps.push_back({c.time_ns, int64_t(c.size), 1});
    }
  }
  std::stable_sort(n.steps.begin(), n.steps.end(), [](const HeapStep& a, const HeapStep& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.blocks < b.blocks;  // frees first at equal times
  });
  return n;
}

// The heap replayed: its peak and end, its state at the measured phase's end,
// and the load (live bytes × time) inside the phase.
struct HeapFigures {
  int64_t bytes = 0, blocks = 0, peak_bytes = 0, peak_blocks = 0, phase_bytes = 0, phase_blocks = 0;
  long double load = 0;
  uint64_t phase_ns = 0;
};

HeapFigures replay_heap(const std::vector<HeapStep>& steps, const Trace& trace) {
  // The measured phase as memprof took it (trace_reader.h): the heap at its
  // end, and the load (live bytes × time) between its begin and its end.
  const uint64_t phase_begin = trace.phase_begin_ns, phase_end = trace.phase_end_ns;
  HeapFigures h;
  uint64_t last = 0;
  bool phase_taken = false;
  // The load of `bytes` live from `last` to `until`, the part inside the phase.
  auto add_load = [&](uint64_t until) {
    const uint64_t from = std::max(last, phase_begin), to = std::min(until, phase_end);
    if (to > from) h.load += (long double)h.bytes * (long double)(to - from);
  };
  for (const HeapStep& s : steps) {
    if (!phase_taken && s.time > phase_end) {
      h.phase_bytes = h.bytes, h.phase_blocks = h.blocks, phase_taken = true;
    }
    add_load(s.time);
    last = s.time;
    h.bytes += s.bytes;
    h.blocks += s.blocks;
    h.peak_bytes = std::max(h.peak_bytes, h.bytes);
    h.peak_blocks = std::max(h.peak_blocks, h.blocks);
  }
  if (!phase_taken) h.phase_bytes = h.bytes, h.phase_blocks = h.blocks;
  add_load(std::max(trace.duration_ns, phase_end));
  h.phase_ns = phase_end > phase_begin ? phase_end - phase_begin : 0;
  return h;
}

// Threads alive at once, from their starts and ends.
int threads_alive_peak(const Trace& trace) {
  std::vector<std::pair<uint64_t, int>> lives;
  for (const ThreadCalls& t : trace.threads) {
    lives.push_back({t.start_ns, 1});
    if (t.ended) lives.push_back({t.end_ns, -1});
  }
  std::sort(lives.begin(), lives.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  int alive = 0, alive_peak = 0;
  for (auto& [time, d] : lives) alive_peak = std::max(alive_peak, alive += d);
  return alive_peak;
}

}  // namespace

bool is_exact_figure(const std::string& key) { return !keys::approximate_in_trace(key); }

Figures compute_figures(const Trace& trace) {
  const CallCounts n = count_calls(trace);
  const HeapFigures h = replay_heap(n.steps, trace);
  Figures f;
  f.emplace_back(keys::threads_peak_count, uint64_t(threads_alive_peak(trace)));
  for (int r = 0; r < 3; ++r) f.emplace_back(kAllocsBy[r], n.allocs[r]);
  for (int r = 0; r < 3; ++r) f.emplace_back(kFreesBy[r], n.frees[r]);
  for (int r = 0; r < 3; ++r) f.emplace_back(kRequestedBy[r], n.requested[r]);
  f.emplace_back(keys::reallocs_count, n.reallocs);
  f.emplace_back(keys::realloc_moves_count, n.moves);
  f.emplace_back(keys::allocs_failed_count, n.failed);
  f.emplace_back(keys::frees_untracked_count, n.untracked_frees);
  f.emplace_back(keys::allocs_tm_internal_count, n.tm_allocs);
  f.emplace_back(keys::frees_tm_internal_count, n.tm_frees);
  f.emplace_back(keys::requested_tm_internal_bytes, n.tm_bytes);
  for (unsigned b = 0; b < size_bins::kCount; ++b) f.emplace_back(kTmSizeBins[b], n.tm_bins[b]);
  for (unsigned b = 0; b < size_bins::kCount; ++b) f.emplace_back(kSizeBins[b], n.bins[b]);
  f.emplace_back(keys::heap_requested_peak_bytes, uint64_t(h.peak_bytes));
  f.emplace_back(keys::heap_requested_end_bytes, uint64_t(h.bytes));
  f.emplace_back(keys::live_blocks_peak_count, uint64_t(h.peak_blocks));
  f.emplace_back(keys::live_blocks_end_count, uint64_t(h.blocks));
  f.emplace_back(keys::heap_requested_phase_end_bytes, uint64_t(h.phase_bytes));
  f.emplace_back(keys::live_blocks_phase_end_count, uint64_t(h.phase_blocks));
  // A day with gigabytes live passes 2^64 byte·ns: the figure stops there (a
  // cast past it would be undefined); memprof's record keeps the double.
  f.emplace_back(keys::load_total_byte_ns, h.load < 18446744073709551616.0 ? uint64_t(h.load) : UINT64_MAX);
  f.emplace_back(keys::load_avg_bytes, h.phase_ns ? uint64_t(h.load / h.phase_ns) : 0);
  f.emplace_back(keys::duration_ns, h.phase_ns);
  return f;
}

}  // namespace allocstamp::trace
