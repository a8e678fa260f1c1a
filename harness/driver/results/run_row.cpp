// run_row.cpp — a run's row of runs.csv (run_row.h): every value in its
// declared type, placed in the folder's columns, the rest in extra.
#include "results/run_row.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "key_names.h"
#include "keys.h"
#include "model/catalog.h"
#include "model/fields.h"

namespace allocstamp {

namespace {

// A measured figure with a fixed number of decimals; empty when not measured (NaN).
std::string fixed(double v, const char* format) {
  if (!std::isfinite(v)) return "";
  char text[32];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

// A problem as the failure text shows it: control bytes as '?', and a long
// value cut (the value itself is in the run's log, not needed twice).
std::string printable(const std::string& problem) {
  std::string shown;
  for (char c : problem) shown += (static_cast<unsigned char>(c) < 32 || c == 127 || c == '"') ? '?' : c;
  return shown.size() > 160 ? shown.substr(0, 150) + "..." : shown;
}

// Blanks every field of `r` that its column's declared type refuses
// (runs.csv's columns from the @memprof record, @metric and simulated keys;
// the side tables' from @sample, @scope, @micro) and says why, naming the
// file and column. A key keys.def lacks goes to extra as text: never refused.

std::vector<std::string> refuse_bad_fields(Records& r) {
  std::vector<std::string> refused;
  auto check = [&](KeyValues& values, const std::string& file, const std::function<std::string(const std::string&)>& type_of) {
    for (auto& [key, value] : values) {
      if (value.empty()) continue;
      const std::string type = type_of(key);
      if (std::string problem = field_problem(type, value); !problem.empty()) {
        refused.push_back(file + "column " + key + ": " + printable(problem) + " (left empty)");
        value.clear();
      }
    }
  };
  auto run_type = [](const std::string& key) { return field_type_of(key); };
  check(r.memprof, "", run_type);
  check(r.metrics, "", run_type);
  check(r.simulated, "", run_type);
  for (const auto& [records, table] : {std::pair{&r.samples, "series"}, {&r.scopes, "scopes"}, {&r.micro, "micro"}}) {
    auto side_type = [table = table](const std::string& key) {  // (a named copy: clang 14, iwyu's, captures no binding)
      for (const keys::SideColumn& c : keys::side_columns)
        if (c.table == table && c.name == key) return std::string(c.type);
      return std::string();
    };
    for (KeyValues& record : *records) check(record, std::string(table) + ".csv ", side_type);
  }
  return refused;
}

}  // namespace

RunRow run_row(const Run& run, const RunSetting& setting, Status status, const Finished& f, const Records& given,
               const CsvRow& columns, const std::string& log) {
  Records r = given;
  // Every field in its declared type (keys.def, fields.h) before anything is
  // written: a value the readers would refuse is left out, and the run is
  // failed with the column named, so the folder stays readable and the sweep
  // goes on (--resume --redo-failed makes the run again).
  std::vector<std::string> refused = refuse_bad_fields(r);
  if (!refused.empty() && status != Status::skipped) {
    status = Status::failed;
    std::string why;
    for (const std::string& problem : refused) why += (why.empty() ? "" : "; ") + problem;
    auto& failure = r.metrics["failure"];
    failure = failure.empty() ? "\"" + why + "\"" : failure.substr(0, failure.size() - 1) + "; " + why + "\"";
  }
  KeyValues values = r.memprof;
  for (const auto& [k, v] : r.metrics) values[k] = v;
  for (const auto& [k, v] : r.simulated) values[k] = v;
  values[keys::run_id] = std::to_string(run.id);
  values[keys::workload] = run.workload.name;
  values[keys::app] = run.workload.app;
  values[keys::size] = run.size;
  values[keys::args] = setting.args;
  values[keys::allocator] = run.allocator.name;
  values[keys::alloc_library] = setting.alloc_library;
  values[keys::alloc_env] = setting.alloc_env;
  values[keys::tm] = run.tm;
  values[keys::threads] = std::to_string(run.threads);
  values[keys::rep] = std::to_string(run.rep);
  values[keys::kind] = kind_name(run.kind);
  values[keys::status] = status_name(status);
  values[keys::exit_code] = f.exit_code >= 0 && !f.signal ? std::to_string(f.exit_code) : "";
  values[keys::signal] = f.signal ? std::to_string(f.signal) : "";
  if (status != Status::skipped && !f.start_failed) {
    values[keys::wall_ns] = std::to_string(f.wall_ns);
    values[keys::user_ns] = std::to_string(f.user_ns);
    values[keys::sys_ns] = std::to_string(f.sys_ns);
    values[keys::maxrss_kb] = std::to_string(f.maxrss_kb);
    if (f.user_ns + f.sys_ns > 0)
      values[keys::sys_share_pct] = fixed(100.0 * double(f.sys_ns) / double(f.user_ns + f.sys_ns), "%.1f");
    values[keys::minor_faults_count] = std::to_string(f.minor_faults);
    values[keys::major_faults_count] = std::to_string(f.major_faults);
    values[keys::voluntary_switches_count] = std::to_string(f.voluntary_switches);
    values[keys::involuntary_switches_count] = std::to_string(f.involuntary_switches);
    values[keys::load_avg_before] = fixed(f.load_avg_before, "%.2f");
    values[keys::others_cpu_pct] = fixed(f.others_cpu_pct, "%.1f");
    values[keys::steal_pct] = fixed(f.steal_pct, "%.1f");
  }
  // A skipped run never started: it has no log to point to.
  if (status != Status::skipped) values[keys::log] = log;
  // Keys that are not columns of this folder (and not identity keys of the
  // record) go to extra: the program's own, and, in a resumed folder of an
  // older schema, a number the program or memprof measured that this schema
  // made a column (the map workloads' elements_count in a schema 8 folder),
  // where the readers find it. bench's own newer columns stay out, as they
  // were before (a text such as alloc_env holds ';').
  std::set<std::string> known, dropped;
  for (const contract::KeyInfo& k : contract::kKeys) {
    const std::string name(k.name);
    const bool measured_number = k.source != contract::KeySource::plan && k.source != contract::KeySource::driver &&
                                 k.type != "text";
    if (!k.is_column()) dropped.insert(name);
    else if (std::find(columns.begin(), columns.end(), name) != columns.end() || !measured_number) known.insert(name);
  }
  std::string extra;
  for (const auto& [k, v] : values)
    if (!known.count(k) && !dropped.count(k)) extra += (extra.empty() ? "" : ";") + k + "=" + v;
  values[keys::extra] = extra;
  CsvRow row;
  for (const std::string& name : columns) row.push_back(values.count(name) ? values[name] : "");
  return RunRow{status, std::move(r), std::move(row)};
}

}  // namespace allocstamp
