// check_repeatable.cpp — medians against an allowance for the figure's
// measured repeatability (check_repeatable.h).
#include "analysis/check_repeatable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/check_measured.h"
#include "model/statistics.h"

namespace allocstamp::check_repeatable {

namespace {
constexpr double kEpsilon = 1e-9;  // (105 - 100) / 100 is a hair above 0.05
}

void judge(const std::vector<double>& vb, const std::vector<double>& vc, double slack, CheckRow& r) {
  r.base = stats::summarize(vb).median;
  r.cur = stats::summarize(vc).median;
  r.change = check_measured::relative_change(r.cur, r.base);
  auto spread = [](const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
  };
  // The spread in the figure's unit, and relative to the baseline's median
  // (from a zero baseline only the former says anything).
  const double widest = std::max(spread(vb), spread(vc));
  const double widest_relative = r.base > 0 ? widest / r.base : 0.0;
  const double allowance = std::max(r.threshold / 100.0, kSpreadFactor * widest_relative);
  r.detectable = allowance;
  const bool beyond_slack = std::fabs(r.cur - r.base) > std::max(slack, kSpreadFactor * widest);
  if (beyond_slack && r.change > allowance + kEpsilon) r.verdict = Verdict::regressed;
  else if (beyond_slack && r.change < -allowance - kEpsilon) r.verdict = Verdict::improved;
  if (widest > 0) {
    char text[160];
    if (r.base > 0)
      std::snprintf(text, sizeof text, "repetitions differ by up to %.3g%%: allowed %.3g%%", widest_relative * 100.0,
                    allowance * 100.0);
    else
      std::snprintf(text, sizeof text, "repetitions differ by up to %.6g: allowed %.6g more", widest,
                    std::max(slack, kSpreadFactor * widest));
    r.note = text;
  }
}

}  // namespace allocstamp::check_repeatable
