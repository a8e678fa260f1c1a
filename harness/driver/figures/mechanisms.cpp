// mechanisms.cpp — the figure kind "mechanisms": per workload, at its most
// threads, each allocator's time beside what it made the kernel and the TM
// runtime do, all as ratios to the reference allocator with their 95%
// intervals (mechanisms.gp: bars, a line at 1): the mechanism table of the findings
// (analysis/mechanisms.h) drawn. Kernel calls per 1,000 allocations go in the
// notes: the reference (glibc) has none measured to divide by.
#include "analysis/mechanisms.h"
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

namespace {

struct Series {
  const char* label;
  const char* key;  // nullptr: the time ratio of the cell's summary
};

const Series kSeries[] = {{"time", nullptr},
                          {"system-time share", keys::sys_share_pct},
                          {"minor page faults", keys::minor_faults_count},
                          {"voluntary switches", keys::voluntary_switches_count},
                          {"involuntary switches", keys::involuntary_switches_count},
                          {"transaction attempts", keys::tx_attempts_count}};

const char* const kKernelCalls[] = {keys::kcall_mmap_count,           keys::kcall_munmap_count,
                                    keys::kcall_mremap_count,         keys::kcall_madvise_dontneed_count,
                                    keys::kcall_madvise_free_count,   keys::kcall_madvise_other_count,
                                    keys::kcall_brk_count};

// A cell's kernel calls and allocations, each the sum of its profiled runs' medians.
struct KernelCalls {
  double calls = kNaN;  // NaN: not measured
  double allocations = 0;
  double per_thousand() const { return allocations > 0 ? 1000.0 * calls / allocations : kNaN; }
};

KernelCalls kernel_calls(const Cells& cells, const Cell& cell) {
  KernelCalls k;
  for (const char* key : kKernelCalls) {
    const std::vector<double> v = cells.values(cell, key);
    if (v.empty()) continue;
    k.calls = (std::isnan(k.calls) ? 0 : k.calls) + stats::median(v);
  }
  for (const char* key : {keys::allocs_seq_count, keys::allocs_par_count, keys::allocs_tx_count}) {
    const std::vector<double> v = cells.values(cell, key);
    if (!v.empty()) k.allocations += stats::median(v);
  }
  return k;
}

// A cell's calls per 1,000 allocations, "2.67". A count of 0 is said as the
// count, as the findings say it ("its mmap calls 0 against 8"): a rate of
// "0.00" would read as a few calls rounded away; and a rate too small for two
// decimals keeps two significant digits instead.
// `zero_against`: what a count of 0 is set against (" against jemalloc's 8"), or "".
std::string per_thousand_text(const KernelCalls& k, const std::string& zero_against) {
  if (k.calls == 0) return "0 calls" + zero_against;
  const double rate = k.per_thousand();
  return number_text(rate < 0.005 ? "%.2g" : "%.2f", rate);
}

}  // namespace

