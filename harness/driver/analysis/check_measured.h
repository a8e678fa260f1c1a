// check_measured.h — how bench check decides a measured comparison (a time,
// or memory and counts at threads > 1): the statistics behind `regressed`,
// kept apart from the cell matching in check_pairing.cpp. Every measured row of a
// check is decided together: the sweep-wide time drift and the
// false-discovery correction span them all.
#pragma once
#include <string>
#include <vector>

#include "analysis/check_types.h"

namespace allocstamp::check_measured {

// What a metric of this unit may move from a baseline of zero, where no
// percentage applies, and the floor below which memory and counts are not
// judged: 16 calls, 4 KiB, 1 ms, 1 MiB (kB figures).
double zero_baseline_limit(const std::string& metric);

// (cur - base) / |base|; +-infinity from a zero baseline.
double relative_change(double cur, double base);

// The one estimate of a side's values: the geometric mean when every value is
// positive (its test is Welch's t on the logs), else the median (the U-test).
double center(const std::vector<double>& values);

// The fewest cells a time's sweep-wide drift, its scatter between sweeps, or
// an allocator's change across every workload is estimated from.
inline constexpr std::size_t kDriftMinCells = 8;

// elapsed_ns, wall_ns and the micro-benchmarks' ns_per_op.
bool is_time(const std::string& metric);

// A measured comparison waiting for the whole check.
struct Measured {
  std::size_t row;
  std::vector<double> vb, vc;
  std::vector<double> paired_b, paired_c;  // times: log ratios to the reference, rep by rep (else empty)
  std::string family;                      // the threshold group: time, memory or deterministic
};

// Centres and change into `r`; a zero baseline within its absolute limit is
// decided here (ok). True when the row waits for decide().
bool prepare(const std::vector<double>& vb, const std::vector<double>& vc, CheckRow& r);

// Decides every waiting row (p, q, change, verdict, note); `notes` gets the drift taken out.
// Rows compared rep by rep against `reference` show each side's ratio to it.
void decide(std::vector<CheckRow>& rows, const std::vector<Measured>& measured, double alpha,
            const std::string& reference, std::vector<std::string>& notes);

}  // namespace allocstamp::check_measured
