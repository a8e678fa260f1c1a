// check.cpp — the comparison behind `bench check`: which metrics are
// deterministic and which measured (one table), the thresholds, and the verdict
// of every cell and metric. Reading and checking the two runs.csv files too.
#include "check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "check_measured.h"
#include "errors.h"
#include "keys.h"
#include "meta.h"
#include "statistics.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Deterministic metrics are exact at one thread (a single-threaded program
// allocates the same way every time); at more threads, or when the baseline's
// repetitions disagree, they are compared like measured ones. A sum (a memprof
// counter) does not depend on how threads interleave, but a peak or a phase-end
// figure does: those are exact only when the run never had two workers alive
// at once (memprof's threads_peak_count at most 2: main and one worker) —
// xmalloc at one thread is a producer and a consumer.
enum class Kind { deterministic, measured };

struct MetricRule {
  std::string name;
  Kind kind;
  std::string group;         // threshold group: time, memory, deterministic
  bool order_free = false;   // a sum over threads: the same whatever the interleaving
};

constexpr double kMostThreadsOfOneWorker = 2;  // the main thread waiting for one worker

// The compared metrics: the keys of harness/contract/keys.def with a check
// group, in runs.csv's order. Columns missing from both files are not
// applicable; from one file, reported and skipped.
std::vector<MetricRule> metrics_from_keys() {
  std::vector<MetricRule> rules;
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.is_checked())
      rules.push_back({std::string(k.name), k.kind == "deterministic" ? Kind::deterministic : Kind::measured,
                       std::string(k.group), k.source == "counter"});
  return rules;
}

const std::vector<MetricRule> kMetrics = metrics_from_keys();

// Percent allowed when nothing is given; an exact compare allows 0 unless its
// metric or the deterministic group is given.
// Memory, and counts compared as measured (threads > 1), move by up to ~15% between two sweeps of the
// same build on this project's 2-core VM (the threads interleave differently; scripts/aa-check): 20%.
const std::map<std::string, double> kDefaultThresholds = {{"time", 5.0}, {"memory", 20.0}, {"deterministic", 20.0}};

const std::vector<std::string> kCellColumns = {"workload", "app", "size", "allocator", "tm", "threads"};

std::string known_threshold_names() {
  std::string out = "time, memory, deterministic";
  for (const MetricRule& r : kMetrics) out += ", " + r.name;
  return out;
}

bool known_threshold_name(const std::string& name) {
  if (kDefaultThresholds.count(name)) return true;
  return std::any_of(kMetrics.begin(), kMetrics.end(), [&](const MetricRule& r) { return name == r.name; });
}

// A percentage: a finite number >= 0, with an optional '%'.
bool parse_percent(std::string text, double& out) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  if (text.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v) || v < 0) return false;
  out = v;
  return true;
}

struct CellOrder {
  bool operator()(const CellKey& a, const CellKey& b) const {
    for (std::size_t i = 0; i < 5; ++i)
      if (a[i] != b[i]) return a[i] < b[i];
    long ta = std::strtol(a[5].c_str(), nullptr, 10), tb = std::strtol(b[5].c_str(), nullptr, 10);
    return ta != tb ? ta < tb : a[5] < b[5];
  }
};

struct CellRuns {
  std::vector<const CsvRow*> ok;
  bool timed = false;  // some ok run is timed: times come from those, memprof's figures from the profiled
  std::map<std::string, std::size_t> bad;  // status -> runs (not ok, not skipped)
  std::size_t bad_count() const {
    std::size_t n = 0;
    for (const auto& [status, count] : bad) n += count;
    return n;
  }
  std::size_t runs() const { return ok.size() + bad_count(); }
};

struct Side {
  const RunsTable* table;
  std::map<CellKey, CellRuns, CellOrder> cells;
};

Side index_side(const RunsTable& t) {
  Side s{&t, {}};
  for (const CsvRow& row : t.rows) {
    CellKey key;
    for (const auto& k : kCellColumns) key.push_back(t.text(row, k));
    const Status st = t.status(row);
    if (st == Status::skipped) continue;
    CellRuns& cell = s.cells[key];
    if (st == Status::ok) {
      cell.ok.push_back(&row);
      cell.timed = cell.timed || t.kind(row) == RunKind::timed;
    } else {
      ++cell.bad[status_name(st)];
    }
  }
  return s;
}

