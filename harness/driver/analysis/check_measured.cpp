// check_measured.cpp — the decision of measured comparisons (check_measured.h).
#include "analysis/check_measured.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "keys.h"
#include "model/format.h"
#include "model/statistics.h"
#include "key_names.h"

namespace allocstamp::check_measured {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEpsilon = 1e-9;  // (105 - 100) / 100 is a hair above 0.05


}  // namespace

// What a metric of this unit may move from a baseline of zero, where no
// percentage applies (a count going 0 -> 3 is an infinite change).
double zero_baseline_limit(const std::string& metric) {
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == metric) {
      if (k.unit == "count") return 16;
      if (k.unit == "bytes") return 4096;
      if (k.unit == "ns") return 1e6;
      if (k.unit == "kb") return 1024;
      return 0;
    }
  return 0;
}

// Times drift with the machine's load between two sweeps (this VM: 5-9% over
// minutes, every cell alike), which a per-cell test reads as a change in every
// cell. The sweep-wide part is taken out: the median over the cells of the log
// ratio of medians, when at least kDriftMinCells cells give one. A change that
// touches only some cells (an allocator, a workload) still shows; one that
// slows every cell alike is indistinguishable from the machine and is reported
// as drift, not judged.
bool is_time(const std::string& metric) {
  return metric == keys::elapsed_ns || metric == keys::wall_ns || metric.rfind("ns_per_op:", 0) == 0;
}
std::string drift_group(const std::string& metric) {
  return metric.rfind("ns_per_op:", 0) == 0 ? "ns_per_op" : metric;
}



// Medians and change; a zero baseline within its absolute limit is decided
// here (ok). True when the row waits for decide_measured.
double center(const std::vector<double>& values) {
  const bool positive = !values.empty() && std::all_of(values.begin(), values.end(), [](double x) { return x > 0; });
  return positive ? stats::log_estimate(values).center : stats::median(values);
}

bool prepare(const std::vector<double>& vb, const std::vector<double>& vc, CheckRow& r) {
  r.base = center(vb);
  r.cur = center(vc);
  r.change = relative_change(r.cur, r.base);
  if (r.base == 0 && r.cur != 0) {
    const double limit = zero_baseline_limit(r.metric);
    if (std::fabs(r.cur) <= limit) {
      r.note = "zero baseline: within the absolute limit of " + std::to_string(static_cast<long long>(limit));
      return false;
    }
  }
  return true;
}

namespace {

// Within the threshold: ok; beyond it, regressed or improved when significant
// over the whole check (q < alpha), else noisy.
void decide_row(CheckRow& r, const Measured& m, double alpha) {
  if (std::fabs(r.change) <= r.threshold / 100.0 + kEpsilon) return;
  // Memory and counts move by a little between two sweeps whatever the
  // allocator (a page, a call at two threads): below the unit's absolute
  // floor (16 calls, 4 KiB, 1 MiB of RSS) a change is not judged at all.
  if (!is_time(r.metric) && std::fabs(r.cur - r.base) <= zero_baseline_limit(r.metric)) {
    r.note = r.note.empty() ? "within the absolute floor" : r.note + "; within the absolute floor";
    return;
  }
  if (r.q < alpha) {
    r.verdict = r.change > 0 ? Verdict::regressed : Verdict::improved;
    return;
  }
  r.verdict = Verdict::noisy;
  const std::string why = std::isnan(r.q) ? std::to_string(m.vb.size()) + " vs " + std::to_string(m.vc.size()) +
                                                " repetitions cannot be significant"
                                          : "not significant over the whole check";
  r.note = r.note.empty() ? why : r.note + "; " + why;
}

}  // namespace

std::vector<double> logs_of(const std::vector<double>& v, double shift) {
  std::vector<double> out;
  for (double x : v) out.push_back(x > 0 ? std::log(x) - shift : kNaN);
  return out;
}

