// statistics — implementation of the pure summary-statistics helpers used to
// report benchmark results and compare them (see statistics.h).
#include "model/statistics.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
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
  if (dof == 0) return kNaN;
  return boost::math::quantile(boost::math::students_t(static_cast<double>(dof)), 0.975);
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

double median(std::span<const double> values) { return summarize(values).median; }

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

LogEstimate log_estimate(std::span<const double> values) {
  std::vector<double> logs;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) logs.push_back(std::log(v));
  const Summary s = summarize(logs);
  if (s.n == 0) return {0, kNaN, kNaN, kNaN, kNaN};
  return {s.n, s.mean, std::exp(s.mean), std::exp(s.ci_low), std::exp(s.ci_high)};
}

namespace {

std::vector<double> sample_logs(std::span<const Sample> samples) {
  std::vector<double> out;
  for (const Sample& s : samples)
    if (s.value > 0 && std::isfinite(s.value)) out.push_back(std::log(s.value));
  return out;
}

// The repetitions of a sample, each once with its log; false when a
// repetition appears twice or a value has no log.
bool logs_by_rep(std::span<const Sample> samples, std::vector<std::pair<long, double>>& out) {
  for (const Sample& s : samples) {
    if (!(s.value > 0 && std::isfinite(s.value))) return false;
    out.push_back({s.rep, std::log(s.value)});
  }
  std::sort(out.begin(), out.end());
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].first == out[i - 1].first) return false;
  return true;
}

}  // namespace

Ratio log_ratio(std::span<const Sample> a, std::span<const Sample> b) {
  const std::vector<double> la = sample_logs(a), lb = sample_logs(b);
  const Summary sa = summarize(la), sb = summarize(lb);
  if (sa.n == 0 || sb.n == 0) return {kNaN, kNaN, kNaN};
  const double log_ratio = sa.mean - sb.mean;
  const double value = std::exp(log_ratio);
  if (sa.n < 2 || sb.n < 2) return {value, kNaN, kNaN};
  std::vector<std::pair<long, double>> ra, rb;
  double se = kNaN, dof = kNaN;
  if (logs_by_rep(a, ra) && logs_by_rep(b, rb) && ra.size() == rb.size() &&
      std::equal(ra.begin(), ra.end(), rb.begin(), [](const auto& x, const auto& y) { return x.first == y.first; })) {
    std::vector<double> d;
    for (std::size_t i = 0; i < ra.size(); ++i) d.push_back(ra[i].second - rb[i].second);
    const Summary sd = summarize(d);
    se = sd.stddev / std::sqrt(double(sd.n));
    dof = double(sd.n - 1);
  } else {
    const double va = sa.stddev * sa.stddev / double(sa.n), vb = sb.stddev * sb.stddev / double(sb.n);
    const double se2 = va + vb;
    se = std::sqrt(se2);
    dof = se2 > 0 ? se2 * se2 / (va * va / double(sa.n - 1) + vb * vb / double(sb.n - 1)) : double(sa.n + sb.n - 2);
  }
  Ratio r{value, kNaN, kNaN};
  r.log_se = se;
  r.dof = dof;
  r.p = se > 0 ? 2.0 * boost::math::cdf(boost::math::complement(boost::math::students_t(dof), std::fabs(log_ratio) / se))
               : (log_ratio == 0 ? 1.0 : 0.0);
  return at_level(r, 0.95);
}

Ratio at_level(const Ratio& r, double level) {
  if (!std::isfinite(r.log_se) || !std::isfinite(r.dof) || !std::isfinite(r.value)) return r;
  Ratio out = r;
  // Centred on the difference of the log means, so that the interval always
  // holds the ratio the table shows.
  const double half = r.log_se > 0 ? boost::math::quantile(boost::math::students_t(r.dof), 1 - (1 - level) / 2) * r.log_se : 0;
  out.ci_low = std::exp(std::log(r.value) - half);
  out.ci_high = std::exp(std::log(r.value) + half);
  out.level = level;
  return out;
}

FamilyCorrection correct_family(std::span<Ratio* const> ratios, double q, bool per_comparison) {
  FamilyCorrection f;
  f.q = q;
  f.per_comparison = per_comparison;
  std::vector<double> p;
  for (const Ratio* r : ratios) p.push_back(r->p);
  const std::vector<double> adjusted = benjamini_hochberg(p);
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p[i])) continue;
    ++f.m;
    if (adjusted[i] <= q) ++f.selected;
  }
  if (per_comparison || f.m == 0) return f;
  f.level = 1 - q * double(f.selected ? f.selected : 1) / double(f.m);
  for (Ratio* r : ratios)
    if (std::isfinite(r->p)) *r = at_level(*r, f.level);
  return f;
}

const char* ratio_side(const Ratio& r) {
  if (!std::isfinite(r.ci_low) || !std::isfinite(r.ci_high)) return "";
  return r.ci_high < 1 ? "below" : r.ci_low > 1 ? "above" : "within";
}