// Numeric values of `column` in the ok runs of a cell that measure it (timed
// runs for times, profiled runs for memprof's figures); empty fields are absent.
std::vector<double> values_of(const Side& side, const CellRuns& cell, const std::string& column) {
  std::vector<double> out;
  for (const CsvRow* row : cell.ok) {
    if (!side.table->serves(*row, column, cell.timed)) continue;
    double v = side.table->number(*row, column);
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

// A time of the cell's runs over the reference allocator's in the same
// repetition (same workload, size, tm and threads), as logs: the two ran close
// together in the interleaved sweep, so the machine's drift and load shared by
// neighbouring runs cancel. Empty when the reference has no such run.
std::vector<double> log_ratios_to_reference(const Side& side, const CellKey& key, const CellRuns& cell,
                                            const std::string& column, const std::string& reference) {
  CellKey ref_key = key;
  ref_key[3] = reference;
  auto it = side.cells.find(ref_key);
  std::vector<double> out;
  if (it == side.cells.end() || ref_key == key) return out;
  std::map<std::string, double> by_rep;
  for (const CsvRow* row : it->second.ok)
    if (side.table->serves(*row, column, it->second.timed)) by_rep[side.table->text(*row, "rep")] = side.table->number(*row, column);
  for (const CsvRow* row : cell.ok) {
    if (!side.table->serves(*row, column, cell.timed)) continue;
    auto r = by_rep.find(side.table->text(*row, "rep"));
    const double v = side.table->number(*row, column);
    if (r != by_rep.end() && v > 0 && r->second > 0) out.push_back(std::log(v / r->second));
  }
  return out;
}

// Most threads memprof saw alive at once in the cell's profiled runs (0 when
// no run says).
double most_threads_alive(const Side& side, const CellRuns& cell) {
  std::vector<double> v = values_of(side, cell, "threads_peak_count");
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

bool all_rows_have(const Side& side, const CellRuns& cell, const std::string& column) {
  if (!side.table->has(column)) return false;
  return std::all_of(cell.ok.begin(), cell.ok.end(), [&](const CsvRow* r) {
    return !side.table->serves(*r, column, cell.timed) || !side.table->text(*r, column).empty();
  });
}

double median(const std::vector<double>& v) { return stats::summarize(v).median; }

std::string statuses(const CellRuns& c) {
  std::string out;
  for (const auto& [status, count] : c.bad) out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  return out;
}

constexpr double kEpsilon = 1e-9;  // (105 - 100) / 100 is a hair above 0.05

CheckRow new_row(const CellKey& cell, std::string metric, Comparison how) {
  return CheckRow{cell, std::move(metric), how, 0, 0, kNaN, kNaN, kNaN, kNaN, kNaN, 0.0, Verdict::ok, ""};
}

// Runs that fail now and did not before fail the check; failures on both
// sides are not news.
CheckRow judge_status(const CellKey& cell, const CellRuns& b, const CellRuns& c) {
  CheckRow r = new_row(cell, "status", Comparison::status);
  r.n_base = b.runs();
  r.n_cur = c.runs();
  r.base = static_cast<double>(b.ok.size());
  r.cur = static_cast<double>(c.ok.size());
  if (c.bad_count() > 0 && (b.bad_count() == 0 || (c.ok.empty() && !b.ok.empty()))) {
    r.verdict = Verdict::failed;
    r.note = "current: " + statuses(c);
  } else if (c.bad_count() > 0) {
    r.verdict = Verdict::noisy;
    r.note = "runs fail on both sides (baseline: " + statuses(b) + "; current: " + statuses(c) + ")";
  } else if (b.bad_count() > 0) {
    r.verdict = Verdict::improved;
    r.note = "baseline: " + statuses(b);
  }
  return r;
}

// The baseline's one value against every current repetition: one that
// allocates more is a regression.
void judge_exact(const std::vector<double>& vb, const std::vector<double>& vc, CheckRow& r) {
  const double limit = r.threshold / 100.0 + kEpsilon;
  r.base = vb.front();
  r.cur = median(vc);
  r.change = check_measured::relative_change(r.cur, r.base);
  const auto [lo, hi] = std::minmax_element(vc.begin(), vc.end());
  if (check_measured::relative_change(*hi, r.base) > limit) r.verdict = Verdict::regressed;
  else if (check_measured::relative_change(*lo, r.base) < -limit) r.verdict = Verdict::improved;
  if (*lo != *hi)
    r.note = "current repetitions differ (" + std::to_string(static_cast<long long>(*lo)) + " to " +
             std::to_string(static_cast<long long>(*hi)) + ")";
}

}  // namespace

std::string cell_label(const CellKey& c) {
  return c[0] + ":" + c[1] + "/" + c[2] + "/" + c[3] + (c[4].empty() ? "" : "/" + c[4]) + "/t" + c[5];
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::regressed: return "regressed";
    case Verdict::improved: return "improved";
    case Verdict::noisy: return "noisy";
    case Verdict::missing: return "missing";
    case Verdict::failed: return "failed";
  }
  std::abort();
}

void add_threshold(const std::string& assignment, std::map<std::string, double>& thresholds) {
  const auto eq = assignment.find('=');
  const std::string name = assignment.substr(0, eq);
  double value = 0;
  if (eq == std::string::npos || !parse_percent(assignment.substr(eq + 1), value))
    throw UsageError("--threshold '" + assignment + "' is not metric=percent",
                     "write e.g. --threshold elapsed_ns=10 (a number >= 0)");
  if (!known_threshold_name(name))
    throw UsageError("--threshold: unknown metric '" + name + "'", "choose from: " + known_threshold_names());
  thresholds[name] = value;
}

void add_thresholds_file(const fs::path& file, std::map<std::string, double>& thresholds) {
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read the thresholds file " + file.string(), "give an existing JSON file such as {\"elapsed_ns\": 10}");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + " is not valid JSON (" + e.what() + ")", "write an object such as {\"elapsed_ns\": 10, \"memory\": 8}");
  }
  if (!doc.is_object())
    throw UsageError(file.string() + " is not a JSON object", "write an object such as {\"elapsed_ns\": 10, \"memory\": 8}");
  for (const auto& [name, value] : doc.items()) {
    if (!known_threshold_name(name))
      throw UsageError(file.string() + ": unknown metric '" + name + "'", "choose from: " + known_threshold_names());
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      throw UsageError(file.string() + ": the threshold of " + name + " is not a number >= 0", "give a percentage, e.g. \"" + name + "\": 10");
    thresholds.emplace(name, value.get<double>());  // the command line's value stays
  }
}