// A cell's repetitions run together in the sweep (its allocators interleaved,
// round by round), so they share the moment's load: between two sweeps a
// cell's own times move by more than their spread within a sweep shows (on
// this VM 4.5% (sd) idle, 50% with the test suite beside it, measured as the
// scatter of the cells' drift-free changes in A/A pairs). A test of the
// reference's times on their repetitions alone reads that as a change (the CI
// A/A failed twice on it). So the scatter between sweeps is estimated from the
// cells themselves, where the drift is (at least kDriftMinCells cells of the
// group): the robust variance (MAD) of each cell's change (mean of logs)
// around their median, less the typical variance its repetitions explain; a
// real change in a few cells does not move a median. Each reference time is
// then tested with that added to its standard error, at the
// Welch–Satterthwaite degrees of freedom with (cells - 1) for the estimate.
// Ratios to the reference rep by rep cancel most of it (idle, their A/A
// z-scores follow t; beside the test suite 9-12% beyond 2, not 5%), so theirs
// is estimated apart, from the ratios' changes, and is 0 where they cancel it.
//
// Its tails are heavier than a normal scatter's: a cell can switch mode from
// one sweep to the next (sh8bench under tcmalloc and scudo twice as fast in
// one of four idle sweeps here, five tight repetitions a side: its ratio's
// change 14-17 times the standard error the MAD gives). In 12 ordered A/A
// pairs of four idle ci-preset sweeps (2026-12-07), a test at the
// Welch–Satterthwaite dof flagged 42 rows, capped at 8 dof 24, at 4 dof 16,
// at 3 dof none. So each time tested with it is tested at no more than
// kBetweenSweepsTailDof degrees of freedom (Student's t, heavy-tailed): a
// one-cell change then needs a larger margin, while one that touches many
// cells (an allocator's upgrade) passes Benjamini–Hochberg at a larger p.
constexpr double kBetweenSweepsTailDof = 3;
constexpr const char* kRepByRep = " rep by rep";
namespace {
std::map<std::string, stats::ExtraVariance> between_sweeps(const std::vector<CheckRow>& rows,
                                                           const std::vector<Measured>& measured,
                                                           const std::map<std::string, double>& shift,
                                                           std::vector<std::string>& notes) {
  std::map<std::string, std::vector<double>> changes, own_variances;
  auto add = [&](const std::string& key, const std::vector<double>& lb, const std::vector<double>& lc) {
    if (std::any_of(lb.begin(), lb.end(), [](double x) { return std::isnan(x); }) ||
        std::any_of(lc.begin(), lc.end(), [](double x) { return std::isnan(x); }) || lb.size() < 2 || lc.size() < 2)
      return;
    const stats::Summary sb = stats::summarize(lb), sc = stats::summarize(lc);
    changes[key].push_back(sc.mean - sb.mean);
    own_variances[key].push_back(sb.stddev * sb.stddev / static_cast<double>(sb.n) +
                                 sc.stddev * sc.stddev / static_cast<double>(sc.n));
  };
  for (const Measured& m : measured) {
    const CheckRow& r = rows[m.row];
    if (!is_time(r.metric) || !shift.contains(drift_group(r.metric))) continue;
    add(drift_group(r.metric), logs_of(m.vb, 0), logs_of(m.vc, 0));
    if (m.paired_b.size() >= 2 && m.paired_c.size() >= 2) add(drift_group(r.metric) + kRepByRep, m.paired_b, m.paired_c);
  }
  std::map<std::string, stats::ExtraVariance> out;
  for (auto& [key, change] : changes) {
    if (change.size() < kDriftMinCells) continue;
    const double center = stats::median(change);
    std::vector<double> deviation;
    for (double c : change) deviation.push_back(std::fabs(c - center));
    const double robust_sd = 1.4826 * stats::median(deviation);  // the MAD of a normal sample, as its sd
    const double variance = std::max(0.0, robust_sd * robust_sd - stats::median(own_variances[key]));
    out[key] = {variance, static_cast<double>(change.size() - 1), kBetweenSweepsTailDof};
    const bool paired = key.ends_with(kRepByRep);
    const std::string group = paired ? key.substr(0, key.size() - std::string(kRepByRep).size()) : key;
    char text[400];
    std::snprintf(text, sizeof text,
                  paired ? "between sweeps: a cell's %s over the reference's moves by %.1f%% (sd) across %zu cells "
                           "beyond what its repetitions show; each such ratio is tested with that added to its "
                           "standard error, at %g degrees of freedom at most (a cell can switch mode between sweeps)"
                         : "between sweeps: a cell's %s moves by %.1f%% (sd) across %zu cells beyond what its "
                           "repetitions show; each reference time is tested with that added to its standard error, "
                           "at %g degrees of freedom at most (a cell can switch mode between sweeps)",
                  group.c_str(), (std::exp(std::sqrt(variance)) - 1) * 100, change.size(), kBetweenSweepsTailDof);
    notes.push_back(text);
  }
  return out;
}
}  // namespace

