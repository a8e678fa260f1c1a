// statistics — summary statistics for benchmark samples: mean, median, sample
// stddev, Student-t 95% intervals, MAD outlier detection and ratios of means.
#pragma once

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

// Two-sided 95% Student t critical value for `dof` degrees of freedom: the
// exact table for 1..30, a Cornish–Fisher expansion beyond; dof 0 -> NaN.
double t_quantile_975(std::size_t dof);

// Indices (into `values`) of outliers by the Iglewicz–Hoaglin modified
// Z-score |0.6745 * (x - median) / MAD| > threshold. NaN values are ignored;
// MAD == 0 yields no outliers.
std::vector<std::size_t> mad_outliers(std::span<const double> values,
                                      double threshold = 3.5);

struct Ratio {
  double value, ci_low, ci_high;
};

// a.mean / b.mean with an approximate 95% interval by the delta method
// (relative standard errors combined in quadrature, t with min(na, nb) - 1
// dof). The interval is NaN when either n < 2 or either mean is 0.
Ratio ratio_of_means(const Summary& a, const Summary& b);

}  // namespace allocstamp::stats
