// statistics — summary statistics for benchmark samples: mean, median, sample
// stddev, Student-t 95% intervals, MAD outlier detection, the one estimator of
// the tables (geometric means and their ratios, with intervals on the logs), and
// the Mann-Whitney U-test that `bench check` uses to tell a change from noise,
// and the median's order-statistic interval that `bench overhead` reports.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace allocstamp::stats {

struct Summary {
  std::size_t n;
  double mean, median, stddev, ci_low, ci_high;
};

// NaN values are ignored. n == 0: every field NaN. n == 1: stddev 0 and a
// NaN interval. Otherwise the two-pass sample stddev (divisor n - 1) and the
// interval mean ± t(0.975, n - 1) * stddev / sqrt(n).
Summary summarize(std::span<const double> values);
// The median of the values that are not NaN (NaN when none): summarize's.
double median(std::span<const double> values);

// Two-sided 95% Student t critical value for `dof` degrees of freedom
// (Boost.Math's Student t quantile); dof 0 -> NaN.
double t_quantile_975(std::size_t dof);

// Indices (into `values`) of outliers by the Iglewicz–Hoaglin modified
// Z-score |0.6745 * (x - median) / MAD| > threshold. NaN values are ignored;
// MAD == 0 yields no outliers.
std::vector<std::size_t> mad_outliers(std::span<const double> values,
                                      double threshold = 3.5);

// Two modes in a cell's times: the sorted values split at their widest gap
// (on the log scale) into a low and a high group of two values or more each,
// the gap at least 3 times the wider group's own spread and the two groups'
// centres at least 1.25 times apart. A cell whose timed runs alternate
// between, say, 15-18 ms and 26-31 ms whatever the allocator (a machine's
// artefact) has no single time to rank by. Fewer than 5 values: none found.
struct TwoModes {
  bool found = false;
  double low_min = NAN, low_max = NAN, high_min = NAN, high_max = NAN;
  int n_low = 0, n_high = 0;
};
TwoModes two_modes(std::span<const double> values);

struct Ratio {
  double value, ci_low, ci_high;  // the interval at `level`
  double level = 0.95;            // the interval's coverage (a family's correction may raise it: at_level)
  double p = NAN;                 // two-sided p of "the ratio is 1" (the t test behind the interval); NaN without one
  double log_se = NAN;            // standard error of the log ratio; 0 when the runs do not vary
  double dof = NAN;               // the t distribution's degrees of freedom
};


// The one estimator of allocstamp's tables, figures, findings and check: a
// sample's centre is its geometric mean, with the 95% Student t interval of
// the mean of its logs mapped back. Ratios of two centres are then exactly
// the order of the centres (exp is monotonic), so a table sorted by centre
// never lists A before B while A's ratio says it is slower. Times and memory
// are positive and multiplicative (a change is a ratio), which logs suit.
struct LogEstimate {
  std::size_t n;         // positive values used
  double log_mean;       // mean of the logs (NaN when n == 0)
  double center;         // exp(log_mean): the geometric mean
  double low, high;      // its 95% interval; NaN when n < 2
};
// NaN and values <= 0 are ignored (a time or a size of 0 has no log).
LogEstimate log_estimate(std::span<const double> values);

// One value of a cell's run with its repetition, for pairing.
struct Sample {
  long rep;
  double value;
};

// a over b from two log estimates: exp(a.log_mean - b.log_mean) — exactly the
// ratio of the centres — with a 95% interval from the logs: paired by
// repetition when both have the same repetitions, at least two (the
// interleaved sweep ran rep k of every allocator side by side, so drift
// cancels: t on the differences), else Welch's. NaN interval when either has
// fewer than two values.
Ratio log_ratio(std::span<const Sample> a, std::span<const Sample> b);

// "below", "above" or "within": where 1 lies against the ratio's interval
// ("" without an interval). Below 1 (the interval's top under 1) is faster
// or leaner.
const char* ratio_side(const Ratio& r);
// The same ratio with its interval at `level` instead (from its standard error
// and degrees of freedom); unchanged where it has no interval.
Ratio at_level(const Ratio& r, double level);

struct UTest {
  double u;     // U of the first sample: pairs (x, y) with x > y, ties counting 1/2
  double p;     // two-sided p-value; NaN when a sample is empty
  bool exact;   // p from the exact distribution of U (else the normal approximation)
};

