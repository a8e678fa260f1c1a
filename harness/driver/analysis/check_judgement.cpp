// check_judgement.cpp — the verdict of each row of bench check
// (check_judgement.h): a row per metric by its rule, the measured ones left
// to check_measured::decide, and the verdict's names.
#include "analysis/check_judgement.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "analysis/check_repeatable.h"
#include "analysis/mechanisms.h"
#include "model/statistics.h"
#include "key_names.h"

namespace allocstamp {

namespace check_judgement {

namespace {

// How the reference's cells beside `b` and `c` ran differently ("" when
// alike, or when either is missing): the other allocators' times are then not
// paired with it rep by rep, or its change would read as theirs.
std::string reference_change(const Judging& j, const Cell& b, const Cell& c) {
  const Cell* rb = j.base.cells.find(b.group, b.id.threads, j.reference);
  const Cell* rc = j.cur.cells.find(c.group, c.id.threads, j.reference);
  if (!rb || !rc) return "";
  std::string text;
  for (const Difference& d : differences(rb->id, rc->id, "baseline", "current runs"))
    text += (text.empty() ? "" : "; ") + d.text;
  return text;
}

using check_pairing::Pair;
using check_pairing::Side;
using check_rules::MetricRule;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEpsilon = 1e-9;  // (105 - 100) / 100 is a hair above 0.05

// A pair of cells, both with ok runs, as each metric's judgement reads it.
struct PairOfCells {
  const Cell& b;
  const Cell& c;
  const std::vector<Difference>& differences;
  const std::string& allowed_note;  // "ran differently (allowed): ...", or ""
  std::string sim_b, sim_c;         // how each side was simulated (simulator_of)
  bool sim_differ;                  // both were, differently
  bool one_thread;
  bool one_worker_at_once;          // no run of either side had two workers alive at once
  bool seen_alone;                  // ... and each side's profiled runs show it (without them it is not known)
};

// A metric's values in a pair: those of `column` (the rule's, or wall_ns for
// a workload that reports no elapsed_ns), and the note its row starts from.
struct Metric {
  const MetricRule& rule;
  std::string column, note;
  std::vector<double> vb, vc;
};

CheckRow new_row(const CellId& cell, std::string metric, Comparison how) {
  CheckRow r;
  r.cell = cell;
  r.metric = std::move(metric);
  r.how = how;
  return r;
}

// Every current repetition against [lo, hi] (the baseline's one value, or
// the range its allocators span): one above is a regression, all at or below
// with one below an improvement, beyond the threshold. The repetition that
// decides the verdict is the one shown, so that the change and the verdict
// always agree. Returns "current repetitions differ (a to b)" when they do,
// else "".
std::string judge_within(const std::vector<double>& vb, const std::vector<double>& vc, double lo, double hi,
                         CheckRow& r) {
  const double limit = r.threshold / 100.0 + kEpsilon;
  r.base = vb.front();
  r.cur = stats::median(vc);
  const auto [cur_lo, cur_hi] = std::minmax_element(vc.begin(), vc.end());
  if (check_measured::relative_change(*cur_hi, hi) > limit) r.verdict = Verdict::regressed, r.cur = *cur_hi;
  else if (check_measured::relative_change(*cur_lo, lo) < -limit) r.verdict = Verdict::improved, r.cur = *cur_lo;
  r.change = check_measured::relative_change(r.cur, r.base);
  if (*cur_lo == *cur_hi) return "";
  return "current repetitions differ (" + std::to_string(static_cast<long long>(*cur_lo)) + " to " +
         std::to_string(static_cast<long long>(*cur_hi)) + ")";
}

// A simulated figure, against its repeatability; only between runs simulated alike.
void judge_simulated(const Judging& j, const PairOfCells& p, const Metric& m, CheckResult& result) {
  const MetricRule& rule = m.rule;
  std::string note = m.note;
  CheckRow r = new_row(p.c.id, rule.name, Comparison::simulated);
  r.n_base = m.vb.size();
  r.n_cur = m.vc.size();
  r.threshold = check_rules::threshold_for(j.config, rule, false);
  // Threads side by side (more than one at --threads 1 too: xmalloc's
  // producer and consumer, larson's hand-offs) interleave differently
  // from run to run, also under valgrind.
  if (!(p.one_thread && p.one_worker_at_once) && !check_rules::given_threshold(j.config, rule)) {
    r.threshold = std::max(r.threshold, check_rules::kSimulatedFloorAtThreads);
    if (p.one_thread)
      note = "workers ran side by side: at least " + std::to_string(int(check_rules::kSimulatedFloorAtThreads)) + "% allowed";
  }
  if (p.sim_differ && !j.config.allow_different.count("simulator")) {
    r.verdict = Verdict::not_comparable;
    r.note = "simulated differently: " + p.sim_b + " in the baseline, " + p.sim_c + " now";
  } else if (m.vb.empty() || m.vc.empty()) {
    r.verdict = Verdict::missing;
    r.note = m.vc.empty() ? "no simulated runs in the current runs" : "no simulated runs in the baseline";
  } else {
    const double base_cycles = stats::median(check_pairing::values_of(j.base, p.b, keys::sim_cycles_count));
    check_repeatable::judge(m.vb, m.vc, check_rules::simulated_miss_slack(rule.name, base_cycles),
                            p.seen_alone, r);
    if (!note.empty()) r.note = r.note.empty() ? note : note + "; " + r.note;
    if (p.sim_differ) r.note += std::string(r.note.empty() ? "" : "; ") + "simulated differently (allowed)";
  }
  if (!p.allowed_note.empty()) r.note = r.note.empty() ? p.allowed_note : r.note + "; " + p.allowed_note;
  result.rows.push_back(std::move(r));
}

// A kernel count, against its repeatability: only between sweeps on one
// kernel, under one allocator library and tuning, and where workers ran side
// by side only with a spread to judge it by.
void judge_kernel(const Judging& j, const PairOfCells& p, const Metric& m, CheckResult& result, Tally& tally) {
  if (!result.kernel_not_compared.empty()) return;
  const MetricRule& rule = m.rule;
  std::string note = m.note;
  // Kernel calls are the allocator's own: another library or tuning makes other ones.
  if (std::any_of(p.differences.begin(), p.differences.end(), [](const Difference& d) {
        return d.what == "library" || d.what == "env";
      })) {
    ++tally.kernel_other_library;
    return;
  }
  const bool repeats = p.one_thread && p.one_worker_at_once;
  // Where workers ran side by side a count moves with the interleaving:
  // without two repetitions a side there is no spread to judge it by.
  if (!repeats && std::min(m.vb.size(), m.vc.size()) < 2) {
    ++tally.kernel_one_rep;
    return;
  }
  CheckRow r = new_row(p.c.id, rule.name, Comparison::kernel);
  r.n_base = m.vb.size();
  r.n_cur = m.vc.size();
  r.threshold = check_rules::threshold_for(j.config, rule, false);
  if (!repeats && !check_rules::given_threshold(j.config, rule)) {
    r.threshold = std::max(r.threshold, check_rules::kKernelFloorAtThreads);
    note = "workers ran side by side: at least " + std::to_string(int(check_rules::kKernelFloorAtThreads)) + "% allowed";
  }
  if (m.vb.empty() || m.vc.empty()) {
    r.verdict = Verdict::missing;
    r.note = m.vc.empty() ? "no values in the current runs" : "no values in the baseline";
  } else {
    check_repeatable::judge(m.vb, m.vc, rule.name == keys::minor_faults_count ? 0.0 : check_rules::kKernelCallsSlack,
                            p.seen_alone, r);
    if (!note.empty()) r.note = r.note.empty() ? note : note + "; " + r.note;
  }
  if (!p.allowed_note.empty()) r.note = r.note.empty() ? p.allowed_note : r.note + "; " + p.allowed_note;
  result.rows.push_back(std::move(r));
}

// A deterministic figure (exact at one thread, or against the range the
// baseline's allocators span) or a measured one (to check_measured::decide).
void judge_figure(const Judging& j, const PairOfCells& p, const Metric& m, CheckResult& result, Tally& tally) {
  const MetricRule& rule = m.rule;
  const std::vector<double>& vb = m.vb;
  const std::vector<double>& vc = m.vc;
  std::string note = m.note;
  bool exact = rule.kind == contract::KeyKind::deterministic && p.one_thread;
  if (exact && !rule.order_free && !p.one_worker_at_once) {
    exact = false;
    note = "workers ran side by side: compared as measured";
  }
  if (exact && std::any_of(vb.begin(), vb.end(), [&](double v) { return v != vb.front(); })) {
    const auto [lo, hi] = std::minmax_element(vb.begin(), vb.end());
    const std::string spread = std::to_string(static_cast<long long>(*lo)) + ".." + std::to_string(static_cast<long long>(*hi));
    if (rule.order_free) {
      // A count at one thread repeats exactly: a baseline that does not is no baseline for it.
      CheckRow r = new_row(p.c.id, rule.name, Comparison::exact);
      r.n_base = vb.size();
      r.n_cur = vc.size();
      r.base = stats::median(vb);
      r.cur = vc.empty() ? kNaN : stats::median(vc);
      r.verdict = Verdict::unrepeatable;
      r.note = "the baseline's repetitions differ (" + spread +
               "): a count at one thread must repeat exactly; re-record the baseline, or find what made it vary";
      result.rows.push_back(std::move(r));
      return;
    }
    exact = false;
    note = "baseline repetitions differ (" + spread + "): compared as measured";
    ++result.unrepeatable_in_baseline[p.c.id.workload + " " + rule.name];
  }
  if (j.config.deterministic_only && !exact) {
    ++tally.skipped_measured;
    return;
  }
  const auto [span_lo, span_hi] = exact ? check_pairing::allocators_span(j.base, p.b, m.column) : std::pair{kNaN, kNaN};
  const bool in_range = exact && span_lo < span_hi;
  CheckRow r = new_row(p.c.id, rule.name, in_range ? Comparison::range : exact ? Comparison::exact : Comparison::measured);
  r.n_base = vb.size();
  r.n_cur = vc.size();
  r.threshold = check_rules::threshold_for(j.config, rule, exact);
  r.note = note;
  if (!p.allowed_note.empty()) r.note = r.note.empty() ? p.allowed_note : r.note + "; " + p.allowed_note;
  r.busy = check_measured::is_time(m.column) && (j.base.cells.busy_runs(p.b) || j.cur.cells.busy_runs(p.c));
  if (r.busy) {
    const bool busy_b = j.base.cells.busy_runs(p.b), busy_c = j.cur.cells.busy_runs(p.c);
    r.note += std::string(r.note.empty() ? "" : "; ") + "measured on a busy machine (" + (busy_b ? "baseline" : "") +
              (busy_b && busy_c ? ", " : "") + (busy_c ? "current" : "") + ")";
  }
  if (vb.empty() || vc.empty()) {
    r.verdict = Verdict::missing;
    if (!vb.empty()) r.base = check_measured::center(vb);
    if (!vc.empty()) r.cur = check_measured::center(vc);
    r.note = vc.empty() ? "no values in the current runs" : "no values in the baseline";
  } else if (in_range) {
    const std::string differ = judge_within(vb, vc, span_lo, span_hi, r);
    r.note = "the baseline's allocators differ (" + std::to_string(static_cast<long long>(span_lo)) + " to " +
             std::to_string(static_cast<long long>(span_hi)) + "): compared with that range" +
             (differ.empty() ? "" : "; " + differ) + (p.allowed_note.empty() ? "" : "; " + p.allowed_note);
  } else if (exact) {
    const std::string differ = judge_within(vb, vc, vb.front(), vb.front(), r);
    if (!differ.empty()) r.note = differ;
  } else if (check_measured::prepare(vb, vc, r)) {
    check_measured::Measured waiting{result.rows.size(), vb, vc, {}, {}, rule.group};
    if (check_measured::is_time(m.column) && p.c.allocator != j.reference) {
      if (const std::string moved = reference_change(j, p.b, p.c); !moved.empty()) {
        r.note += std::string(r.note.empty() ? "" : "; ") + j.reference + " ran differently (" + moved +
                  "): compared as times, not as ratios to it";
      } else {
        waiting.paired_b = check_pairing::log_ratios_to_reference(j.base, p.b, m.column, j.reference);
        waiting.paired_c = check_pairing::log_ratios_to_reference(j.cur, p.c, m.column, j.reference);
        // Its times divide these: a busy machine under the reference's runs
        // moves every ratio to it, and makes them suspect as its own.
        const Cell* rb = j.base.cells.find(p.b.group, p.b.id.threads, j.reference);
        const Cell* rc = j.cur.cells.find(p.c.group, p.c.id.threads, j.reference);
        const bool ref_busy_b = rb && !waiting.paired_b.empty() && j.base.cells.busy_runs(*rb),
                   ref_busy_c = rc && !waiting.paired_c.empty() && j.cur.cells.busy_runs(*rc);
        if (ref_busy_b || ref_busy_c) {
          r.busy = true;
          r.note += std::string(r.note.empty() ? "" : "; ") + j.reference + "'s runs, which its times are paired with, " +
                    "measured on a busy machine (" + (ref_busy_b ? "baseline" : "") +
                    (ref_busy_b && ref_busy_c ? ", " : "") + (ref_busy_c ? "current" : "") + ")";
        }
      }
    }
    tally.measured.push_back(std::move(waiting));
    if (std::min(vb.size(), vc.size()) < 2) tally.too_few[{vb.size(), vc.size()}].insert(cell_label(p.c.id));
  }
  result.rows.push_back(std::move(r));
}

}  // namespace

CheckRow one_sided_row(const Pair& pair, Tally& tally) {
  CheckRow r = new_row((pair.base ? pair.base : pair.cur)->id, "cell", Comparison::cell);
  r.verdict = Verdict::missing;
  if (!pair.cur) {
    r.n_base = check_pairing::run_count(*pair.base);
    r.note = "not in the current runs";
    ++tally.absent;
  } else {
    r.n_cur = check_pairing::run_count(*pair.cur);
    r.note = "new: not in the baseline";
  }
  return r;
}

CheckRow not_comparable_row(const Pair& pair, const std::string& ran_differently, const CheckConfig& config,
                            CheckResult& result) {
  // Never compared silently: listed, and the check exits 2 (commands/check.cpp).
  CheckRow r = new_row(pair.cur->id, "cell", Comparison::cell);
  r.verdict = Verdict::not_comparable;
  r.n_base = check_pairing::run_count(*pair.base);
  r.n_cur = check_pairing::run_count(*pair.cur);
  r.note = "ran differently: " + ran_differently;
  for (const Difference& d : pair.differences)
    if (!config.allow_different.count(d.what)) result.not_comparable[d.what].push_back(d.text);
  return r;
}

CheckRow judge_status(const CellId& cell, const Cell& b, const Cell& c) {
  using check_pairing::bad_count;
  using check_pairing::statuses;
  CheckRow r = new_row(cell, keys::status, Comparison::status);
  r.n_base = check_pairing::run_count(b);
  r.n_cur = check_pairing::run_count(c);
  r.base = static_cast<double>(b.ok.size());
  r.cur = static_cast<double>(c.ok.size());
  // A way of failing the baseline never showed (a crash where it only timed
  // out) is a failure, not noise on both sides.
  bool new_way = false;
  for (const auto& [status, n] : c.statuses)
    new_way = new_way || (status != "ok" && status != "skipped" && n > 0 && !b.statuses.count(status));
  if (bad_count(c) > 0 && (bad_count(b) == 0 || new_way || (c.ok.empty() && !b.ok.empty()))) {
    r.verdict = Verdict::failed;
    r.note = "current: " + statuses(c) + (bad_count(b) > 0 ? " (baseline: " + statuses(b) + ")" : "");
  } else if (bad_count(c) > 0) {
    r.verdict = Verdict::noisy;
    r.note = "runs fail on both sides (baseline: " + statuses(b) + "; current: " + statuses(c) + ")";
  } else if (bad_count(b) > 0) {
    r.verdict = Verdict::improved;
    r.note = "baseline: " + statuses(b);
  }
  return r;
}

void judge_metrics(const Judging& j, const Pair& pair, const std::string& allowed_note, CheckResult& result,
                   Tally& tally) {
  const Cell& b = *pair.base;
  const Cell& c = *pair.cur;
  PairOfCells p{b, c, pair.differences, allowed_note, check_pairing::simulator_of(j.base, b),
                check_pairing::simulator_of(j.cur, c), false, c.id.threads == 1, false, false};
  // Simulated figures compare only between runs simulated alike.
  p.sim_differ = !p.sim_b.empty() && !p.sim_c.empty() && p.sim_b != p.sim_c;
  if (p.sim_differ && !j.config.allow_different.count("simulator"))
    result.not_comparable["simulator"].push_back("simulated on " + p.sim_b + " in the baseline, on " + p.sim_c + " now");
  const double most_b = check_pairing::most_threads_alive(j.base, b), most_c = check_pairing::most_threads_alive(j.cur, c);
  p.one_worker_at_once = most_b <= check_rules::kMostThreadsOfOneWorker && most_c <= check_rules::kMostThreadsOfOneWorker;
  p.seen_alone = p.one_thread && p.one_worker_at_once && most_b > 0 && most_c > 0;
  for (const MetricRule* rule : j.metrics) {
    Metric m{*rule, rule->name, "", {}, {}};
    if (b.timed != c.timed && from_timed_runs(m.column)) continue;  // one side's times were measured under memprof
    if (m.column == keys::elapsed_ns && common_time_key(b, c) == keys::wall_ns) {
      m.column = keys::wall_ns;  // workloads that report no elapsed_ns are timed as a whole
      m.note = "no elapsed_ns: wall_ns compared";
    }
    m.vb = check_pairing::values_of(j.base, b, m.column);
    m.vc = check_pairing::values_of(j.cur, c, m.column);
    if (m.vb.empty() && m.vc.empty()) continue;
    if (rule->kind == contract::KeyKind::simulated) judge_simulated(j, p, m, result);
    else if (rule->kind == contract::KeyKind::kernel) judge_kernel(j, p, m, result, tally);
    else judge_figure(j, p, m, result, tally);
  }
}

void judge_micro(const Judging& j, const check_pairing::MicroSamples& base_micro,
                 const check_pairing::MicroSamples& cur_micro, const Cell& b, const Cell& c, CheckResult& result,
                 Tally& tally) {
  std::set<std::string> benchmarks;
  auto add_benchmarks = [&](const check_pairing::MicroSamples& side, const CellId& id) {
    for (auto it = side.lower_bound({id, std::string()}); it != side.end() && it->first.first == id; ++it)
      benchmarks.insert(it->first.second);
  };
  add_benchmarks(base_micro, b.id);
  add_benchmarks(cur_micro, c.id);
  for (const std::string& benchmark : benchmarks) {
    const auto before = base_micro.find({b.id, benchmark}), now = cur_micro.find({c.id, benchmark});
    CheckRow r = new_row(c.id, "ns_per_op:" + benchmark, Comparison::measured);
    r.threshold = j.time_threshold;
    if (before == base_micro.end() || now == cur_micro.end()) {
      r.verdict = Verdict::missing;
      if (now == cur_micro.end()) {
        r.n_base = before->second.size();
        r.base = check_measured::center(before->second);
        r.note = "not in the current micro.csv";
        tally.missing_micro.insert(benchmark);
      } else {
        r.n_cur = now->second.size();
        r.cur = check_measured::center(now->second);
        r.note = "new: not in the baseline's micro.csv";
      }
      result.rows.push_back(std::move(r));
      continue;
    }
    r.n_base = before->second.size();
    r.n_cur = now->second.size();
    if (check_measured::prepare(before->second, now->second, r))
      tally.measured.push_back({result.rows.size(), before->second, now->second, {}, {}, "time"});
    result.rows.push_back(std::move(r));
  }
}

std::size_t busy_as_suspect(std::vector<CheckRow>& rows, const CheckConfig& config) {
  std::size_t suspect = 0;
  if (!config.trust_busy)
    for (CheckRow& r : rows)
      if (r.busy && (r.verdict == Verdict::regressed || r.verdict == Verdict::improved)) {
        r.note = std::string(r.verdict == Verdict::regressed ? "slower" : "faster") + " beyond the threshold, but " +
                 r.note + ": suspect, not a verdict (--trust-busy judges it)";
        r.verdict = Verdict::suspect;
        ++suspect;
      }
  return suspect;
}

void add_mechanisms(std::vector<CheckRow>& rows, const Side& base, const Side& cur) {
  auto cell_of = [](const Side& side, const CellId& id) -> const Cell* {
    for (const Cell& c : side.cells.cells)
      if (c.id.workload == id.workload && c.id.app == id.app && c.id.size == id.size && c.id.allocator == id.allocator &&
          c.id.tm == id.tm && c.id.threads == id.threads && c.id.args == id.args)
        return &c;
    return nullptr;
  };
  for (CheckRow& r : rows) {
    if (!(r.metric == keys::elapsed_ns || r.metric == keys::wall_ns)) continue;
    if (r.verdict != Verdict::regressed && r.verdict != Verdict::improved) continue;
    const Cell *b = cell_of(base, r.cell), *c = cell_of(cur, r.cell);
    if (!b || !c) continue;
    int compared = 0;
    const std::vector<Mechanism> found = separating_mechanisms(cur.cells, *c, base.cells, *b, &compared);
    if (compared == 0) continue;  // runs.csv older than schema 5: nothing to say
    const std::string why = mechanisms_sentence(found, "the baseline", compared);
    r.note = r.note.empty() ? why : r.note + "; " + why;
  }
}

}  // namespace check_judgement

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::regressed: return "regressed";
    case Verdict::improved: return "improved";
    case Verdict::noisy: return "noisy";
    case Verdict::undecided: return "undecided";
    case Verdict::suspect: return "suspect";
    case Verdict::missing: return "missing";
    case Verdict::failed: return "failed";
    case Verdict::not_comparable: return "not comparable";
    case Verdict::unrepeatable: return "unrepeatable";
  }
  std::abort();
}

std::size_t CheckResult::cells_not_compared() const {
  std::set<CellId> cells;
  for (const CheckRow& r : rows)
    if (r.verdict == Verdict::not_comparable) cells.insert(r.cell);
  return cells.size();
}

bool CheckResult::failed(const CheckConfig& config) const {
  return std::any_of(rows.begin(), rows.end(), [&](const CheckRow& r) {
    return r.verdict == Verdict::failed || r.verdict == Verdict::regressed || r.verdict == Verdict::unrepeatable ||
           (config.fail_on_missing && r.verdict == Verdict::missing && r.n_cur == 0) ||
           (config.fail_on_change && (r.how == Comparison::exact || r.how == Comparison::range) &&
            r.verdict == Verdict::improved) ||
           (config.fail_on_undecided && r.verdict == Verdict::undecided);
  });
}

}  // namespace allocstamp