// Times: Welch's t on log values — for an allocator other than the
// reference, its time over the reference's in the same repetition (neighbours
// in the interleaved sweep, so drift and load cancel); for the reference, its
// own times with the sweep-wide drift taken out. Memory and counts: Welch's t
// on log values too, the U-test where a value is 0 (left out of its family
// when it cannot reach alpha at all). A change is a ratio, and five
// repetitions that agree can show one (the U-test cannot go below p = 2/252
// with 5 against 5). Then Benjamini–Hochberg within each family (time, memory,
// counts): beyond its threshold, and for memory and counts beyond the unit's
// absolute floor, a row regressed (or improved) only when its q is below
// alpha, so the false alarms of each family stay at alpha, not alpha per row.
// The sweep-wide drift of each time group (the median log ratio of its
// cells, current over baseline) where enough cells show it, each said in a note.
std::map<std::string, double> sweep_drift(const std::vector<CheckRow>& rows, const std::vector<Measured>& measured,
                                          std::vector<std::string>& notes) {
  std::map<std::string, std::vector<double>> log_ratios;
  for (const Measured& m : measured) {
    const CheckRow& r = rows[m.row];
    if (is_time(r.metric) && r.base > 0 && r.cur > 0) log_ratios[drift_group(r.metric)].push_back(std::log(r.cur / r.base));
  }
  std::map<std::string, double> shift;
  for (auto& [group, ratios] : log_ratios) {
    if (ratios.size() < kDriftMinCells) continue;
    shift[group] = stats::median(ratios);
    char text[200];
    std::snprintf(text, sizeof text,
                  "time drift: %s is %+.1f%% in the current runs across %zu cells (median); each cell's %s is "
                  "compared with that taken out",
                  group.c_str(), (std::exp(shift[group]) - 1) * 100, ratios.size(), group.c_str());
    notes.push_back(text);
  }
  return shift;
}

// Each row's q: its p adjusted by Benjamini–Hochberg within its family,
// said in a note; NaN where it was not tested.
std::vector<double> corrected(const std::vector<Measured>& measured, const std::vector<double>& p, double alpha,
                              std::vector<std::string>& notes) {
  // One family per group (time, memory, counts), each held at alpha: a
  // check's many memory rows do not make its times pay, nor the reverse.
  std::vector<double> q(p.size(), kNaN);
  std::map<std::string, std::vector<std::size_t>> families;
  for (std::size_t i = 0; i < measured.size(); ++i) families[measured[i].family].push_back(i);
  for (const auto& [family, members] : families) {
    std::vector<double> part;
    for (std::size_t i : members) part.push_back(p[i]);
    const std::vector<double> adjusted = stats::benjamini_hochberg(part);
    for (std::size_t k = 0; k < members.size(); ++k) q[members[k]] = adjusted[k];
  }
  // Said in the words the tables use for their families (issue 49).
  {
    std::string said;
    for (const auto& [family, members] : families) {
      std::size_t tested = 0, selected = 0;
      for (std::size_t i : members)
        if (!std::isnan(q[i])) ++tested, selected += q[i] < alpha ? 1 : 0;
      if (tested)
        said += (said.empty() ? "" : ", ") + family + " " + std::to_string(tested) + ", " + std::to_string(selected);
    }
    if (!said.empty())
      notes.insert(notes.begin(),
                   "corrected for the number of comparisons: Benjamini–Hochberg at q = " + number_text("%g", alpha) +
                       " in each family of this check's measured rows (a change beyond its threshold counts only where "
                       "its q is below " + number_text("%g", alpha) + "; rows tested, and those with q below it: " +
                       said + ")");
  }
  return q;
}

