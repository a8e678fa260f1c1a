// check.cpp — the comparison behind `bench check`: which metrics are
// deterministic and which measured (one table), the thresholds, and the verdict
// of every cell and metric. Reading and checking the two runs.csv files too.
// Past 500 lines on purpose: the pairing of cells, the rules per metric and
// the judgement share the internal Side, Pair and MetricRule types and one
// table of metrics; the measured decision's statistics are apart
// (check_measured.*), and so is what is shown (output/check_report.*).
#include "analysis/check.h"
#include "analysis/mechanisms.h"

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

#include "results/cells.h"
#include "analysis/check_measured.h"
#include "analysis/check_repeatable.h"
#include "model/errors.h"
#include "model/format.h"
#include "model/input_file.h"
#include "keys.h"
#include "results/meta.h"
#include "model/statistics.h"
#include "key_names.h"
#include "meta_names.h"

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
enum class Kind { deterministic, measured, simulated, kernel };

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
      rules.push_back({std::string(k.name),
                       k.kind == "deterministic" ? Kind::deterministic
                       : k.kind == "simulated"   ? Kind::simulated
                       : k.kind == "kernel"      ? Kind::kernel
                                                 : Kind::measured,
                       std::string(k.group), k.source == "counter"});
  return rules;
}

const std::vector<MetricRule> kMetrics = metrics_from_keys();

// Percent allowed when nothing is given; an exact compare allows 0 unless its
// metric or the deterministic group is given.
// Memory, and counts compared as measured (threads > 1), move by up to ~15% between two sweeps of the
// same build on this project's 2-core VM (the threads interleave differently; scripts/aa-check): 20%.
// Simulated figures: the floor of their allowance (check_repeatable::judge), by
// metric, from two simulated sweeps of one build (docs/check.md): at one
// thread a single-threaded program's instructions agree exactly (0.5% is far
// above that and below the +1% and +2% regressions the gate is tested on);
// cache misses, fewer and following where blocks land, move more, the last
// level's most.
// Kernel counts (docs/check.md, "Kernel counts"): minor faults of the timed
// runs and the allocator's kernel calls by kind (profiled runs), against their
// repeatability like the simulated figures. Measured over four ci sweeps of one
// build (every ordered pair, 287 one-thread cells): minor faults moved by up to
// 3.6% with one repetition a side; no kernel-call count moved by more than one
// call beyond three times its spread. Floors 5% and 10%, a slack of 2 calls.
// Where workers ran side by side, two sweeps of the ci preset at two threads
// (3 repetitions, both cores loaded) moved minor faults by up to 6.7% beyond
// three times their spread: at least 20% there.
constexpr double kMinorFaultsFloor = 5.0;
constexpr double kKernelCallsFloor = 10.0;
constexpr double kKernelCallsSlack = 2.0;
constexpr double kKernelFloorAtThreads = 20.0;

const std::map<std::string, double> kDefaultThresholds = {
    {"time", 5.0},          {"memory", 20.0},      {"deterministic", 20.0}, {"simulated", 0.5},
    {keys::sim_cycles_count, 1.0}, {keys::sim_d1_misses_count, 1.5}, {keys::sim_ll_misses_count, 5.0},
    {"kernel", kKernelCallsFloor}, {keys::minor_faults_count, kMinorFaultsFloor}};

// A simulated figure whose repetitions differ (threads interleave differently
// from run to run, so transactions abort differently) is allowed
// check_repeatable::kSpreadFactor times the widest relative spread of either
// side's repetitions, and at more than one thread at least
// kSimulatedFloorAtThreads percent: two sweeps' medians of 3 differ by more
// than their own spreads suggest (docs/check.md).
constexpr double kSimulatedFloorAtThreads = 1.0;

// A cache-miss count stands for the cycles it costs in the estimate
// (sim_cycles_count: 10 per first-level miss, 100 per last-level one): a change
// worth under 0.1% of the cell's estimated cycles is within the slack. A cell
// of few misses otherwise moves past a percentage floor by a hundred of them,
// as intset-skiplist under glibc did in one A/A sweep of 20 (9,457 to 9,615
// first-level misses, 3.6 M cycles: 0.04% of its cost).
constexpr double kMissSlackShareOfCycles = 0.001;
double simulated_miss_slack(const std::string& metric, double base_cycles) {
  if (!std::isfinite(base_cycles) || base_cycles <= 0) return 0;
  if (metric == keys::sim_d1_misses_count) return kMissSlackShareOfCycles * base_cycles / 10;
  if (metric == keys::sim_ll_misses_count) return kMissSlackShareOfCycles * base_cycles / 100;
  return 0;
}

