// check_rules.cpp — bench check's metric table and thresholds (check_rules.h):
// the default percent of every group and metric, and --threshold and a
// thresholds file read against them.
#include "analysis/check_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "model/errors.h"
#include "model/input_file.h"
#include "key_names.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace check_rules {

namespace {

std::vector<MetricRule> metrics_from_keys() {
  std::vector<MetricRule> rules;
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.is_checked())
      rules.push_back({std::string(k.name), k.kind, std::string(k.group), k.source == contract::KeySource::counter});
  return rules;
}

const std::vector<MetricRule> kMetrics = metrics_from_keys();

// The percent allowed when nothing is given, by group and by metric (check_rules.h says why).
const std::map<std::string, double> kDefaultThresholds = {
    {"time", 5.0},          {"memory", 20.0},      {"deterministic", 20.0}, {"simulated", 0.5},
    {keys::sim_cycles_count, 1.0}, {keys::sim_d1_misses_count, 1.5}, {keys::sim_ll_misses_count, 5.0},
    {"kernel", kKernelCallsFloor}, {keys::minor_faults_count, kMinorFaultsFloor}};

// A cache-miss count stands for the cycles it costs in the estimate
// (sim_cycles_count: 10 per first-level miss, 100 per last-level one): a change
// worth under 0.1% of the cell's estimated cycles is within the slack. A cell
// of few misses otherwise moves past a percentage floor by a hundred of them,
// as intset-skiplist under glibc did in one A/A sweep of 20 (9,457 to 9,615
// first-level misses, 3.6 M cycles: 0.04% of its cost).
constexpr double kMissSlackShareOfCycles = 0.001;

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

}  // namespace

const std::vector<MetricRule>& metrics() { return kMetrics; }

std::vector<const MetricRule*> compared_metrics(const RunsTable& baseline, const RunsTable& current,
                                                std::vector<std::string>& warnings) {
  std::vector<const MetricRule*> compared;
  std::string only_base, only_cur;
  for (const MetricRule& rule : kMetrics) {
    const bool in_base = baseline.has(rule.name), in_cur = current.has(rule.name);
    if (in_base && in_cur) compared.push_back(&rule);
    else if (in_base) only_base += std::string(only_base.empty() ? "" : ", ") + rule.name;
    else if (in_cur) only_cur += std::string(only_cur.empty() ? "" : ", ") + rule.name;
  }
  if (!only_base.empty()) warnings.push_back("metrics only in the baseline, not compared: " + only_base);
  if (!only_cur.empty()) warnings.push_back("metrics only in the current runs, not compared: " + only_cur);
  return compared;
}

double threshold_for(const CheckConfig& config, const MetricRule& rule, bool exact) {
  if (auto it = config.thresholds.find(rule.name); it != config.thresholds.end()) return it->second;
  if (auto it = config.thresholds.find(rule.group); it != config.thresholds.end()) return it->second;
  if (auto it = kDefaultThresholds.find(rule.name); it != kDefaultThresholds.end() && !exact) return it->second;
  return exact ? 0.0 : kDefaultThresholds.at(rule.group);
}

bool given_threshold(const CheckConfig& config, const MetricRule& rule) {
  return config.thresholds.count(rule.name) > 0 || config.thresholds.count(rule.group) > 0;
}

double time_threshold(const CheckConfig& config) {
  // The group's, not elapsed_ns's: `--threshold elapsed_ns=P` sets one metric.
  const auto given = config.thresholds.find("time");
  return given != config.thresholds.end() ? given->second : kDefaultThresholds.at("time");
}

double simulated_miss_slack(const std::string& metric, double base_cycles) {
  if (!std::isfinite(base_cycles) || base_cycles <= 0) return 0;
  if (metric == keys::sim_d1_misses_count) return kMissSlackShareOfCycles * base_cycles / 10;
  if (metric == keys::sim_ll_misses_count) return kMissSlackShareOfCycles * base_cycles / 100;
  return 0;
}

}  // namespace check_rules

void add_threshold(const std::string& assignment, std::map<std::string, double>& thresholds) {
  const auto eq = assignment.find('=');
  const std::string name = assignment.substr(0, eq);
  double value = 0;
  if (eq == std::string::npos || !check_rules::parse_percent(assignment.substr(eq + 1), value))
    throw UsageError("--threshold '" + assignment + "' is not metric=percent",
                     "write e.g. --threshold elapsed_ns=10 (a number >= 0)");
  if (!check_rules::known_threshold_name(name))
    throw UsageError("--threshold: unknown metric '" + name + "'", "choose from: " + check_rules::known_threshold_names());
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
  const std::map<std::string, double> typed = thresholds;
  for (const auto& [name, value] : doc.items()) {
    if (!check_rules::known_threshold_name(name))
      throw UsageError(file.string() + ": unknown metric '" + name + "'", "choose from: " + check_rules::known_threshold_names());
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      throw UsageError(file.string() + ": the threshold of " + name + " is not a number >= 0", "give a percentage, e.g. \"" + name + "\": 10");
    // The command line's value stays: for the metric, and for a metric of a
    // group it gave (--threshold time=50 over the file's "elapsed_ns": 2).
    const std::string metric = name;  // (not the binding itself in the lambda: clang 14, iwyu's, cannot capture one)
    const auto rule = std::find_if(check_rules::metrics().begin(), check_rules::metrics().end(),
                                   [&](const check_rules::MetricRule& r) { return r.name == metric; });
    if (rule != check_rules::metrics().end() && typed.count(rule->group)) continue;
    thresholds.emplace(name, value.get<double>());
  }
}

}  // namespace allocstamp
