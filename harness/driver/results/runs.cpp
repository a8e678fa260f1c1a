// runs.cpp — the one reader of runs.csv (runs.h).
#include "results/runs.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "model/errors.h"
#include "run/callgrind_output.h"
#include "run/machine.h"
#include "keys.h"
#include "model/fields.h"
#include "model/input_file.h"
#include "results/meta.h"
#include "key_names.h"

namespace allocstamp {

namespace fs = std::filesystem;

using contract::kResultsSchema;

namespace {

std::size_t column_of(const CsvRow& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? header.size() : static_cast<std::size_t>(it - header.begin());
}

// The first line of a bench CSV is "# allocstamp <file> schema <n>": returns n.
long check_schema_line(const fs::path& file, const std::string& role) {
  // The first line only, from a regular file (input_file.h: no FIFO, device or loop).
  const int fd = open_input_file(file);
  char head[256];
  ssize_t got = ::read(fd, head, sizeof head);
  ::close(fd);
  std::string first = got > 0 ? std::string(head, std::size_t(got)) : std::string();
  if (first.empty())
    throw UsageError(role + " " + file.string() + " is empty or unreadable", "give a runs.csv written by bench");
  first = first.substr(0, first.find('\n'));
  if (!first.empty() && first.back() == '\r') first.pop_back();  // CRLF, as read_csv takes it
  const std::string expected = "# allocstamp runs.csv schema " + std::to_string(kResultsSchema);
  if (first == expected) return kResultsSchema;
  const std::string prefix = "# allocstamp ";
  if (first.rfind(prefix, 0) != 0)
    throw UsageError(role + " " + file.string() + " does not start with '" + expected + "'",
                     "it is not a runs.csv written by bench; give a results folder or its runs.csv");
  std::string rest = first.substr(prefix.size());  // "<file> schema <n>"
  std::string kind = rest.substr(0, rest.find(' '));
  if (kind != "runs.csv")
    throw UsageError(role + " " + file.string() + " is " + kind + ", not runs.csv",
                     "check compares the runs: give the results folder or its runs.csv");
  const std::string number = rest.substr(rest.rfind(' ') + 1);
  char* end = nullptr;
  long schema = std::strtol(number.c_str(), &end, 10);
  // Schema 1 lacks only libitm's own figures, which check does not compare.
  if (*end == '\0' && schema >= 1 && schema < kResultsSchema) return schema;
  if (*end == '\0' && schema > kResultsSchema)
    throw UsageError(role + " " + file.string() + " has schema " + number + ", newer than this bench reads (" +
                         std::to_string(kResultsSchema) + ")",
                     "compare it with a newer allocstamp");
  throw UsageError(role + " " + file.string() + " has schema '" + number + "', which this bench does not read (it reads " +
                       std::to_string(kResultsSchema) + ")",
                   "rerun the benchmark with this allocstamp");
}

}  // namespace

namespace {

// Every field a reader relies on, checked once: unique positive run ids,
// positive thread counts, known statuses and kinds, names of the character
// set of fields.h, and each column of keys.def in its type's domain
// (fields.h). UsageError names the file, row and column.
void validate(const RunsTable& t, const std::string& role) {
  std::map<std::string, std::string> type_of;
  for (const contract::KeyInfo& k : contract::kKeys) type_of[std::string(k.name)] = std::string(k.type);
  std::set<std::string> ids;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const CsvRow& row = t.rows[r];
    auto bad = [&](const std::string& column, const std::string& what) {
      throw UsageError(role + " " + t.source + ": data row " + std::to_string(r + 1) + ", column " + column + ": " +
                           what,
                       "the file is damaged: repair that row or rerun the benchmark");
    };
    if (t.has(keys::run_id)) {
      const std::string& id = t.text(row, keys::run_id);
      if (!is_count(id) || id == "0" || id[0] == '0') bad(keys::run_id, "'" + id + "' is not a run number");
      if (!ids.insert(id).second) bad(keys::run_id, "run " + id + " appears twice");
    }
    const std::string& threads = t.text(row, keys::threads);
    if (!is_count(threads) || threads[0] == '0') bad(keys::threads, "'" + threads + "' is not a thread count");
    Status status = Status::ok;
    if (!parse_status(t.text(row, keys::status), status)) bad(keys::status, "'" + t.text(row, keys::status) + "' is not a status");
    RunKind kind = RunKind::profiled;
    if (t.has(keys::kind) && !parse_kind(t.text(row, keys::kind), kind))
      bad(keys::kind, "'" + t.text(row, keys::kind) + "' is not timed, profiled or simulated");
    for (const char* key : {keys::workload, keys::allocator, keys::size, keys::tm})
      if (const std::string& name = t.text(row, key); !(name.empty() && (key == keys::tm || key == keys::size)))
        if (std::string problem = key == keys::allocator ? allocator_name_problem(name) : name_problem(name);
            !problem.empty())
          bad(key, problem);
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string& field = row[c];
      if (field.empty()) continue;
      auto type = type_of.find(t.header[c]);
      if (type == type_of.end()) continue;  // an extra column: the program's own
      if (std::string problem = field_problem(type->second, field); !problem.empty()) bad(t.header[c], problem);
    }
    // An ok simulated run's figures are what callgrind_output.h writes: every
    // one present, consistent with the others, simulated on a named simulator.
    if (t.has(keys::kind) && kind == RunKind::simulated && status == Status::ok) {
      if (std::string problem = identity_problem(t.text(row, keys::sim_setup)); !problem.empty())
        bad(keys::sim_setup, "the simulator's identity is " + problem);
      KeyValues figures;
      for (const contract::KeyInfo& k : contract::kKeys)
        if (k.source == contract::KeySource::simulator && t.has(std::string(k.name)))
          figures[std::string(k.name)] = t.text(row, std::string(k.name));
      if (const FiguresProblem p = simulated_figures_problem(figures); !p.key.empty()) bad(p.key, p.what);
    }
  }
}

}  // namespace