std::string known_threshold_names() {
  std::string out = "time, memory, deterministic, simulated, kernel";
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

struct Side {
  const RunsTable* table;
  Cells cells;
};

std::size_t bad_count(const Cell& c) {
  std::size_t n = 0;
  for (const auto& [status, count] : c.statuses)
    if (status != "ok" && status != "skipped") n += std::size_t(count);
  return n;
}
std::size_t run_count(const Cell& c) { return c.ok.size() + bad_count(c); }

// Numeric values of `column` in the ok runs of a cell that measure it (timed
// runs for times, profiled runs for memprof's figures); empty fields are absent.
std::vector<double> values_of(const Side& side, const Cell& cell, const std::string& column) {
  return side.cells.values(cell, column);
}

// A time of the cell's runs over the reference allocator's in the same
// repetition (same workload, size, arguments, tm and threads), as logs: the
// two ran close together in the interleaved sweep, so the machine's drift and
// load shared by neighbouring runs cancel. Empty when the reference has no
// such run.
std::vector<double> log_ratios_to_reference(const Side& side, const Cell& cell, const std::string& column,
                                            const std::string& reference) {
  std::vector<double> out;
  const Cell* ref = side.cells.find(cell.group, cell.id.threads, reference);
  if (!ref || ref == &cell) return out;
  std::map<long, double> by_rep;
  for (const stats::Sample& s : side.cells.samples(*ref, column)) by_rep[s.rep] = s.value;
  for (const stats::Sample& s : side.cells.samples(cell, column)) {
    auto r = by_rep.find(s.rep);
    if (r != by_rep.end() && s.value > 0 && r->second > 0) out.push_back(std::log(s.value / r->second));
  }
  return out;
}

// Most threads memprof saw alive at once in the cell's profiled runs (0 when
// no run says).
double most_threads_alive(const Side& side, const Cell& cell) {
  std::vector<double> v = values_of(side, cell, keys::threads_peak_count);
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}


std::string statuses(const Cell& c) {
  std::string out;
  for (const auto& [status, count] : c.statuses)
    if (status != "ok" && status != "skipped") out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  return out;
}

constexpr double kEpsilon = 1e-9;  // (105 - 100) / 100 is a hair above 0.05

CheckRow new_row(const CellId& cell, std::string metric, Comparison how) {
  CheckRow r;
  r.cell = cell;
  r.metric = std::move(metric);
  r.how = how;
  return r;
}

// Runs that fail now and did not before fail the check; failures on both
// sides are not news.
CheckRow judge_status(const CellId& cell, const Cell& b, const Cell& c) {
  CheckRow r = new_row(cell, keys::status, Comparison::status);
  r.n_base = run_count(b);
  r.n_cur = run_count(c);
  r.base = static_cast<double>(b.ok.size());
  r.cur = static_cast<double>(c.ok.size());
  if (bad_count(c) > 0 && (bad_count(b) == 0 || (c.ok.empty() && !b.ok.empty()))) {
    r.verdict = Verdict::failed;
    r.note = "current: " + statuses(c);
  } else if (bad_count(c) > 0) {
    r.verdict = Verdict::noisy;
    r.note = "runs fail on both sides (baseline: " + statuses(b) + "; current: " + statuses(c) + ")";
  } else if (bad_count(b) > 0) {
    r.verdict = Verdict::improved;
    r.note = "baseline: " + statuses(b);
  }
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

// How a side's simulated runs of a cell were simulated (runs.csv's
// `sim_setup`: each distinct one, sorted, joined by " and "); "" when it has
// no ok simulated run. Compared exactly: a blank setup is "(blank)" and
// matches no other (runs.csv's reader refuses one on an ok simulated run).
std::string simulator_of(const Side& side, const Cell& cell) {
  std::set<std::string> setups;
  for (const CsvRow* row : side.cells.serving(cell, keys::sim_setup)) setups.insert(side.table->text(*row, keys::sim_setup));
  std::string out;
  for (const std::string& s : setups) out += (out.empty() ? "" : " and ") + (s.empty() ? "(blank)" : s);
  return out;
}

}  // namespace

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
  if (!fs::exists(file))
    throw UsageError("cannot read the thresholds file " + file.string(), "give an existing JSON file such as {\"elapsed_ns\": 10}");
  const std::string text = read_input_file(file, std::size_t(1) << 20);  // a regular file (input_file.h)
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
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
    return r.verdict == Verdict::failed || r.verdict == Verdict::regressed || r.verdict == Verdict::unrepeatable ||
           (config.fail_on_missing && r.verdict == Verdict::missing && r.n_cur == 0) ||
           (config.fail_on_change && (r.how == Comparison::exact || r.how == Comparison::range) &&
            r.verdict == Verdict::improved) ||
           (config.fail_on_undecided && r.verdict == Verdict::undecided);
  });
}