namespace {

// Counts of the arrangements of n1 x's and n2 y's by their U (x above y), for
// U = 0 .. n1 * n2. The largest value is either an x, above all n2 y's, or a
// y, above nothing: f(i, j)[u] = f(i - 1, j)[u - j] + f(i, j - 1)[u]. Counts
// stay below C(40, 20) < 2^53, exact in a double.
std::vector<double> u_distribution(std::size_t n1, std::size_t n2) {
  std::vector<std::vector<std::vector<double>>> f(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (std::size_t i = 0; i <= n1; ++i)
    for (std::size_t j = 0; j <= n2; ++j) {
      std::vector<double>& d = f[i][j];
      d.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        d[0] = 1.0;
        continue;
      }
      const std::vector<double>& x_top = f[i - 1][j];
      const std::vector<double>& y_top = f[i][j - 1];
      for (std::size_t u = 0; u < x_top.size(); ++u) d[u + j] += x_top[u];
      for (std::size_t u = 0; u < y_top.size(); ++u) d[u] += y_top[u];
    }
  return f[n1][n2];
}

}  // namespace

// Up to this many splits of the pooled sample, ties are tested exactly.
constexpr double kExactArrangements = 200000.0;

UTest mann_whitney(std::span<const double> x, std::span<const double> y) {
  const std::vector<double> a = finite_values(x), b = finite_values(y);
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return {kNaN, kNaN, false};

  // Mid-ranks of the pooled sample; the rank sum of x gives U.
  std::vector<std::pair<double, bool>> pooled;  // value, from x
  pooled.reserve(n);
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  double rank_sum = 0.0, tie_term = 0.0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum += mid_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
  const double u = rank_sum - dn1 * (dn1 + 1.0) / 2.0;

  if (tie_term == 0.0 && n1 <= 20 && n2 <= 20) {
    const std::vector<double> counts = u_distribution(n1, n2);
    const auto k = static_cast<std::size_t>(std::llround(u));
    double total = 0.0, lower = 0.0, upper = 0.0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      total += counts[i];
      if (i <= k) lower += counts[i];
      if (i >= k) upper += counts[i];
    }
    return {u, std::min(1.0, 2.0 * std::min(lower, upper) / total), true};
  }

  const double mean = dn1 * dn2 / 2.0;
  if (tie_term != 0.0 && n <= 62 && mann_whitney_min_p(n1, n2) * 0.5 >= 1.0 / kExactArrangements) {
    // Ties in a small sample: the exact conditional test over every way of
    // splitting the pooled mid-ranks (the normal approximation would report
    // p-values below what such a sample can reach).
    std::vector<double> ranks(n);
    for (std::size_t i = 0; i < n;) {
      std::size_t j = i;
      while (j < n && pooled[j].first == pooled[i].first) ++j;
      for (std::size_t k = i; k < j; ++k) ranks[k] = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
      i = j;
    }
    const double observed = std::fabs(u - mean) - 1e-9;
    double total = 0.0, as_extreme = 0.0;
    for (std::uint64_t pick = (std::uint64_t(1) << n1) - 1; pick < (std::uint64_t(1) << n);) {
      double sum = 0.0;
      for (std::size_t k = 0; k < n; ++k)
        if (pick >> k & 1) sum += ranks[k];
      total += 1.0;
      if (std::fabs(sum - dn1 * (dn1 + 1.0) / 2.0 - mean) >= observed) as_extreme += 1.0;
      const std::uint64_t low = pick & -pick, ripple = pick + low;  // next subset of n1 (Gosper)
      pick = ripple | (((pick ^ ripple) >> 2) / low);
    }
    return {u, std::min(1.0, as_extreme / total), true};
  }
  const double variance = dn1 * dn2 / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
  if (!(variance > 0.0)) return {u, 1.0, false};  // every value equal
  const double z = std::max(0.0, std::fabs(u - mean) - 0.5) / std::sqrt(variance);
  return {u, std::min(1.0, std::erfc(z / std::sqrt(2.0))), false};
}

double sign_test_p(std::size_t up, std::size_t down) {
  const std::size_t n = up + down, fewer = std::min(up, down);
  if (n == 0) return 1.0;
  // P(X <= fewer) for X ~ Binomial(n, 1/2), term by term in logs (n of a few hundred).
  double tail = 0.0;
  for (std::size_t i = 0; i <= fewer; ++i)
    tail += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                     double(n) * std::log(2.0));
  return std::min(1.0, 2.0 * tail);
}

double mann_whitney_min_p(std::size_t n1, std::size_t n2) {
  // C(n1 + n2, n1) as a running product; large samples overflow to inf -> p 0.
  double arrangements = 1.0;
  for (std::size_t i = 1; i <= n1; ++i)
    arrangements = arrangements * static_cast<double>(n2 + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / arrangements);
}

