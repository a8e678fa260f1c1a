// cell_summary.h — what each cell of a results folder says, computed once
// for the terminal's tables, summary.csv, the figures, the report and its
// findings: its time and peak RSS with their ratios to the reference and
// standings, memprof's memory, aborts, bytes per element.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "model/statistics.h"
#include "results/results_view.h"

namespace allocstamp {

// What a cell's runs say, from the one estimator (stats::log_estimate and
// log_ratio): computed once for the terminal's table, summary.csv, the
// figures, the report and its findings.
// A measured phase shorter than this gets no faster/slower standing. One
// allocator under two names, 10 runs each, 14 phases from 0.5 to 177 ms
// (docs/results.md, "Too short to time"): the paired log ratio's spread was 30%
// at 0.5 ms, 11-19% from 0.65 to 3 ms, 12-20% above; the one false "faster"
// came at 2.07 ms, and the report that asked for this floor was a 1.25 ms
// replay judged "8.157x slower". Such a cell says so and names the next size up.
inline constexpr double kShortestTimedPhaseNs = 2e6;

struct CellSummary {
  const Cell* cell = nullptr;
  std::string group, allocator;
  int threads = 0;
  int timed_runs = 0, profiled_runs = 0, simulated_runs = 0;  // ok runs of each kind
  bool time_under_memprof = false;        // the cell had no timed run: its time is the profiled runs'
  stats::LogEstimate time{};               // ns: geometric mean of the timed runs' times, 95% interval
  // Over the reference allocator's, same group and threads; its interval at
  // the time family's level (time_family: corrected for the folder's number of
  // time comparisons, issue 49); time_vs_reference_95 keeps its own 95%.
  stats::Ratio time_vs_reference{}, time_vs_reference_95{};
  // "faster" or "slower" only when the ratio's corrected interval leaves 1 out
  // (Benjamini–Hochberg selected it), else "indistinguishable"; "too short"
  // when its or the reference's measured phase is under kShortestTimedPhaseNs;
  // "unstable" when its or the reference's timed runs fall in two modes
  // (time_modes); "reference"; "" when there is no ratio.
  std::string standing;
  // The timed runs' times in two modes (stats::two_modes), if they are.
  stats::TwoModes time_modes{};
  // Where the standing is "too short": the shorter measured phase of the two
  // (the cell's or the reference's), ns; NaN otherwise.
  double short_phase_ns = NAN;
  stats::LogEstimate peak_rss_kb{};        // the timed runs' own peak RSS (wait4): geometric mean, 95% interval
  stats::Ratio memory_vs_reference{}, memory_vs_reference_95{};  // as time's, in the memory family
  std::string memory_standing;             // leaner, heavier, indistinguishable, reference, ""
  double heap_peak_bytes = NAN, rss_kb = NAN, pss_kb = NAN;  // medians over the ok profiled runs
  std::vector<double> abort_pct;           // every transactional run's abort rate (% of attempts)
  double requested_per_element = NAN, rss_per_element = NAN;  // map workloads: medians over the profiled runs
  int busy_runs = 0;                       // runs its time comes from measured on a busy machine
  // The simulated runs' estimated cycles (median) and their quotient by the
  // reference allocator's, same group and threads: a cost model shown beside
  // the time, never ranked by. NaN where there are none.
  double sim_cycles = NAN, sim_cycles_vs_reference = NAN;
  // A variant (allocator BASE:VARIANT) against its base's cell of the same group
  // and threads, as the reference above; empty standings where there is none.
  std::string base;
  // (In the time and memory families with the ratios to the reference.)
  stats::Ratio time_vs_base{NAN, NAN, NAN}, memory_vs_base{NAN, NAN, NAN};
  stats::Ratio time_vs_base_95{NAN, NAN, NAN}, memory_vs_base_95{NAN, NAN, NAN};
  std::string base_standing, base_memory_standing;
  // The base is the reference (glibc:arena1 under glibc): the ratio to the
  // base is the ratio to the reference, one comparison, counted once.
  bool base_is_reference = false;
  // The folder's two families of comparisons, the same in every cell: every
  // time ratio (to the reference, and a variant's to its base) that may claim
  // faster or slower, and every memory ratio that may claim leaner or heavier.
  stats::FamilyCorrection time_family, memory_family;
};
// In the order of the cells (groups, then threads, then allocators).
// per_comparison (--per-comparison): each interval at its own 95%, no
// correction for the number of comparisons (the families are still counted).
std::vector<CellSummary> summarize_cells(const ResultsView& view, bool per_comparison = false);

// "95%" or "99.7%": the level of a family's intervals, for a column header ("[95% CI]").
std::string level_text(const stats::FamilyCorrection& family);
// What the standings and intervals of a folder's tables mean, for every
// legend: the two families, how many each selected, and the level shown;
// "" for a folder without comparisons.
std::string standings_legend(const std::vector<CellSummary>& cells);
// The order of every table: by threads, then by the time estimate (cells
// without a time last). The ratio to the reference is the quotient of the
// same estimates, so this order is the ratios' order.
bool listed_before(const CellSummary& a, const CellSummary& b);

}  // namespace allocstamp