namespace {

// A side's micro-benchmark repetitions by cell and benchmark (timed ok runs only).
using MicroSamples = std::map<std::pair<CellId, std::string>, std::vector<double>>;
MicroSamples micro_by_cell(const Side& side, const std::vector<MicroRow>& rows) {
  std::map<long, CellId> cell_of;
  for (const Cell& cell : side.cells.cells)
    for (const CsvRow* row : cell.ok)
      if (side.table->kind(*row) == RunKind::timed) cell_of[std::atol(side.table->text(*row, keys::run_id).c_str())] = cell.id;
  MicroSamples out;
  for (const MicroRow& m : rows)
    if (auto it = cell_of.find(m.run_id); it != cell_of.end() && m.kind == RunKind::timed)
      out[{it->second, m.benchmark}].push_back(m.real_ns_per_op);
  return out;
}

// The cells of the two sides that are compared: the same workload, app, size,
// allocator and threads; `differences` says how else they ran (none: like
// with like).
struct Pair {
  const Cell* base = nullptr;
  const Cell* cur = nullptr;
  std::vector<Difference> differences;
};

std::tuple<std::string, std::string, std::string, std::string, int> loose_key(const CellId& id) {
  return {id.workload, id.app, id.size, id.allocator, id.threads};
}

// Every cell of either side once: paired with its like first, then with a
// cell of the same name that ran differently, else alone.
std::vector<Pair> pair_cells(const Side& base, const Side& cur) {
  std::vector<Pair> pairs;
  // A cell whose runs were all skipped (allocator not installed) did not run: absent.
  std::vector<bool> used(cur.cells.cells.size(), false);
  for (std::size_t i = 0; i < used.size(); ++i) used[i] = run_count(cur.cells.cells[i]) == 0;
  std::vector<const Cell*> unmatched;
  for (const Cell& b : base.cells.cells) {
    if (run_count(b) == 0) continue;
    bool found = false;
    for (std::size_t i = 0; i < cur.cells.cells.size() && !found; ++i)
      if (!used[i] && loose_key(cur.cells.cells[i].id) == loose_key(b.id) &&
          differences(b.id, cur.cells.cells[i].id, "baseline", "current runs").empty()) {
        used[i] = found = true;
        pairs.push_back({&b, &cur.cells.cells[i], {}});
      }
    if (!found) unmatched.push_back(&b);
  }
  for (const Cell* b : unmatched) {
    Pair p{b, nullptr, {}};
    for (std::size_t i = 0; i < cur.cells.cells.size(); ++i)
      if (!used[i] && loose_key(cur.cells.cells[i].id) == loose_key(b->id)) {
        used[i] = true;
        p.cur = &cur.cells.cells[i];
        p.differences = differences(b->id, p.cur->id, "baseline", "current runs");
        break;
      }
    pairs.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < cur.cells.cells.size(); ++i)
    if (!used[i]) pairs.push_back({nullptr, &cur.cells.cells[i], {}});
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) {
    return (x.base ? x.base : x.cur)->id < (y.base ? y.base : y.cur)->id;
  });
  return pairs;
}