namespace {

// What Welch's test and its detectable change share: the two summaries, the
// squared standard error of the difference of means, and the
// Welch–Satterthwaite degrees of freedom (NaN when se2 is 0). ok: n >= 2 both.
struct WelchParts {
  Summary a, b;
  double se2, dof;
  bool ok;
};

WelchParts welch_parts(std::span<const double> x, std::span<const double> y, ExtraVariance extra) {
  WelchParts w{summarize(x), summarize(y), kNaN, kNaN, false};
  if (w.a.n < 2 || w.b.n < 2 || !(extra.variance >= 0.0) || !(extra.dof > 0.0) || !(extra.tail_dof > 0.0)) return w;
  const double va = w.a.stddev * w.a.stddev / static_cast<double>(w.a.n);
  const double vb = w.b.stddev * w.b.stddev / static_cast<double>(w.b.n);
  w.se2 = va + vb + extra.variance;
  // Welch–Satterthwaite over the three parts (an infinite dof adds no term).
  const double extra_term = std::isinf(extra.dof) ? 0.0 : extra.variance * extra.variance / extra.dof;
  if (w.se2 > 0.0)
    w.dof = w.se2 * w.se2 /
            (va * va / static_cast<double>(w.a.n - 1) + vb * vb / static_cast<double>(w.b.n - 1) + extra_term);
  w.dof = std::min(w.dof, extra.tail_dof);  // heavier tails than the parts' (a NaN dof stays NaN)
  w.ok = true;
  return w;
}

}  // namespace

WelchTest welch(std::span<const double> x, std::span<const double> y, ExtraVariance extra) {
  const WelchParts w = welch_parts(x, y, extra);
  if (!w.ok) return {kNaN, kNaN, kNaN};
  const Summary &a = w.a, &b = w.b;
  if (!(w.se2 > 0.0)) return {a.mean == b.mean ? 0.0 : std::copysign(INFINITY, b.mean - a.mean), kNaN, a.mean == b.mean ? 1.0 : 0.0};
  const double t = (b.mean - a.mean) / std::sqrt(w.se2);
  const double p = 2.0 * boost::math::cdf(boost::math::complement(boost::math::students_t(w.dof), std::fabs(t)));
  return {t, w.dof, std::min(1.0, p)};
}

double welch_detectable(std::span<const double> x, std::span<const double> y, double alpha, double power,
                        ExtraVariance extra) {
  const WelchParts w = welch_parts(x, y, extra);
  if (!w.ok) return kNaN;
  if (!(w.se2 > 0.0)) return 0.0;
  const boost::math::students_t t(w.dof);
  return (boost::math::quantile(t, 1.0 - alpha / 2.0) + boost::math::quantile(t, power)) * std::sqrt(w.se2);
}

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  std::vector<double> q(p.size(), kNaN);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  const double m = static_cast<double>(order.size());
  double running = 1.0;  // from the largest p down: q_(k) = min over j >= k of m p_(j) / j
  for (std::size_t k = order.size(); k-- > 0;) {
    running = std::min(running, p[order[k]] * m / static_cast<double>(k + 1));
    q[order[k]] = running;
  }
  return q;
}

MedianInterval median_interval(std::span<const double> values, double level) {
  std::vector<double> v;
  for (double x : values)
    if (!std::isnan(x)) v.push_back(x);
  if (v.empty()) return {kNaN, kNaN, kNaN};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  // P(X = i) for X ~ Binomial(n, 1/2): the number of values below the median.
  auto probability = [n](std::size_t i) {
    return std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                    double(n) * std::log(2.0));
  };
  // (v[k-1], v[n-k]) holds the median unless fewer than k values fall below it
  // or fewer than k above: coverage 1 - 2 P(X < k). Widen k while that stays at level.
  double below = probability(0);  // P(X < k)
  std::size_t k = 1;
  while (k <= n / 2 && 1 - 2 * (below + probability(k)) >= level) {
    below += probability(k);
    ++k;
  }
  return {v[k - 1], v[n - k], 1 - 2 * below};
}

TwoModes two_modes(std::span<const double> values) {
  std::vector<double> v;
  for (double x : values)
    if (std::isfinite(x) && x > 0) v.push_back(x);
  TwoModes modes;
  if (v.size() < 5) return modes;
  std::sort(v.begin(), v.end());
  std::size_t split = 0;  // the high group starts here
  double widest = 0;
  for (std::size_t k = 2; k + 2 <= v.size(); ++k)
    if (const double gap = std::log(v[k] / v[k - 1]); gap > widest) widest = gap, split = k;
  if (split == 0) return modes;
  const double spread = std::max(std::log(v[split - 1] / v.front()), std::log(v.back() / v[split]));
  const double low_centre = std::sqrt(v.front() * v[split - 1]), high_centre = std::sqrt(v[split] * v.back());
  if (widest < 3 * spread || high_centre < 1.25 * low_centre) return modes;
  modes = {true, v.front(), v[split - 1], v[split], v.back(), int(split), int(v.size() - split)};
  return modes;
}

}  // namespace allocstamp::stats
