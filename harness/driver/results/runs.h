// runs.h — runs.csv as a table, read by one reader for every command (check,
// summarize, plot, the ranking, --resume): the schema line, the key columns and
// each row's width are checked once, here, and a value is asked for by name.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "model/run.h"
#include "results/csv.h"

namespace allocstamp {

// Keys whose values come from timed runs: what bench and the workload
// measure (times, wait4's peak RSS, the workload's own metrics). memprof's,
// the counters' and the allocator's keys come from profiled runs.
bool from_timed_runs(const std::string& key);
// Keys whose values come from simulated runs only (keys.def source simulator).
bool from_simulated_runs(const std::string& key);
// Whether a run of `kind` serves `key`: simulated runs the simulator's keys
// and nothing else; timed runs the keys from timed runs, profiled runs the
// others; where a cell has no timed run (timed_present false: an old folder,
// --reps 0), profiled runs serve every key but the simulator's.
bool serves_key(RunKind kind, const std::string& key, bool timed_present);

struct RunsTable {
  std::string source;  // the file, for messages
  CsvRow header;
  std::vector<CsvRow> rows;
  // The kind of every row of a file older than the `kind` column (schema 1
  // and 2): profiled, unless its meta.json says memprof was not preloaded.
  RunKind default_kind = RunKind::profiled;

  // Index of a column, or header.size() when the table lacks it.
  std::size_t column(const std::string& name) const;
  bool has(const std::string& name) const { return column(name) < header.size(); }
  // The field, empty when the column is absent.
  const std::string& text(const CsvRow& row, const std::string& name) const;
  // The field as a number; where the column is absent or the field empty, the
  // same key in the row's `extra` column (a workload's own metric); NaN when
  // neither has a number. UsageError when the column holds something else
  // (the file is damaged).
  double number(const CsvRow& row, const std::string& name) const;
  // The key in the row's `extra` column (key=value;...): NaN when absent or not a number.
  double extra_number(const CsvRow& row, const std::string& name) const;
  // The key's value in `extra` ("" when absent): a quoted value ("...") runs
  // to its closing quote, so a reason may hold ';'.
  std::string extra_text(const CsvRow& row, const std::string& name) const;
  // The row's status; UsageError when the field is not a status (the file is damaged).
  Status status(const CsvRow& row) const;
  RunKind kind(const CsvRow& row) const;
  // The row's run as the plan keys it (plan.h Run::key: workload|size|allocator|tm|threads|rep|kind).
  std::string run_key(const CsvRow& row) const;
  // serves_key for the row's kind.
  bool serves(const CsvRow& row, const std::string& key, bool timed_present = true) const;
};

// The allocator others are compared with: glibc when it ran, else the first
// (`allocators` in the order the runs name them). One rule for the ranking,
// the figures and the report.
std::string reference_allocator(const std::vector<std::string>& allocators);

// Reads `path` (a results folder, or a runs.csv file itself). Throws
// UsageError (exit 2), its message starting with `role`, when it is missing,
// is not runs.csv of a schema this bench reads, lacks the key columns, or has
// a row read_csv refuses or a field outside its unit's domain (fields.h).
RunsTable load_runs(const std::filesystem::path& path, const std::string& role);
// How many files load_runs has read in this process: a sweep reads its
// runs.csv once at most (a resumed one; a new one never), which a test counts.
int runs_files_loaded();

// The table's runs measured on a busy machine (run/machine.h busy_run), and
// the runs whose machine state was measured at all: {busy, measured}.
std::pair<int, int> busy_runs_of(const RunsTable& t);

}  // namespace allocstamp