// The lowest and the highest value of `column` that any allocator had in the
// side's cells of the same program (its group: workload, size, arguments, TM
// method; and threads). A program's own figure that differs between allocators depends on
// the allocator: libitm's logs grow with the ownership records a transaction
// touches, and where the allocator puts blocks decides how many (two blocks in
// one 32-byte stripe share one), so labyrinth's heap peak under scudo, which
// places blocks at random, takes either of two values from run to run.
std::pair<double, double> allocators_span(const Side& side, const Cell& cell, const std::string& column) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Cell& other : side.cells.cells)
    if (other.group == cell.group && other.id.threads == cell.id.threads)
      for (double v : values_of(side, other, column)) lo = std::min(lo, v), hi = std::max(hi, v);
  return {lo, hi};
}

// meta.json's host and CPU as a message can show them: a control byte (a NUL
// cut the message short) shown escaped.
std::string printable_field(const nlohmann::json& machine, const char* key) {
  const nlohmann::json& v = machine.contains(key) ? machine[key] : nlohmann::json("?");
  return printable_text(v.is_string() ? v.get<std::string>() : v.dump());
}

std::string machine_of(const Meta& m) {
  const nlohmann::json machine = m.doc.value(meta::machine, nlohmann::json::object());
  if (!machine.is_object() || machine.empty()) return "";
  return printable_field(machine, meta::machine_host) + " (" + printable_field(machine, meta::machine_cpu) + ", " +
         std::to_string(machine.value(meta::machine_cores, 0)) + " cores)";
}

}  // namespace

const std::vector<std::string>& difference_names() {
  static const std::vector<std::string> names = {"args", "env", "library", "tm", "machine", "simulator"};
  return names;
}

std::string machine_difference(const RunsTable& baseline, const RunsTable& current) {
  const std::string b = machine_of(meta_next_to(baseline)), c = machine_of(meta_next_to(current));
  if (b.empty() || c.empty() || b == c) return "";
  return "the baseline ran on " + b + ", the current runs on " + c;
}