namespace {
std::atomic<int> files_loaded{0};
}  // namespace

int runs_files_loaded() { return files_loaded.load(); }

RunsTable load_runs(const fs::path& path, const std::string& role) {
  ++files_loaded;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    file = path / "runs.csv";
    if (!fs::exists(fs::symlink_status(file, ec)))
      throw UsageError(role + " " + path.string() + " holds no runs.csv",
                       "give a results folder written by bench, or a runs.csv file");
  } else if (ec && ec != std::errc::no_such_file_or_directory) {
    throw UsageError(role + " " + path.string() + ": " + ec.message(), "check the path (a symbolic link loop?)");
  } else if (!fs::exists(path, ec)) {
    throw UsageError(role + " " + path.string() + " does not exist",
                     "give a results folder (e.g. results/latest) or a runs.csv file");
  }
  const long schema = check_schema_line(file, role);
  RunsTable t;
  t.source = file.string();
  try {
    t.rows = read_csv(file, &t.header);
  } catch (const UsageError& e) {
    throw UsageError(role + " ", e);  // which of two folders (check's baseline or current)
  }
  for (const char* key : {keys::workload, keys::app, keys::size, keys::allocator, keys::tm, keys::threads, keys::status})
    if (column_of(t.header, key) == t.header.size())
      throw UsageError(role + " " + t.source + " lacks the column '" + key + "'", "it is not a runs.csv written by bench");
  // This schema's file has every column this bench writes: one missing was
  // removed (an older schema's file is read with the columns it has).
  if (schema == kResultsSchema)
    for (const contract::KeyInfo& k : contract::kKeys)
      if (k.is_column() && !t.has(std::string(k.name)))
        throw UsageError(role + " " + t.source + " lacks the column '" + std::string(k.name) + "' of schema " +
                             std::to_string(kResultsSchema),
                         "the file is damaged: rerun the benchmark, or restore the file");
  validate(t, role);
  if (!t.has(keys::kind) && read_meta(file.parent_path(), MetaMissing::allow).unprofiled()) t.default_kind = RunKind::timed;
  return t;
}

std::size_t RunsTable::column(const std::string& name) const { return column_of(header, name); }

const std::string& RunsTable::text(const CsvRow& row, const std::string& name) const {
  static const std::string none;
  std::size_t i = column(name);
  return i < row.size() ? row[i] : none;
}

double RunsTable::number(const CsvRow& row, const std::string& name) const {
  const std::string& field = text(row, name);
  if (field.empty()) return extra_number(row, name);
  const double v = field_number(field);
  if (std::isnan(v)) {
    std::size_t id = column(keys::run_id);
    throw UsageError(source + ": column " + name + (id < row.size() ? " of run " + row[id] : "") + " holds '" + field +
                         "', not a number",
                     "the file is damaged: repair that row or rerun the benchmark");
  }
  return v;
}

