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

void judge(const std::vector<double>& vb, const std::vector<double>& vc, double slack, bool workers_alone, CheckRow& r) {
  r.base = stats::summarize(vb).median;
  r.cur = stats::summarize(vc).median;
  r.change = check_measured::relative_change(r.cur, r.base);
  const auto [b_lo, b_hi] = std::minmax_element(vb.begin(), vb.end());
  const auto [c_lo, c_hi] = std::minmax_element(vc.begin(), vc.end());
  // Where one worker was seen running at a time the current side's spread counts as the
  // figure's noise only where its values reach the baseline's: a current
  // wholly beyond the baseline's range has moved, and its spread may be the
  // change itself (minor faults 148, 148, 148 against 300, 600, 900 were
  // allowed 1216% and read ok). Both spreads count
  // - where workers ran side by side: a sweep's repetitions can all lie apart
  //   from another's (xmalloc under glibc: 249-277 minor faults in one sweep,
  //   1422-2456 in the next, in an A/A), or where no profiled run says how many
  //   ran (without them xmalloc looks alone);
  // - with fewer than kApartReps repetitions a side: two against two lie apart
  //   by chance one time in three (scudo's mmap calls, 86-97 from run to run
  //   against CI's baseline of 82 and 84), three against three one in ten.
  const bool counted_apart = workers_alone && std::min(vb.size(), vc.size()) >= kApartReps;
  const bool overlap = !counted_apart || (*c_lo <= *b_hi && *b_lo <= *c_hi);
  const double base_spread = *b_hi - *b_lo, cur_spread = *c_hi - *c_lo;
  // The spread in the figure's unit, and relative to the baseline's median
  // (from a zero baseline only the former says anything).
  const double widest = overlap ? std::max(base_spread, cur_spread) : base_spread;
  const double widest_relative = r.base > 0 ? widest / r.base : 0.0;
  const double allowance = std::max(r.threshold / 100.0, kSpreadFactor * widest_relative);
  const double slack_in_unit = std::max(slack, kSpreadFactor * widest);
  // The smallest change flagged passes both: the allowance, and the slack in
  // the figure's unit (2 calls on a baseline of 7 is 29%, not the 10% floor).
  r.detectable = r.base > 0 ? std::max(allowance, slack_in_unit / r.base) : allowance;
  const bool beyond_slack = std::fabs(r.cur - r.base) > slack_in_unit;
  if (beyond_slack && r.change > allowance + kEpsilon) r.verdict = Verdict::regressed;
  else if (beyond_slack && r.change < -allowance - kEpsilon) r.verdict = Verdict::improved;
  char text[160] = "";
  if (widest > 0) {
    if (r.base > 0)
      std::snprintf(text, sizeof text, "repetitions differ by up to %.3g%%: allowed %.3g%%", widest_relative * 100.0,
                    allowance * 100.0);
    else
      std::snprintf(text, sizeof text, "repetitions differ by up to %.6g: allowed %.6g more", widest,
                    std::max(slack, kSpreadFactor * widest));
    r.note = text;
  }
  if (cur_spread > widest) {
    if (r.base > 0)
      std::snprintf(text, sizeof text, "the current's differ by %.3g%%, all beyond the baseline's: not allowed for",
                    cur_spread / r.base * 100.0);
    else
      std::snprintf(text, sizeof text, "the current's differ by %.6g, all beyond the baseline's: not allowed for",
                    cur_spread);
    r.note += (r.note.empty() ? "" : "; ") + std::string(text);
  }
}

}  // namespace allocstamp::check_repeatable