namespace {

Meta meta_next_to(const RunsTable& table) { return read_meta(std::filesystem::path(table.source).parent_path()); }

}  // namespace

std::vector<std::string> setup_differences(const RunsTable& baseline, const RunsTable& current) {
  const Meta b = meta_next_to(baseline), c = meta_next_to(current);
  if (!b.present || !c.present) return {};
  std::vector<std::string> out;
  const auto vb = b.allocator_versions(), vc = c.allocator_versions();
  for (const auto& [name, version] : vb) {
    auto it = vc.find(name);
    if (it != vc.end() && it->second != version)
      out.push_back(name + " " + (version.empty() ? "?" : version) + " in the baseline, " +
                    (it->second.empty() ? "?" : it->second) + " now");
  }
  const std::string cb = b.compiler(), cc = c.compiler();
  if (!cb.empty() && !cc.empty() && cb != cc) out.push_back("compiler " + cb + " in the baseline, " + cc + " now");
  return out;
}

bool CheckResult::failed(const CheckConfig& config) const {
  return std::any_of(rows.begin(), rows.end(), [&](const CheckRow& r) {
    return r.verdict == Verdict::failed || r.verdict == Verdict::regressed ||
           (config.fail_on_missing && r.verdict == Verdict::missing && r.n_cur == 0) ||
           (config.fail_on_change && r.how == Comparison::exact && r.verdict == Verdict::improved);
  });
}