double RunsTable::extra_number(const CsvRow& row, const std::string& name) const {
  const std::string value = extra_text(row, name);
  return value.empty() ? NAN : field_number(value);
}

std::string RunsTable::extra_text(const CsvRow& row, const std::string& name) const {
  const std::string& extra = text(row, keys::extra);
  std::size_t at = 0;
  while (at < extra.size()) {
    const std::size_t end_of_key = extra.find('=', at);
    if (end_of_key == std::string::npos) return "";
    const std::string key = extra.substr(at, end_of_key - at);
    std::size_t value_end;
    std::string value;
    if (end_of_key + 1 < extra.size() && extra[end_of_key + 1] == '"') {  // a quoted value may hold ';'
      const std::size_t close = extra.find('"', end_of_key + 2);
      value_end = close == std::string::npos ? extra.size() : close + 1;
      value = extra.substr(end_of_key + 2, (close == std::string::npos ? extra.size() : close) - end_of_key - 2);
    } else {
      value_end = std::min(extra.find(';', end_of_key), extra.size());
      value = extra.substr(end_of_key + 1, value_end - end_of_key - 1);
    }
    if (key == name) return value;
    at = value_end + 1;
  }
  return "";
}

bool from_simulated_runs(const std::string& key) {
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == key) return k.source == contract::KeySource::simulator;
  return false;
}

bool from_timed_runs(const std::string& key) {
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == key) return k.source == contract::KeySource::driver || k.source == contract::KeySource::workload;
  return false;  // an unknown key: a memprof or workload extra; profiled rows carry both
}

std::string RunsTable::run_key(const CsvRow& row) const {
  return text(row, keys::workload) + "|" + text(row, keys::size) + "|" + text(row, keys::allocator) + "|" +
         text(row, keys::tm) + "|" + text(row, keys::threads) + "|" + text(row, keys::rep) + "|" + kind_name(kind(row));
}

RunKind RunsTable::kind(const CsvRow& row) const {
  if (!has(keys::kind)) return default_kind;
  const std::string& field = text(row, keys::kind);
  RunKind kind;
  if (parse_kind(field, kind)) return kind;
  std::size_t id = column(keys::run_id);
  throw UsageError(source + ": the kind" + (id < row.size() ? " of run " + row[id] : "") + " is '" + field +
                       "', not timed, profiled or simulated",
                   "the file is damaged: repair that row or rerun the benchmark");
}

bool serves_key(RunKind kind, const std::string& key, bool timed_present) {
  if (from_simulated_runs(key) || kind == RunKind::simulated) return kind == RunKind::simulated && from_simulated_runs(key);
  if (!timed_present) return kind == RunKind::profiled;
  return (kind == RunKind::timed) == from_timed_runs(key);
}

bool RunsTable::serves(const CsvRow& row, const std::string& key, bool timed_present) const {
  return serves_key(kind(row), key, timed_present);
}

Status RunsTable::status(const CsvRow& row) const {
  Status s;
  const std::string& field = text(row, keys::status);
  if (parse_status(field, s)) return s;
  std::size_t id = column(keys::run_id);
  throw UsageError(source + ": the status" + (id < row.size() ? " of run " + row[id] : "") + " is '" + field +
                       "', not one of ok, failed, verify_failed, crashed, timeout, skipped",
                   "the file is damaged: repair that row or rerun the benchmark");
}

std::string reference_allocator(const std::vector<std::string>& allocators) {
  if (allocators.empty()) return "";
  bool glibc = std::find(allocators.begin(), allocators.end(), "glibc") != allocators.end();
  return glibc ? "glibc" : allocators.front();
}

// The table's runs measured on a busy machine (machine.h busy_run), and the
// runs whose machine state was measured at all: a resumed folder's earlier
// runs count, an older schema's (no such columns) do not.
std::pair<int, int> busy_runs_of(const RunsTable& t) {
  auto value = [&](const CsvRow& row, const char* column) {
    const std::string& text = t.text(row, column);
    return text.empty() ? std::numeric_limits<double>::quiet_NaN() : std::strtod(text.c_str(), nullptr);
  };
  int busy = 0, measured = 0;
  for (const CsvRow& row : t.rows) {
    const double others = value(row, keys::others_cpu_pct), steal = value(row, keys::steal_pct);
    if (std::isnan(others) && std::isnan(steal)) continue;
    ++measured;
    busy += busy_run(others, steal) ? 1 : 0;
  }
  return {busy, measured};
}

}  // namespace allocstamp