void mechanism_figures(FigureMaker& make) {
  const Cells& cells = make.view.cells;
  if (make.cells.empty()) return;
  // Every mechanism ratio is shown at the level of the folder's mechanism family (issue 49).
  const stats::FamilyCorrection mechanisms = mechanism_family(cells, make.cells.front().time_family.per_comparison);
  for (const auto& group : cells.groups) {
    const int t = make.index.top_threads(group);
    const std::string name = "mechanisms-" + group;
    const Cell* ref = t ? cells.find(group, t, cells.reference) : nullptr;
    if (!ref) {
      make.skip(file_stem(name), "no run of " + cells.reference + ", the reference, at the most threads of " + group);
      continue;
    }
    Bars bars;
    bars.errorbars = true;
    bars.refline = 1;
    std::vector<bool> used(std::size(kSeries), false);
    std::vector<std::string> per_thousand, with_zero;  // with_zero: series without a ratio, a run of a side at 0
    std::vector<std::string> untimable;                // time bars left out: too short to time, or unstable
    const KernelCalls reference_calls = kernel_calls(cells, *ref);
    const std::string zero_against =
        reference_calls.calls > 0 ? " against " + cells.reference + "'s " + mechanism_figure_text(reference_calls.calls)
                                  : "";
    for (const auto& a : make.index.allocators(group, t)) {
      if (a == cells.reference) continue;
      const CellSummary* c = make.cell(group, t, a);
      if (!c) continue;
      std::vector<Value> row;
      for (std::size_t s = 0; s < std::size(kSeries); ++s) {
        if (kSeries[s].key) {
          const std::vector<double> mine = cells.values(*c->cell, kSeries[s].key), theirs = cells.values(*ref, kSeries[s].key);
          if (!mine.empty() && !theirs.empty() && !has_ratio(mine, theirs)) {
            row.push_back(Value{});
            with_zero.push_back(a + "'s " + kSeries[s].label);
            continue;
          }
        }
        // A time the heatmap and the findings call too short or unstable is no bar here either.
        if (!kSeries[s].key && (c->standing == "too short" || c->standing == "unstable")) {
          row.push_back(Value{});
          untimable.push_back(a + " (" + c->standing + ")");
          continue;
        }
        const stats::Ratio r = kSeries[s].key ? stats::at_level(cells.ratio(*c->cell, *ref, kSeries[s].key), mechanisms.level)
                                              : c->time_vs_reference;
        row.push_back(ratio_bar(r));
        used[s] = used[s] || std::isfinite(r.value);
      }
      bars.rows.push_back(a);
      bars.values.push_back(row);
      if (const KernelCalls k = kernel_calls(cells, *c->cell); std::isfinite(k.per_thousand()))
        per_thousand.push_back(a + " " + per_thousand_text(k, zero_against));
    }
    // Only the figures some allocator has (no transactions outside TM workloads).
    for (std::size_t s = std::size(kSeries); s-- > 0;)
      if (!used[s]) {
        for (auto& row : bars.values) row.erase(row.begin() + std::ptrdiff_t(s));
      } else {
        bars.series.insert(bars.series.begin(), kSeries[s].label);
      }
    Figure f = make.figure(name,
                           "Time and its mechanisms, " + group + " at " + threads_text(t) + make.context({group}) +
                               ": ratio to " + cells.reference + ", time at " + level_text(make.cells.front().time_family) +
                               " CI, mechanisms at " + level_text(mechanisms) + " CI",
                           "For each allocator, its time and what it made the kernel and the TM runtime do, each as "
                           "the ratio of geometric means to " + cells.reference +
                               "'s with its interval at its family's level (the time ratios' and the mechanism comparisons' "
                           "of the folder, each corrected together; the line at 1 is " + cells.reference +
                               "): the system-time share of its CPU time, its minor page faults, voluntary and "
                               "involuntary context switches (the timed runs, wait4), and transaction attempts (more "
                               "attempts for the same commits: more aborts). A bar whose interval leaves 1 is a "
                               "mechanism that separates, as the report's findings name them; a figure only one side "
                               "has, or that a run of either side counted 0 (no ratio of geometric means), has no bar." + make.runs_text(true, {group}, t));
    f.group = group;
    make.note_left_out(f, group, t);
    // The reference's own where memprof sees them (every allocator but glibc), so
    // that this note and the findings, which compare them, never disagree.
    if (!per_thousand.empty()) {
      f.notes.push_back("the allocator's kernel calls (mmap, munmap, mremap, madvise, brk) per 1,000 allocations, "
                        "profiled runs' medians: " +
                        (std::isfinite(reference_calls.per_thousand())
                             ? cells.reference + " " + per_thousand_text(reference_calls, "") + ", " + joined(per_thousand)
                             : joined(per_thousand) + " (" + cells.reference +
                                   "'s are not measurable: its malloc calls the kernel out of memprof's sight)"));
    }
    if (!untimable.empty())
      f.notes.push_back("no time bar where the time is too short to time (a measured phase under " +
                        number_text("%g", kShortestTimedPhaseNs / 1e6) + " ms) or unstable (two modes), as in the time "
                        "figure: " + joined(untimable));
    if (!with_zero.empty())
      f.notes.push_back("no bar where a run of either side counted 0 (no ratio of geometric means): " + joined(with_zero));
    // Other allocators ran but gave no bar: say why, not that none ran.
    std::vector<std::string> why = untimable;
    why.insert(why.end(), with_zero.begin(), with_zero.end());
    const std::string nothing =
        bars.rows.empty() ? "no allocator besides the reference ran"
        : why.empty()     ? "no figure of the others measured against " + cells.reference
                          : "no bar to draw: no time ratio (too short to time, or unstable) and no mechanism measured "
                            "for " + joined(why);
    make.add_bars(std::move(f), bars, "ratio to " + cells.reference, nothing);
  }
}

}  // namespace allocstamp::figures
