// statistics — implementation of the pure summary-statistics helpers used to
// report benchmark results (see statistics.h).
#include "statistics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace allocstamp::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Finite values of `values`, in their original order.
std::vector<double> finite_values(std::span<const double> values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values)
    if (!std::isnan(v)) out.push_back(v);
  return out;
}

// Median of a non-empty vector; reorders it.
double median_of(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return lower + (upper - lower) / 2.0;
}

}  // namespace

double t_quantile_975(std::size_t dof) {
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return kNaN;
  if (dof <= kTable.size()) return kTable[dof - 1];
  // Cornish–Fisher expansion of the t quantile around the normal quantile
  // z = 1.959964; error below 1e-5 for dof > 30.
  const double z = 1.959963984540054;
  const double z2 = z * z;
  const double z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double v = static_cast<double>(dof);
  return z + (z3 + z) / (4.0 * v) +
         (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v) +
         (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v) +
         (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) /
             (92160.0 * v * v * v * v);
}

Summary summarize(std::span<const double> values) {
  std::vector<double> v = finite_values(values);
  const std::size_t n = v.size();
  if (n == 0) return {0, kNaN, kNaN, kNaN, kNaN, kNaN};

  // Pass one: the mean.
  double sum = 0.0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(n);

  // Pass two: squared deviations from that mean.
  double stddev = 0.0;
  if (n > 1) {
    double ss = 0.0;
    for (double x : v) ss += (x - mean) * (x - mean);
    stddev = std::sqrt(ss / static_cast<double>(n - 1));
  }

  double ci_low = kNaN, ci_high = kNaN;
  if (n > 1) {
    const double half =
        t_quantile_975(n - 1) * stddev / std::sqrt(static_cast<double>(n));
    ci_low = mean - half;
    ci_high = mean + half;
  }

  const double median = median_of(v);
  return {n, mean, median, stddev, ci_low, ci_high};
}

std::vector<std::size_t> mad_outliers(std::span<const double> values,
                                      double threshold) {
  std::vector<std::size_t> outliers;
  std::vector<double> v = finite_values(values);
  if (v.empty()) return outliers;

  const double median = median_of(v);
  for (double& x : v) x = std::fabs(x - median);
  const double mad = median_of(v);
  if (!(mad > 0.0)) return outliers;

  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    if (std::isnan(x)) continue;
    const double m = 0.6745 * (x - median) / mad;
    if (std::fabs(m) > threshold) outliers.push_back(i);
  }
  return outliers;
}

Ratio ratio_of_means(const Summary& a, const Summary& b) {
  const double value = a.mean / b.mean;
  if (a.n < 2 || b.n < 2 || a.mean == 0.0 || b.mean == 0.0)
    return {value, kNaN, kNaN};
  const double ra = a.stddev / a.mean;
  const double rb = b.stddev / b.mean;
  const double se_rel = std::sqrt(ra * ra / static_cast<double>(a.n) +
                                  rb * rb / static_cast<double>(b.n));
  const double t = t_quantile_975(std::min(a.n, b.n) - 1);
  const double lo = value * (1.0 - t * se_rel);
  const double hi = value * (1.0 + t * se_rel);
  // A negative ratio would flip the bounds; keep ci_low <= ci_high.
  return {value, std::min(lo, hi), std::max(lo, hi)};
}

}  // namespace allocstamp::stats
