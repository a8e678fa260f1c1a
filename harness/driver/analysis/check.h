// check.h — `bench check`, the regression gate: two runs.csv tables in, one
// verdict per cell and metric out. Deterministic metrics compare exactly, measured
// ones by threshold and Welch's t on log values (check_measured.h), so noise alone fails nothing.
// Its words are check_types.h's; the thresholds a user gives are read by
// check_rules.h, the differences between the two sides named by check_pairing.h.
#pragma once
#include <vector>

#include "analysis/check_types.h"
#include "results/micro_results.h"
#include "results/runs.h"

namespace allocstamp {

// Compares `current` with `baseline` cell by cell: a cell with its like (the
// same identity, cells.h), or one that ran differently listed as not
// comparable unless `config` allows the difference. Throws UsageError when no
// cell is on both sides or a compared value is not a number.
// With the micro-benchmarks' rows of both sides (micro.csv), each benchmark of
// a cell is compared too (metric "ns_per_op:<benchmark>": the timed runs'
// repetitions, median and U-test, under the time threshold; a benchmark on
// one side only is missing).
CheckResult compare_runs(const RunsTable& baseline, const RunsTable& current, const CheckConfig& config,
                         const std::vector<MicroRow>& baseline_micro = {}, const std::vector<MicroRow>& current_micro = {});

}  // namespace allocstamp
