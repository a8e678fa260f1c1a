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

}  // namespace

bool is_exact_figure(const std::string& key) { return !keys::approximate_in_trace(key); }

Figures compute_figures(const Trace& trace) {
  std::array<uint64_t, 3> allocs{}, frees{}, requested{};
  std::array<uint64_t, 10> bins{}, tm_bins{};
  uint64_t reallocs = 0, moves = 0, failed = 0, untracked_frees = 0, tm_allocs = 0, tm_frees = 0, tm_bytes = 0;
  std::vector<uint64_t> size_of(trace.blocks + 1, 0);
  std::vector<HeapStep> steps;

  // Sizes first: a block may be freed by a thread listed before its maker's.
  for (const ThreadCalls& t : trace.threads)
    for (const Call& c : t.calls)
      if (c.id != 0 && !c.failed && c.op != kFree && c.op != kDelete && c.op != kDeleteArray &&
          c.op != kDeleteAligned && c.op != kDeleteArrayAligned)
        size_of[c.id] = c.size;

  for (const ThreadCalls& t : trace.threads) {
    for (const Call& c : t.calls) {
      const bool libitm = c.region == 3;
      const unsigned r = c.region < 3 ? c.region : 0;
      if (c.failed) {
        ++failed;
        continue;
      }
      if (c.op == kRealloc) {
        if (libitm) {
          tm_bytes += c.size;
        } else {
          ++reallocs;
          requested[r] += c.size;
          if (c.moved) ++moves;
        }
        if (c.old_id) steps.push_back({c.start_ns, -int64_t(size_of[c.old_id]), -1});
        steps.push_back({c.time_ns, int64_t(c.size), 1});
        continue;
      }
      const bool is_free = c.op == kFree || c.op == kDelete || c.op == kDeleteArray || c.op == kDeleteAligned ||
                           c.op == kDeleteArrayAligned;
      if (is_free) {
        if (c.unknown || c.id == 0) {
          ++untracked_frees;
          continue;
        }
        if (libitm) ++tm_frees;
        else ++frees[r];
        steps.push_back({c.time_ns, -int64_t(size_of[c.id]), -1});
        continue;
      }
      if (libitm) {
        ++tm_allocs;
        tm_bytes += c.size;
        ++tm_bins[size_bin(c.size)];
      } else {
        ++allocs[r];
        requested[r] += c.size;
        ++bins[size_bin(c.size)];
      }
      steps.push_back({c.time_ns, int64_t(c.size), 1});
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const HeapStep& a, const HeapStep& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.blocks < b.blocks;  // frees first at equal times
  });
  // The measured phase as memprof took it (trace_reader.h): the heap at its
  // end, and the load (live bytes × time) between its begin and its end.
  const uint64_t phase_begin = trace.phase_begin_ns, phase_end = trace.phase_end_ns;
  int64_t bytes = 0, blocks = 0, peak_bytes = 0, peak_blocks = 0, phase_bytes = 0, phase_blocks = 0;
  long double load = 0;
  uint64_t last = 0;
  bool phase_taken = false;
  // The load of `bytes` live from `last` to `until`, the part inside the phase.
  auto add_load = [&](uint64_t until) {
    const uint64_t from = std::max(last, phase_begin), to = std::min(until, phase_end);
    if (to > from) load += (long double)bytes * (long double)(to - from);
  };
  for (const HeapStep& s : steps) {
    if (!phase_taken && s.time > phase_end) {
      phase_bytes = bytes, phase_blocks = blocks, phase_taken = true;
    }
    add_load(s.time);
    last = s.time;
    bytes += s.bytes;
    blocks += s.blocks;
    peak_bytes = std::max(peak_bytes, bytes);
    peak_blocks = std::max(peak_blocks, blocks);
  }
  if (!phase_taken) phase_bytes = bytes, phase_blocks = blocks;
  add_load(std::max(trace.duration_ns, phase_end));
  const uint64_t phase_ns = phase_end > phase_begin ? phase_end - phase_begin : 0;

  // Threads alive at once, from their starts and ends.
  std::vector<std::pair<uint64_t, int>> lives;
  for (const ThreadCalls& t : trace.threads) {
    lives.push_back({t.start_ns, 1});
    if (t.ended) lives.push_back({t.end_ns, -1});
  }
  std::sort(lives.begin(), lives.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  int alive = 0, alive_peak = 0;
  for (auto& [time, d] : lives) alive_peak = std::max(alive_peak, alive += d);

  Figures f;
  f.emplace_back(keys::threads_peak_count, uint64_t(alive_peak));
  for (int r = 0; r < 3; ++r) f.emplace_back(kAllocsBy[r], allocs[r]);
  for (int r = 0; r < 3; ++r) f.emplace_back(kFreesBy[r], frees[r]);
  for (int r = 0; r < 3; ++r) f.emplace_back(kRequestedBy[r], requested[r]);
  f.emplace_back(keys::reallocs_count, reallocs);
  f.emplace_back(keys::realloc_moves_count, moves);
  f.emplace_back(keys::allocs_failed_count, failed);
  f.emplace_back(keys::frees_untracked_count, untracked_frees);
  f.emplace_back(keys::allocs_tm_internal_count, tm_allocs);
  f.emplace_back(keys::frees_tm_internal_count, tm_frees);
  f.emplace_back(keys::requested_tm_internal_bytes, tm_bytes);
  for (unsigned b = 0; b < size_bins::kCount; ++b) f.emplace_back(kTmSizeBins[b], tm_bins[b]);
  for (unsigned b = 0; b < size_bins::kCount; ++b) f.emplace_back(kSizeBins[b], bins[b]);
  f.emplace_back(keys::heap_requested_peak_bytes, uint64_t(peak_bytes));
  f.emplace_back(keys::heap_requested_end_bytes, uint64_t(bytes));
  f.emplace_back(keys::live_blocks_peak_count, uint64_t(peak_blocks));
  f.emplace_back(keys::live_blocks_end_count, uint64_t(blocks));
  f.emplace_back(keys::heap_requested_phase_end_bytes, uint64_t(phase_bytes));
  f.emplace_back(keys::live_blocks_phase_end_count, uint64_t(phase_blocks));
  // A day with gigabytes live passes 2^64 byte·ns: the figure stops there (a
  // cast past it would be undefined); memprof's record keeps the double.
  f.emplace_back(keys::load_total_byte_ns, load < 18446744073709551616.0 ? uint64_t(load) : UINT64_MAX);
  f.emplace_back(keys::load_avg_bytes, phase_ns ? uint64_t(load / phase_ns) : 0);
  f.emplace_back(keys::duration_ns, phase_ns);
  return f;
}

}  // namespace allocstamp::trace