namespace {

// A side's micro-benchmark repetitions by cell and benchmark (timed ok runs only).
using MicroSamples = std::map<std::pair<CellKey, std::string>, std::vector<double>, std::less<>>;
MicroSamples micro_by_cell(const Side& side, const std::vector<MicroRow>& rows) {
  std::map<long, CellKey> cell_of;
  for (const auto& [key, cell] : side.cells)
    for (const CsvRow* row : cell.ok)
      if (side.table->kind(*row) == RunKind::timed) cell_of[std::atol(side.table->text(*row, "run_id").c_str())] = key;
  MicroSamples out;
  for (const MicroRow& m : rows)
    if (auto it = cell_of.find(m.run_id); it != cell_of.end() && m.kind == RunKind::timed)
      out[{it->second, m.benchmark}].push_back(m.real_ns_per_op);
  return out;
}

}  // namespace

CheckResult compare_runs(const RunsTable& baseline, const RunsTable& current, const CheckConfig& config,
                         const std::vector<MicroRow>& baseline_micro, const std::vector<MicroRow>& current_micro) {
  const Side base = index_side(baseline), cur = index_side(current);
  CheckResult result;
  const MicroSamples base_micro = micro_by_cell(base, baseline_micro), cur_micro = micro_by_cell(cur, current_micro);

  std::vector<const MetricRule*> metrics;
  std::string only_base, only_cur;
  for (const MetricRule& rule : kMetrics) {
    const bool in_base = base.table->has(rule.name), in_cur = cur.table->has(rule.name);
    if (in_base && in_cur) metrics.push_back(&rule);
    else if (in_base) only_base += std::string(only_base.empty() ? "" : ", ") + rule.name;
    else if (in_cur) only_cur += std::string(only_cur.empty() ? "" : ", ") + rule.name;
  }
  if (!only_base.empty()) result.warnings.push_back("metrics only in the baseline, not compared: " + only_base);
  if (!only_cur.empty()) result.warnings.push_back("metrics only in the current runs, not compared: " + only_cur);

  auto threshold_for = [&](const MetricRule& rule, bool exact) {
    if (auto it = config.thresholds.find(rule.name); it != config.thresholds.end()) return it->second;
    if (auto it = config.thresholds.find(rule.group); it != config.thresholds.end()) return it->second;
    return exact ? 0.0 : kDefaultThresholds.at(rule.group);
  };

  double time_threshold = kDefaultThresholds.at("time");
  for (const MetricRule& rule : kMetrics)
    if (rule.name == "elapsed_ns") time_threshold = threshold_for(rule, false);

  std::set<CellKey, CellOrder> keys;
  for (const auto& [key, runs] : base.cells) keys.insert(key);
  for (const auto& [key, runs] : cur.cells) keys.insert(key);

  std::map<std::pair<std::size_t, std::size_t>, std::set<CellKey>> too_few;  // (n_base, n_cur) -> cells
  std::size_t absent = 0, skipped_measured = 0, mixed_kinds = 0;
  std::vector<check_measured::Measured> measured;
  // Times of the other allocators are compared as ratios to this one, rep by rep.
  std::vector<std::string> allocators;
  for (const auto& [key, runs] : cur.cells)
    if (std::find(allocators.begin(), allocators.end(), key[3]) == allocators.end()) allocators.push_back(key[3]);
  const std::string reference = reference_allocator(allocators);
  for (const CellKey& key : keys) {
    auto bi = base.cells.find(key);
    auto ci = cur.cells.find(key);
    if (bi == base.cells.end() || ci == cur.cells.end()) {
      CheckRow r = new_row(key, "cell", Comparison::cell);
      r.verdict = Verdict::missing;
      if (ci == cur.cells.end()) {
        r.n_base = bi->second.runs();
        r.note = "not in the current runs";
        ++absent;
      } else {
        r.n_cur = ci->second.runs();
        r.note = "new: not in the baseline";
      }
      result.rows.push_back(std::move(r));
      continue;
    }
    ++result.cells_compared;
    const CellRuns& b = bi->second;
    const CellRuns& c = ci->second;
    result.rows.push_back(judge_status(key, b, c));
    if (b.ok.empty() || c.ok.empty()) continue;

    const bool one_thread = key[5] == "1";
    const bool one_worker_at_once = most_threads_alive(base, b) <= kMostThreadsOfOneWorker &&
                                    most_threads_alive(cur, c) <= kMostThreadsOfOneWorker;
    for (const MetricRule* rule : metrics) {
      std::string column = rule->name, note;
      if (b.timed != c.timed && from_timed_runs(column)) {
        ++mixed_kinds;  // one side's times were measured under memprof: never compared with times without it
        continue;
      }
      if (column == "elapsed_ns" && !(all_rows_have(base, b, column) && all_rows_have(cur, c, column))) {
        column = "wall_ns";  // workloads that report no elapsed_ns are timed as a whole
        note = "no elapsed_ns: wall_ns compared";
      }
      std::vector<double> vb = values_of(base, b, column), vc = values_of(cur, c, column);
      if (vb.empty() && vc.empty()) continue;
      bool exact = rule->kind == Kind::deterministic && one_thread;
      if (exact && !rule->order_free && !one_worker_at_once) {
        exact = false;
        note = "workers ran side by side: compared as measured";
      }
      if (exact && std::any_of(vb.begin(), vb.end(), [&](double v) { return v != vb.front(); })) {
        exact = false;
        note = "baseline repetitions differ: compared as measured";
      }
      if (config.deterministic_only && !exact) {
        ++skipped_measured;
        continue;
      }
      CheckRow r = new_row(key, rule->name, exact ? Comparison::exact : Comparison::measured);
      r.n_base = vb.size();
      r.n_cur = vc.size();
      r.threshold = threshold_for(*rule, exact);
      r.note = note;
      if (vb.empty() || vc.empty()) {
        r.verdict = Verdict::missing;
        if (!vb.empty()) r.base = median(vb);
        if (!vc.empty()) r.cur = median(vc);
        r.note = vc.empty() ? "no values in the current runs" : "no values in the baseline";
      } else if (exact) {
        judge_exact(vb, vc, r);
      } else if (check_measured::prepare(vb, vc, r)) {
        check_measured::Measured m{result.rows.size(), vb, vc, {}, {}, rule->group};
        if (check_measured::is_time(column) && key[3] != reference) {
          m.paired_b = log_ratios_to_reference(base, key, b, column, reference);
          m.paired_c = log_ratios_to_reference(cur, key, c, column, reference);
        }
        measured.push_back(std::move(m));
        if (std::min(vb.size(), vc.size()) < 2) too_few[{vb.size(), vc.size()}].insert(key);
      }
      result.rows.push_back(std::move(r));
    }
    // The cell's micro-benchmarks, each under the time threshold.
    if (config.deterministic_only) continue;
    for (auto it = cur_micro.lower_bound({key, std::string()}); it != cur_micro.end() && it->first.first == key; ++it) {
      auto before = base_micro.find(it->first);
      if (before == base_micro.end()) continue;
      CheckRow r = new_row(key, "ns_per_op:" + it->first.second, Comparison::measured);
      r.n_base = before->second.size();
      r.n_cur = it->second.size();
      r.threshold = time_threshold;
      if (check_measured::prepare(before->second, it->second, r))
        measured.push_back({result.rows.size(), before->second, it->second, {}, {}, "time"});
      result.rows.push_back(std::move(r));
    }
  }

  check_measured::decide(result.rows, measured, config.alpha, result.notes);

  if (result.cells_compared == 0)
    throw UsageError("no cell (workload, app, size, allocator, tm, threads) is in both " + baseline.source + " and " +
                         current.source,
                     "compare runs of the same workloads, sizes, allocators and thread counts");
  if (absent > 0)
    result.warnings.push_back(std::to_string(absent) + " cell(s) of the baseline are not in the current runs (verdict missing" +
                              (config.fail_on_missing ? ", which fails the check)" : "; --fail-on-missing makes that fail)"));
  for (const auto& [sizes, cells] : too_few)
    result.warnings.push_back(std::to_string(cells.size()) + " cell(s) have " + std::to_string(sizes.first) + " vs " +
                              std::to_string(sizes.second) +
                              " repetitions: a side with one value has no spread to test against, so a change there "
                              "is at worst noisy; run both with --reps and --profile-reps 2 or more (5 or more to "
                              "see changes of 10-20%)");
  if (skipped_measured > 0)
    result.notes.push_back("--deterministic-only: " + std::to_string(skipped_measured) +
                           " comparison(s) not made: times, memory, counts at threads > 1 or whose baseline "
                           "repetitions differ, and peaks of workers that ran side by side");
  return result;
}

}  // namespace allocstamp
