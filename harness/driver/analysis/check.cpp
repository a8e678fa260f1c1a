// check.cpp — `bench check`'s comparison (check.h) as a composition of its
// steps: the metrics both sides carry (check_rules), the cells paired
// (check_pairing), each pair's rows judged (check_judgement), the measured
// ones decided together (check_measured), and the warnings and notes that
// say what the rows leave out. What is shown is output/check_report.*.
#include "analysis/check.h"

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check_allocator_wide.h"
#include "analysis/check_judgement.h"
#include "analysis/check_measured.h"
#include "analysis/check_pairing.h"
#include "analysis/check_rules.h"
#include "model/errors.h"
#include "key_names.h"

namespace allocstamp {

namespace {

using check_judgement::Tally;
using check_pairing::Pair;
using check_pairing::Side;

// A side older than schema 4 lacks what pairs cells beyond their names.
void note_unrecorded_setups(const Side& base, const Side& cur, std::vector<std::string>& notes) {
  for (const auto& [side, table] : {std::pair{"baseline", base.table}, std::pair{"current runs", cur.table}})
    if (!table->has(keys::args) && (base.table->has(keys::args) || cur.table->has(keys::args)))
      notes.push_back(std::string("the ") + side + " (" + table->source +
                      ") is older than schema 4: it does not record the workloads' arguments, environment "
                      "and allocator libraries, so cells are paired by name alone");
}

// Names joined by ", ".
template <class Names>
std::string joined(const Names& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

void add_warnings(CheckResult& result, const Tally& tally, std::size_t suspect, const CheckConfig& config) {
  if (tally.absent > 0)
    result.warnings.push_back(std::to_string(tally.absent) + " cell(s) of the baseline are not in the current runs (verdict missing" +
                              (config.fail_on_missing ? ", which fails the check)" : "; --fail-on-missing makes that fail)"));
  if (!tally.missing_micro.empty())
    result.warnings.push_back(std::to_string(tally.missing_micro.size()) +
                              " micro-benchmark(s) of the baseline are not in the current micro.csv (verdict missing" +
                              (config.fail_on_missing ? ", which fails the check): " : "; --fail-on-missing makes that fail): ") +
                              joined(tally.missing_micro));
  for (const auto& [side, busy] : {std::pair{"baseline", &tally.busy_base}, std::pair{"current runs", &tally.busy_cur}})
    if (!busy->empty())
      result.warnings.push_back(std::to_string(busy->size()) + " cell(s) of the " + side +
                                " were measured on a busy machine (other processes used more than a quarter of the "
                                "CPU, or the hypervisor stole more than a tenth): their times are suspect: " +
                                joined(*busy));
  for (const auto& [sizes, cells] : tally.too_few)
    result.warnings.push_back(std::to_string(cells.size()) + " cell(s) have " + std::to_string(sizes.first) + " vs " +
                              std::to_string(sizes.second) +
                              " repetitions: a side with one value has no spread to test against, so no change there "
                              "is significant: a time is undecided, memory and counts at worst noisy; run both with "
                              "--reps and --profile-reps 2 or more (5 or more to see changes of 10-20%)");
  if (suspect > 0)
    result.warnings.push_back(std::to_string(suspect) + " time(s) moved beyond their threshold on a busy machine: "
                              "suspect, not regressed or improved (rerun on an idle machine, or --trust-busy)");
}

void add_notes(CheckResult& result, const Tally& tally, const CheckConfig& config) {
  if (tally.skipped_measured > 0)
    result.notes.push_back("--deterministic-only: " + std::to_string(tally.skipped_measured) +
                           " comparison(s) not made: times, memory, counts at threads > 1, peaks of workers that ran "
                           "side by side, and peaks whose baseline repetitions differ (simulated figures and kernel "
                           "counts are compared)");
  if (!result.unrepeatable_in_baseline.empty()) {
    std::string list;
    int cells = 0;
    for (const auto& [what, n] : result.unrepeatable_in_baseline) {
      list += (list.empty() ? "" : ", ") + what + " (" + std::to_string(n) + ")";
      cells += n;
    }
    result.notes.push_back(std::to_string(cells) + " deterministic figure(s) at one thread whose baseline repetitions "
                           "differ (peaks that race), " + (config.deterministic_only ? "not compared" :
                           "compared as measured") + ": " + list);
  }
  if (!result.kernel_not_compared.empty())
    result.notes.push_back("kernel counts (minor faults, the allocator's kernel calls) not compared: " +
                           result.kernel_not_compared + ", and both depend on it");
  if (tally.kernel_other_library > 0)
    result.notes.push_back(std::to_string(tally.kernel_other_library) +
                           " kernel count(s) not compared: the allocator's library or tuning differs (allowed), and "
                           "its kernel calls and page faults are its own");
  if (tally.kernel_one_rep > 0)
    result.notes.push_back(std::to_string(tally.kernel_one_rep) +
                           " kernel count(s) not compared: workers ran side by side, and a side has one repetition, "
                           "so no spread to judge them by (--reps and --profile-reps 2 or more)");
}

}  // namespace

CheckResult compare_runs(const RunsTable& baseline, const RunsTable& current, const CheckConfig& config,
                         const std::vector<MicroRow>& baseline_micro, const std::vector<MicroRow>& current_micro) {
  const Side base{&baseline, cells_of(baseline)}, cur{&current, cells_of(current)};
  CheckResult result;
  const check_pairing::MicroSamples base_micro = check_pairing::micro_by_cell(base, baseline_micro),
                                    cur_micro = check_pairing::micro_by_cell(cur, current_micro);
  const std::vector<const check_rules::MetricRule*> metrics =
      check_rules::compared_metrics(baseline, current, result.warnings);
  note_unrecorded_setups(base, cur, result.notes);
  // Kernel counts depend on the kernel and its huge-page mode: compared only
  // between sweeps on the same.
  result.kernel_not_compared = check_pairing::kernel_difference(baseline, current);
  const check_judgement::Judging judging{config, base, cur, metrics, cur.cells.reference,
                                         check_rules::time_threshold(config)};
  Tally tally;
  for (const Pair& pair : check_pairing::pair_cells(base, cur)) {
    if (!pair.base || !pair.cur) {
      result.rows.push_back(check_judgement::one_sided_row(pair, tally));
      continue;
    }
    const check_pairing::RanDifferently differently = check_pairing::ran_differently(pair, config);
    if (!differently.allowed) {
      result.rows.push_back(check_judgement::not_comparable_row(pair, differently.text, config, result));
      continue;
    }
    const Cell& b = *pair.base;
    const Cell& c = *pair.cur;
    ++result.cells_compared;
    if (base.cells.busy_runs(b)) tally.busy_base.push_back(cell_label(b.id));
    if (cur.cells.busy_runs(c)) tally.busy_cur.push_back(cell_label(c.id));
    const std::string allowed_note = differently.text.empty() ? "" : "ran differently (allowed): " + differently.text;
    CheckRow status = check_judgement::judge_status(c.id, b, c);
    if (!allowed_note.empty()) status.note = status.note.empty() ? allowed_note : status.note + "; " + allowed_note;
    result.rows.push_back(std::move(status));
    if (b.ok.empty() || c.ok.empty()) continue;
    check_judgement::judge_metrics(judging, pair, allowed_note, result, tally);
    if (!config.deterministic_only) check_judgement::judge_micro(judging, base_micro, cur_micro, b, c, result, tally);
  }

  check_measured::decide(result.rows, tally.measured, config.alpha, judging.reference, result.notes);
  check_allocator_wide::add(result.rows, judging.reference, config.alpha, check_measured::kDriftMinCells, result.notes);
  const std::size_t suspect = check_judgement::busy_as_suspect(result.rows, config);
  check_judgement::add_mechanisms(result.rows, base, cur);
  if (result.cells_compared == 0 && result.not_comparable.empty())
    throw UsageError("no cell (workload, app, size, allocator, tm, threads) is in both " + baseline.source + " and " +
                         current.source,
                     "compare runs of the same workloads, sizes, allocators and thread counts");
  add_warnings(result, tally, suspect, config);
  add_notes(result, tally, config);
  return result;
}

}  // namespace allocstamp