namespace {

// Where the reference's own time moved and every other allocator's ratio to it
// moved the other way, the change is the reference's: the others are timed as
// ratios to its times, rep by rep, so its slowdown reads as their speedup. Said
// in a note naming the cell groups, so that no one reads N improvements.
void say_reference_moved(const std::vector<CheckRow>& rows, const std::string& reference,
                         std::vector<std::string>& notes) {
  struct Group {
    Verdict reference = Verdict::ok;
    int others = 0, opposite = 0;
  };
  auto key_of = [](const CheckRow& r) {
    return r.cell.workload + "\t" + r.cell.app + "\t" + r.cell.size + "\t" + r.cell.args + "\t" + r.cell.tm + "\t" +
           std::to_string(r.cell.threads) + "\t" + r.metric;
  };
  std::map<std::string, Group> groups;
  std::map<std::string, std::string> label;
  for (const CheckRow& r : rows) {
    if (!is_time(r.metric) || r.how != Comparison::measured) continue;
    Group& g = groups[key_of(r)];
    label[key_of(r)] = r.cell.workload + " t" + std::to_string(r.cell.threads) + " " + r.metric;
    if (r.relative.empty() && r.cell.allocator == reference) g.reference = r.verdict;
    else if (r.relative == reference) ++g.others;
  }
  for (const CheckRow& r : rows) {
    if (!is_time(r.metric) || r.how != Comparison::measured || r.relative != reference) continue;
    Group& g = groups[key_of(r)];
    const Verdict other_way = g.reference == Verdict::regressed ? Verdict::improved : Verdict::regressed;
    if ((g.reference == Verdict::regressed || g.reference == Verdict::improved) && r.verdict == other_way) ++g.opposite;
  }
  std::vector<std::string> named;
  for (const auto& [key, g] : groups)
    if (g.others > 0 && g.opposite == g.others) named.push_back(label[key]);
  if (named.empty()) return;
  notes.push_back(std::to_string(named.size()) + " cell group(s) where " + reference + "'s own time moved and every " +
                  "other allocator's moved the other way against it: " + reference + "'s change, not theirs (the " +
                  "others are timed as ratios to " + reference + "'s times, rep by rep): " + joined(named));
}

}  // namespace