// Two-sided Mann-Whitney U-test of x against y (NaN values ignored). Exact p
// (the distribution of U counted by dynamic programming) when both samples
// have at most 20 values and there are no ties; with ties, exact over every
// split of the pooled mid-ranks while there are at most 200,000 (e.g. 10 vs 10);
// otherwise the normal approximation with tie and continuity corrections.
UTest mann_whitney(std::span<const double> x, std::span<const double> y);

// The smallest two-sided p the test can give for samples of n1 and n2 values
// (fully separated samples, no ties): 2 / C(n1 + n2, n1), at most 1.
double mann_whitney_min_p(std::size_t n1, std::size_t n2);

// The exact two-sided sign test: of `up` + `down` paired changes (zeros
// left out), the probability under a median change of 0 of a split at least
// as uneven; 1 when there is none.
double sign_test_p(std::size_t up, std::size_t down);

struct WelchTest {
  double t;    // (mean of y - mean of x) / its standard error
  double dof;  // Welch–Satterthwaite degrees of freedom
  double p;    // two-sided p-value; NaN when a sample has fewer than 2 values
};

// A variance of the difference of means that the two samples' own spread
// does not show, estimated elsewhere with `dof` degrees of freedom: e.g. the
// scatter between two sweeps of a cell whose repetitions ran together, so
// that they share the moment's load (bench check estimates it from the other
// cells). Added to the standard error; the degrees of freedom combine by
// Welch–Satterthwaite. `tail_dof` caps the test's degrees of freedom: a
// scatter with heavier tails than a normal one (bench check: between two
// sweeps a cell can switch mode, 2x with tight repetitions a side), read as
// Student's t with that many degrees of freedom at most. The default adds nothing.
struct ExtraVariance {
  double variance = 0.0;
  double dof = INFINITY;
  double tail_dof = INFINITY;
};

// Welch's two-sample t-test of y against x (unequal variances; NaN values
// ignored), with `extra` added to the variance of the difference. Two samples
// with no spread at all and no extra: p 1 when their means agree, 0 when they
// differ.
WelchTest welch(std::span<const double> x, std::span<const double> y, ExtraVariance extra = {});

// The smallest true difference of means (y's over x's, in their units: for
// logs, a log ratio) that Welch's test of samples with x's and y's sizes and
// spread detects with probability `power` at two-sided level `alpha`:
// (t(1 - alpha/2) + t(power)) × the standard error, at the Welch–Satterthwaite
// degrees of freedom. 0 when neither sample has any spread; NaN when either
// has fewer than 2 values.
// `extra` as for welch().
double welch_detectable(std::span<const double> x, std::span<const double> y, double alpha, double power = 0.8,
                        ExtraVariance extra = {});

// Benjamini–Hochberg adjusted p-values (q-values), in the input's order: a
// hypothesis whose q is below alpha is rejected with the false discovery rate
// over all of them held at alpha. NaN entries are left out of the family and
// stay NaN.
std::vector<double> benjamini_hochberg(std::span<const double> p);

// A family of comparisons corrected together (issue 49): Benjamini–Hochberg
// at q selects R of the m comparisons that have a p; every interval of the
// family is then shown at Benjamini–Yekutieli's false-coverage level
// 1 − q·R/m (Bonferroni's 1 − q/m when R = 0), at which an interval leaves 1
// out exactly where the comparison was selected. One comparison: 95%, as
// uncorrected.
struct FamilyCorrection {
  std::size_t m = 0;         // comparisons with a p
  std::size_t selected = 0;  // R
  double q = 0.05;
  double level = 0.95;       // the level every interval of the family is shown at
  bool per_comparison = false;  // left uncorrected (--per-comparison): each interval its own 95%
};
// Corrects the ratios in place (their intervals and levels); per_comparison:
// leaves each at its own 95% and says so (level 0.95, m and R still counted).
FamilyCorrection correct_family(std::span<Ratio* const> ratios, double q = 0.05, bool per_comparison = false);

struct MedianInterval {
  double low, high;  // order statistics of the values
  double coverage;   // the probability that they hold the true median
};

// A distribution-free confidence interval for the median: the k-th lowest and
// k-th highest values, with the largest k whose coverage (from the binomial
// distribution) is at least `level`; with too few values for `level`, the
// whole range and its lower coverage. NaN values are ignored; none: NaN.
MedianInterval median_interval(std::span<const double> values, double level = 0.95);

}  // namespace allocstamp::stats