CheckResult compare_runs(const RunsTable& baseline, const RunsTable& current, const CheckConfig& config,
                         const std::vector<MicroRow>& baseline_micro, const std::vector<MicroRow>& current_micro) {
  const Side base{&baseline, cells_of(baseline)}, cur{&current, cells_of(current)};
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
  for (const auto& [side, table] : {std::pair{"baseline", base.table}, std::pair{"current runs", cur.table}})
    if (!table->has(keys::args) && (base.table->has(keys::args) || cur.table->has(keys::args)))
      result.notes.push_back(std::string("the ") + side + " (" + table->source +
                                ") is older than schema 4: it does not record the workloads' arguments, environment "
                                "and allocator libraries, so cells are paired by name alone");

  auto threshold_for = [&](const MetricRule& rule, bool exact) {
    if (auto it = config.thresholds.find(rule.name); it != config.thresholds.end()) return it->second;
    if (auto it = config.thresholds.find(rule.group); it != config.thresholds.end()) return it->second;
    if (auto it = kDefaultThresholds.find(rule.name); it != kDefaultThresholds.end() && !exact) return it->second;
    return exact ? 0.0 : kDefaultThresholds.at(rule.group);
  };
  auto given_threshold = [&](const MetricRule& rule) {
    return config.thresholds.count(rule.name) > 0 || config.thresholds.count(rule.group) > 0;
  };

  double time_threshold = kDefaultThresholds.at("time");
  for (const MetricRule& rule : kMetrics)
    if (rule.name == keys::elapsed_ns) time_threshold = threshold_for(rule, false);

  // Kernel counts depend on the kernel and its huge-page mode: compared only
  // between sweeps on the same.
  const std::string kernel_b = meta_next_to(baseline).kernel_setup(), kernel_c = meta_next_to(current).kernel_setup();
  if (!kernel_b.empty() && !kernel_c.empty() && kernel_b != kernel_c)
    result.kernel_not_compared = "the baseline ran on " + kernel_b + ", the current runs on " + kernel_c;
  std::size_t kernel_other_library = 0, kernel_one_rep = 0;
  std::map<std::pair<std::size_t, std::size_t>, std::set<std::string>> too_few;  // (n_base, n_cur) -> cells
  std::size_t absent = 0, skipped_measured = 0;
  std::set<std::string> missing_micro;  // the baseline's micro-benchmarks a current cell lacks
  std::vector<std::string> busy_base, busy_cur;
  std::vector<check_measured::Measured> measured;
  // Times of the other allocators are compared as ratios to this one, rep by rep.
  const std::string& reference = cur.cells.reference;
  for (const Pair& pair : pair_cells(base, cur)) {
    if (!pair.base || !pair.cur) {
      CheckRow r = new_row((pair.base ? pair.base : pair.cur)->id, "cell", Comparison::cell);
      r.verdict = Verdict::missing;
      if (!pair.cur) {
        r.n_base = run_count(*pair.base);
        r.note = "not in the current runs";
        ++absent;
      } else {
        r.n_cur = run_count(*pair.cur);
        r.note = "new: not in the baseline";
      }
      result.rows.push_back(std::move(r));
      continue;
    }
    const Cell& b = *pair.base;
    const Cell& c = *pair.cur;
    std::string ran_differently;
    bool allowed = true;
    for (const Difference& d : pair.differences) {
      ran_differently += (ran_differently.empty() ? "" : "; ") + d.text;
      allowed = allowed && config.allow_different.count(d.what);
    }
    if (!allowed) {
      // Never compared silently: listed, and the check exits 2 (commands/check.cpp).
      CheckRow r = new_row(c.id, "cell", Comparison::cell);
      r.verdict = Verdict::not_comparable;
      r.n_base = run_count(b);
      r.n_cur = run_count(c);
      r.note = "ran differently: " + ran_differently;
      for (const Difference& d : pair.differences)
        if (!config.allow_different.count(d.what)) result.not_comparable[d.what].push_back(d.text);
      result.rows.push_back(std::move(r));
      continue;
    }
    ++result.cells_compared;
    if (base.cells.busy_runs(b)) busy_base.push_back(cell_label(b.id));
    if (cur.cells.busy_runs(c)) busy_cur.push_back(cell_label(c.id));
    const std::string allowed_note = ran_differently.empty() ? "" : "ran differently (allowed): " + ran_differently;
    CheckRow status = judge_status(c.id, b, c);
    if (!allowed_note.empty()) status.note = status.note.empty() ? allowed_note : status.note + "; " + allowed_note;
    result.rows.push_back(std::move(status));
    if (b.ok.empty() || c.ok.empty()) continue;

    // Simulated figures compare only between runs simulated alike.
    const std::string sim_b = simulator_of(base, b), sim_c = simulator_of(cur, c);
    const bool sim_differ = !sim_b.empty() && !sim_c.empty() && sim_b != sim_c;
    if (sim_differ && !config.allow_different.count("simulator"))
      result.not_comparable["simulator"].push_back("simulated on " + sim_b + " in the baseline, on " + sim_c + " now");
    const bool one_thread = c.id.threads == 1;
    const bool one_worker_at_once = most_threads_alive(base, b) <= kMostThreadsOfOneWorker &&
                                    most_threads_alive(cur, c) <= kMostThreadsOfOneWorker;
    for (const MetricRule* rule : metrics) {
      std::string column = rule->name, note;
      if (b.timed != c.timed && from_timed_runs(column)) continue;  // one side's times were measured under memprof
      if (column == keys::elapsed_ns && common_time_key(b, c) == keys::wall_ns) {
        column = keys::wall_ns;  // workloads that report no elapsed_ns are timed as a whole
        note = "no elapsed_ns: wall_ns compared";
      }
      std::vector<double> vb = values_of(base, b, column), vc = values_of(cur, c, column);
      if (vb.empty() && vc.empty()) continue;
      if (rule->kind == Kind::simulated) {
        CheckRow r = new_row(c.id, rule->name, Comparison::simulated);
        r.n_base = vb.size();
        r.n_cur = vc.size();
        r.threshold = threshold_for(*rule, false);
        // Threads side by side (more than one at --threads 1 too: xmalloc's
        // producer and consumer, larson's hand-offs) interleave differently
        // from run to run, also under valgrind.
        if (!(one_thread && one_worker_at_once) && !given_threshold(*rule)) {
          r.threshold = std::max(r.threshold, kSimulatedFloorAtThreads);
          if (one_thread) note = "workers ran side by side: at least " + std::to_string(int(kSimulatedFloorAtThreads)) + "% allowed";
        }
        if (sim_differ && !config.allow_different.count("simulator")) {
          r.verdict = Verdict::not_comparable;
          r.note = "simulated differently: " + sim_b + " in the baseline, " + sim_c + " now";
        } else if (vb.empty() || vc.empty()) {
          r.verdict = Verdict::missing;
          r.note = vc.empty() ? "no simulated runs in the current runs" : "no simulated runs in the baseline";
        } else {
          check_repeatable::judge(vb, vc, simulated_miss_slack(rule->name, stats::median(values_of(base, b, keys::sim_cycles_count))),
                                  r);
          if (!note.empty()) r.note = r.note.empty() ? note : note + "; " + r.note;
          if (sim_differ) r.note += std::string(r.note.empty() ? "" : "; ") + "simulated differently (allowed)";
        }
        if (!allowed_note.empty()) r.note = r.note.empty() ? allowed_note : r.note + "; " + allowed_note;
        result.rows.push_back(std::move(r));
        continue;
      }
      if (rule->kind == Kind::kernel) {
        if (!result.kernel_not_compared.empty()) continue;
        // Kernel calls are the allocator's own: another library or tuning makes other ones.
        if (std::any_of(pair.differences.begin(), pair.differences.end(), [](const Difference& d) {
              return d.what == "library" || d.what == "env";
            })) {
          ++kernel_other_library;
          continue;
        }
        const bool repeats = one_thread && one_worker_at_once;
        // Where workers ran side by side a count moves with the interleaving:
        // without two repetitions a side there is no spread to judge it by.
        if (!repeats && std::min(vb.size(), vc.size()) < 2) {
          ++kernel_one_rep;
          continue;
        }
        CheckRow r = new_row(c.id, rule->name, Comparison::kernel);
        r.n_base = vb.size();
        r.n_cur = vc.size();
        r.threshold = threshold_for(*rule, false);
        if (!repeats && !given_threshold(*rule)) {
          r.threshold = std::max(r.threshold, kKernelFloorAtThreads);
          note = "workers ran side by side: at least " + std::to_string(int(kKernelFloorAtThreads)) + "% allowed";
        }
        if (vb.empty() || vc.empty()) {
          r.verdict = Verdict::missing;
          r.note = vc.empty() ? "no values in the current runs" : "no values in the baseline";
        } else {
          check_repeatable::judge(vb, vc, rule->name == keys::minor_faults_count ? 0.0 : kKernelCallsSlack, r);
          if (!note.empty()) r.note = r.note.empty() ? note : note + "; " + r.note;
        }
        if (!allowed_note.empty()) r.note = r.note.empty() ? allowed_note : r.note + "; " + allowed_note;
        result.rows.push_back(std::move(r));
        continue;
      }
      bool exact = rule->kind == Kind::deterministic && one_thread;
      if (exact && !rule->order_free && !one_worker_at_once) {
        exact = false;
        note = "workers ran side by side: compared as measured";
      }
      if (exact && std::any_of(vb.begin(), vb.end(), [&](double v) { return v != vb.front(); })) {
        const auto [lo, hi] = std::minmax_element(vb.begin(), vb.end());
        const std::string spread = std::to_string(static_cast<long long>(*lo)) + ".." + std::to_string(static_cast<long long>(*hi));
        if (rule->order_free) {
          // A count at one thread repeats exactly: a baseline that does not is no baseline for it.
          CheckRow r = new_row(c.id, rule->name, Comparison::exact);
          r.n_base = vb.size();
          r.n_cur = vc.size();
          r.base = stats::median(vb);
          r.cur = vc.empty() ? kNaN : stats::median(vc);
          r.verdict = Verdict::unrepeatable;
          r.note = "the baseline's repetitions differ (" + spread +
                   "): a count at one thread must repeat exactly; re-record the baseline, or find what made it vary";
          result.rows.push_back(std::move(r));
          continue;
        }
        exact = false;
        note = "baseline repetitions differ (" + spread + "): compared as measured";
        ++result.unrepeatable_in_baseline[c.id.workload + " " + rule->name];
      }
      if (config.deterministic_only && !exact) {
        ++skipped_measured;
        continue;
      }
      const auto [span_lo, span_hi] = exact ? allocators_span(base, b, column) : std::pair{kNaN, kNaN};
      const bool in_range = exact && span_lo < span_hi;
      CheckRow r = new_row(c.id, rule->name,
                           in_range ? Comparison::range : exact ? Comparison::exact : Comparison::measured);
      r.n_base = vb.size();
      r.n_cur = vc.size();
      r.threshold = threshold_for(*rule, exact);
      r.note = note;
      if (!allowed_note.empty()) r.note = r.note.empty() ? allowed_note : r.note + "; " + allowed_note;
      r.busy = check_measured::is_time(column) && (base.cells.busy_runs(b) || cur.cells.busy_runs(c));
      if (r.busy)
        r.note += std::string(r.note.empty() ? "" : "; ") + "measured on a busy machine (" +
                  (base.cells.busy_runs(b) ? "baseline" : "") +
                  (base.cells.busy_runs(b) && cur.cells.busy_runs(c) ? ", " : "") +
                  (cur.cells.busy_runs(c) ? "current" : "") + ")";
      if (vb.empty() || vc.empty()) {
        r.verdict = Verdict::missing;
        if (!vb.empty()) r.base = check_measured::center(vb);
        if (!vc.empty()) r.cur = check_measured::center(vc);
        r.note = vc.empty() ? "no values in the current runs" : "no values in the baseline";
      } else if (in_range) {
        const std::string differ = judge_within(vb, vc, span_lo, span_hi, r);
        r.note = "the baseline's allocators differ (" + std::to_string(static_cast<long long>(span_lo)) + " to " +
                 std::to_string(static_cast<long long>(span_hi)) + "): compared with that range" +
                 (differ.empty() ? "" : "; " + differ) + (allowed_note.empty() ? "" : "; " + allowed_note);
      } else if (exact) {
        const std::string differ = judge_within(vb, vc, vb.front(), vb.front(), r);
        if (!differ.empty()) r.note = differ;
      } else if (check_measured::prepare(vb, vc, r)) {
        check_measured::Measured m{result.rows.size(), vb, vc, {}, {}, rule->group};
        if (check_measured::is_time(column) && c.allocator != reference) {
          m.paired_b = log_ratios_to_reference(base, b, column, reference);
          m.paired_c = log_ratios_to_reference(cur, c, column, reference);
        }
        measured.push_back(std::move(m));
        if (std::min(vb.size(), vc.size()) < 2) too_few[{vb.size(), vc.size()}].insert(cell_label(c.id));
      }
      result.rows.push_back(std::move(r));
    }
    // The cell's micro-benchmarks, each under the time threshold; one on a
    // side only is missing, as a metric would be (a benchmark dropped from
    // the current micro.csv fails --fail-on-missing).
    if (config.deterministic_only) continue;
    std::set<std::string> benchmarks;
    auto add_benchmarks = [&](const MicroSamples& side, const CellId& id) {
      for (auto it = side.lower_bound({id, std::string()}); it != side.end() && it->first.first == id; ++it)
        benchmarks.insert(it->first.second);
    };
    add_benchmarks(base_micro, b.id);
    add_benchmarks(cur_micro, c.id);
    for (const std::string& benchmark : benchmarks) {
      const auto before = base_micro.find({b.id, benchmark}), now = cur_micro.find({c.id, benchmark});
      CheckRow r = new_row(c.id, "ns_per_op:" + benchmark, Comparison::measured);
      r.threshold = time_threshold;
      if (before == base_micro.end() || now == cur_micro.end()) {
        r.verdict = Verdict::missing;
        if (now == cur_micro.end()) {
          r.n_base = before->second.size();
          r.base = check_measured::center(before->second);
          r.note = "not in the current micro.csv";
          missing_micro.insert(benchmark);
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
        measured.push_back({result.rows.size(), before->second, now->second, {}, {}, "time"});
      result.rows.push_back(std::move(r));
    }
  }

  check_measured::decide(result.rows, measured, config.alpha, reference, result.notes);
  // A time that moved while the machine was busy says more about the machine.
  std::size_t suspect = 0;
  if (!config.trust_busy)
    for (CheckRow& r : result.rows)
      if (r.busy && (r.verdict == Verdict::regressed || r.verdict == Verdict::improved)) {
        r.note = std::string(r.verdict == Verdict::regressed ? "slower" : "faster") + " beyond the threshold, but " +
                 r.note + ": suspect, not a verdict (--trust-busy judges it)";
        r.verdict = Verdict::suspect;
        ++suspect;
      }
  // A time that moved comes with what moved with it, as far as it was measured.
  auto cell_of = [](const Side& side, const CellId& id) -> const Cell* {
    for (const Cell& c : side.cells.cells)
      if (c.id.workload == id.workload && c.id.app == id.app && c.id.size == id.size && c.id.allocator == id.allocator &&
          c.id.tm == id.tm && c.id.threads == id.threads && c.id.args == id.args)
        return &c;
    return nullptr;
  };
  for (CheckRow& r : result.rows) {
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

  if (result.cells_compared == 0 && result.not_comparable.empty())
    throw UsageError("no cell (workload, app, size, allocator, tm, threads) is in both " + baseline.source + " and " +
                         current.source,
                     "compare runs of the same workloads, sizes, allocators and thread counts");
  if (absent > 0)
    result.warnings.push_back(std::to_string(absent) + " cell(s) of the baseline are not in the current runs (verdict missing" +
                              (config.fail_on_missing ? ", which fails the check)" : "; --fail-on-missing makes that fail)"));
  if (!missing_micro.empty()) {
    std::string list;
    for (const std::string& benchmark : missing_micro) list += (list.empty() ? "" : ", ") + benchmark;
    result.warnings.push_back(std::to_string(missing_micro.size()) +
                              " micro-benchmark(s) of the baseline are not in the current micro.csv (verdict missing" +
                              (config.fail_on_missing ? ", which fails the check): " : "; --fail-on-missing makes that fail): ") +
                              list);
  }
  for (const auto& [side, busy] : {std::pair{"baseline", &busy_base}, std::pair{"current runs", &busy_cur}})
    if (!busy->empty()) {
      std::string list;
      for (const std::string& label : *busy) list += (list.empty() ? "" : ", ") + label;
      result.warnings.push_back(std::to_string(busy->size()) + " cell(s) of the " + side +
                                " were measured on a busy machine (other processes used more than a quarter of the "
                                "CPU, or the hypervisor stole more than a tenth): their times are suspect: " + list);
    }
  for (const auto& [sizes, cells] : too_few)
    result.warnings.push_back(std::to_string(cells.size()) + " cell(s) have " + std::to_string(sizes.first) + " vs " +
                              std::to_string(sizes.second) +
                              " repetitions: a side with one value has no spread to test against, so a change there "
                              "is at worst noisy; run both with --reps and --profile-reps 2 or more (5 or more to "
                              "see changes of 10-20%)");
  if (suspect > 0)
    result.warnings.push_back(std::to_string(suspect) + " time(s) moved beyond their threshold on a busy machine: "
                              "suspect, not regressed or improved (rerun on an idle machine, or --trust-busy)");
  if (skipped_measured > 0)
    result.notes.push_back("--deterministic-only: " + std::to_string(skipped_measured) +
                           " comparison(s) not made: times, memory, counts at threads > 1, peaks of workers that ran "
                           "side by side, and peaks whose baseline repetitions differ (simulated figures and kernel "
                           "counts are compared)");
  if (!result.unrepeatable_in_baseline.empty()) {
    std::string list;
    int cells = 0;
    for (const auto& [what, n] : result.unrepeatable_in_baseline) {
      list += (list.empty() ? "" : ", ") + what + " (" + std::to_string(n) + ")";
      cells += n;
    }
    result.notes.push_back(std::to_string(cells) + " deterministic figure(s) at one thread whose baseline repetitions "
                           "differ (peaks that race), " + (config.deterministic_only ? "not compared" :
                           "compared as measured") + ": " + list);
  }
  if (!result.kernel_not_compared.empty())
    result.notes.push_back("kernel counts (minor faults, the allocator's kernel calls) not compared: " +
                           result.kernel_not_compared + ", and both depend on it");
  if (kernel_other_library > 0)
    result.notes.push_back(std::to_string(kernel_other_library) +
                           " kernel count(s) not compared: the allocator's library or tuning differs (allowed), and "
                           "its kernel calls and page faults are its own");
  if (kernel_one_rep > 0)
    result.notes.push_back(std::to_string(kernel_one_rep) +
                           " kernel count(s) not compared: workers ran side by side, and a side has one repetition, "
                           "so no spread to judge them by (--reps and --profile-reps 2 or more)");
  return result;
}

}  // namespace allocstamp
