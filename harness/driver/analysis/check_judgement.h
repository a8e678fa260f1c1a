// check_judgement.h — bench check's decision for each row of a pair of cells:
// the runs' status, then every compared metric by its rule (exact, against
// the range the baseline's allocators span, against its repeatability, or
// measured: left to check_measured::decide, which corrects the p-values over
// the whole check), then the micro-benchmarks; and after the decision, what
// a busy machine and the measured mechanisms add to a time's verdict.
#pragma once
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check_types.h"
#include "analysis/check_measured.h"
#include "analysis/check_pairing.h"
#include "analysis/check_rules.h"

namespace allocstamp::check_judgement {

// What every row of a check is judged against.
struct Judging {
  const CheckConfig& config;
  const check_pairing::Side& base;
  const check_pairing::Side& cur;
  const std::vector<const check_rules::MetricRule*>& metrics;  // in both tables
  const std::string& reference;  // times of the other allocators are compared as ratios to this one, rep by rep
  double time_threshold;         // the micro-benchmarks'
};

// What judging the rows gathers for the check's warnings and notes, and the
// measured rows waiting for check_measured::decide.
struct Tally {
  std::size_t absent = 0;            // cells of the baseline not in the current runs
  std::size_t skipped_measured = 0;  // --deterministic-only
  std::size_t kernel_other_library = 0, kernel_one_rep = 0;
  std::map<std::pair<std::size_t, std::size_t>, std::set<std::string>> too_few;  // (n_base, n_cur) -> cells
  std::set<std::string> missing_micro;  // the baseline's micro-benchmarks a current cell lacks
  std::vector<std::string> busy_base, busy_cur;
  std::vector<check_measured::Measured> measured;
};

// A cell on one side only: missing (counted in `tally` when the current side lacks it) or new.
CheckRow one_sided_row(const check_pairing::Pair& pair, Tally& tally);

// A pair that ran differently in a way the config does not allow: listed,
// never compared (each difference in result.not_comparable).
CheckRow not_comparable_row(const check_pairing::Pair& pair, const std::string& ran_differently,
                            const CheckConfig& config, CheckResult& result);

// Runs that fail now and did not before fail the check; failures on both
// sides are not news.
CheckRow judge_status(const CellId& cell, const Cell& b, const Cell& c);

// Each metric of j.metrics for a pair of cells that are both on their sides
// and have ok runs, a row each into result.rows (none for a metric neither
// side measured); `allowed_note` says how they ran differently, as allowed.
void judge_metrics(const Judging& j, const check_pairing::Pair& pair, const std::string& allowed_note,
                   CheckResult& result, Tally& tally);

// The cell's micro-benchmarks, each under the time threshold; one on a side
// only is missing, as a metric would be (a benchmark dropped from the current
// micro.csv fails --fail-on-missing).
void judge_micro(const Judging& j, const check_pairing::MicroSamples& base_micro,
                 const check_pairing::MicroSamples& cur_micro, const Cell& b, const Cell& c, CheckResult& result,
                 Tally& tally);

// A time that moved while the machine was busy says more about the machine:
// unless --trust-busy, regressed or improved becomes suspect. Returns how many did.
std::size_t busy_as_suspect(std::vector<CheckRow>& rows, const CheckConfig& config);

// A time that moved comes with what moved with it, as far as it was measured.
void add_mechanisms(std::vector<CheckRow>& rows, const check_pairing::Side& base, const check_pairing::Side& cur);

}  // namespace allocstamp::check_judgement