void decide(std::vector<CheckRow>& rows, const std::vector<Measured>& measured, double alpha,
            const std::string& reference, std::vector<std::string>& notes) {
  const std::map<std::string, double> shift = sweep_drift(rows, measured, notes);
  const std::map<std::string, stats::ExtraVariance> between = between_sweeps(rows, measured, shift, notes);
  std::vector<double> p;
  // Times: the two samples their test compares (log values), for the change it could detect.
  std::vector<std::pair<std::vector<double>, std::vector<double>>> tested(measured.size());
  std::vector<stats::ExtraVariance> extra(measured.size());  // the scatter between sweeps
  for (const Measured& m : measured) {
    CheckRow& r = rows[m.row];
    if (m.paired_b.size() >= 2 && m.paired_c.size() >= 2) {
      tested[p.size()] = {m.paired_b, m.paired_c};
      // Against the reference, repetition by repetition: drift shared by
      // neighbouring runs cancels, so no sweep-wide shift is taken out.
      if (auto b = between.find(drift_group(r.metric) + kRepByRep); b != between.end()) extra[p.size()] = b->second;
      r.p = stats::welch(m.paired_b, m.paired_c, extra[p.size()]).p;
      // The values shown are what is compared: each side's geometric-mean ratio to the reference.
      r.base = std::exp(stats::summarize(m.paired_b).mean);
      r.cur = std::exp(stats::summarize(m.paired_c).mean);
      r.change = r.cur / r.base - 1;
      r.relative = reference;
      r.note = r.note.empty() ? "time over " + reference + "'s, rep by rep" : r.note + "; time over " + reference + "'s, rep by rep";
      // n is what the test took: the pairs. A run without the reference's at
      // its repetition (failed, missing) is in no pair, and said.
      if (m.paired_b.size() != m.vb.size() || m.paired_c.size() != m.vc.size())
        r.note += " (" + std::to_string(m.paired_b.size()) + " of " + std::to_string(m.vb.size()) + " baseline and " +
                  std::to_string(m.paired_c.size()) + " of " + std::to_string(m.vc.size()) + " current runs paired: " +
                  reference + " has no ok run at the others' repetitions)";
      r.n_base = m.paired_b.size();
      r.n_cur = m.paired_c.size();
      p.push_back(r.p);
      continue;
    }
    auto s = is_time(r.metric) ? shift.find(drift_group(r.metric)) : shift.end();
    auto positive = [](const std::vector<double>& v) { return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; }); };
    if (positive(m.vb) && positive(m.vc) && m.vb.size() >= 2 && m.vc.size() >= 2) {
      const double d = s == shift.end() ? 0.0 : s->second;
      tested[p.size()] = {logs_of(m.vb, 0), logs_of(m.vc, d)};
      if (auto b = is_time(r.metric) ? between.find(drift_group(r.metric)) : between.end(); b != between.end())
        extra[p.size()] = b->second;
      r.p = stats::welch(tested[p.size()].first, tested[p.size()].second, extra[p.size()]).p;
      if (d != 0) {
        // The current value shown is the one compared: with the drift taken out.
        r.cur = r.cur * std::exp(-d);
        r.change = r.cur / r.base - 1;
        const std::string what = "current with the sweep-wide drift taken out";
        r.note = r.note.empty() ? what : r.note + "; " + what;
      }
    } else {
      r.p = stats::mann_whitney(m.vb, m.vc).p;
      // A U-test whose smallest possible p is not below alpha can reject
      // nothing: it stays out of the family (Tarone), where it would only
      // make every other comparison pay for it.
      if (!(stats::mann_whitney_min_p(m.vb.size(), m.vc.size()) < alpha)) {
        p.push_back(kNaN);
        continue;
      }
    }
    p.push_back(r.p);
  }
  const std::vector<double> q = corrected(measured, p, alpha, notes);
  // What each time could have detected: at the level one change needs to pass
  // Benjamini–Hochberg on its own (alpha over the family's tested rows).
  std::size_t times_tested = 0;
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (measured[i].family == "time" && !std::isnan(p[i])) ++times_tested;
  const double level = alpha / static_cast<double>(std::max<std::size_t>(times_tested, 1));
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CheckRow& r = rows[measured[i].row];
    if (!is_time(r.metric)) continue;
    const double d = stats::welch_detectable(tested[i].first, tested[i].second, level, 0.8, extra[i]);
    r.detectable = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::exp(d) - 1;
  }
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CheckRow& r = rows[measured[i].row];
    r.q = q[i];
    decide_row(r, measured[i], alpha);
    if (is_time(r.metric) && (r.verdict == Verdict::ok || r.verdict == Verdict::noisy) &&
        !(r.detectable <= r.threshold / 100.0 + kEpsilon)) {
      r.verdict = Verdict::undecided;
      const std::string why = std::isinf(r.detectable)
                                  ? std::string("too few repetitions to test")
                                  : "could detect only a change of " + percent_up_text(r.detectable) + " or more (power 0.8)";
      r.note = r.note.empty() ? why : r.note + "; " + why;
    }
  }
  say_reference_moved(rows, reference, notes);
}

double relative_change(double cur, double base) {
  if (cur == base) return 0.0;
  if (base == 0.0) return cur > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  return (cur - base) / std::fabs(base);
}

}  // namespace allocstamp::check_measured
