// results_folder.h — the results folder (Contract 4) as the sweep writes it:
// runs.csv appended and flushed after every run, series.csv, scopes.csv,
// micro.csv, meta.json, logs/; created new or reopened for --resume. Each file carries
// the schema version; readers refuse a newer one. (summary.csv: summary.h.)
#pragma once
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/catalog.h"
#include "model/digest.h"
#include "results/csv.h"
#include "run/environment.h"
#include "run/executor.h"
#include "keys.h"
#include "run/records.h"
#include "run/run_one.h"
#include "results/runs.h"

namespace allocstamp {

using contract::kResultsSchema;

struct Column {
  std::string name;
  std::string meaning;  // unit and source, for --columns and the README
  std::string type;     // keys.def's: u64, real, signed, text
  std::string bound;    // keys.def's: "<the largest value a supported run gives>: why" ("" for text)
};
// runs.csv's columns, in order (extra and log last).
const std::vector<Column>& run_columns();
// A side table's columns, in its file's order (keys.def's SIDE_COLUMN):
// "scopes", "series", "micro" or "callsites".
std::vector<std::string> side_table_columns(std::string_view table);


// An exclusive lock on a results folder (flock on DIR/.lock, holding the
// writer's pid), held while a sweep writes it: a second sweep or --resume on
// the same folder is refused instead of interleaving rows.
class FolderLock {
 public:
  FolderLock() = default;
  // Throws UsageError (exit 2) naming the holder's pid when another bench holds it.
  explicit FolderLock(const std::filesystem::path& dir);
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

 private:
  int fd_ = -1;
};

class ResultsFolder {
 public:
  // A new folder (it must not hold runs.csv yet), meta.json written first; when
  // the rest cannot be written, what was created is removed. Or, for --resume,
  // an existing one.
  static ResultsFolder create(const std::filesystem::path& dir, const nlohmann::json& meta);
  static ResultsFolder reopen(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path log_path(const Run& run) const;
  // runs.csv as it stands: read once when the folder is reopened (a torn last
  // row cut off), each appended row added as it is written. Every reader of
  // the sweep (the resume's checks, the tables, the precision rounds, the
  // summary, the figures) takes it from here, not from the file again.
  const RunsTable& runs() const { return table_; }
  // UsageError when runs.csv's bytes are not those this folder wrote (or
  // found when reopened): someone changed the file while the sweep ran.
  void check_runs_unchanged() const;
  // Removes the rows (and side rows) of the runs whose key is in `keys`, so
  // the resume makes them again in their place; returns how many.
  std::size_t forget_runs(const std::set<std::string>& keys);
  void write_meta(const nlohmann::json& meta);
  // Appends the run's row (and its side rows) and returns the status written:
  // `status`, or failed where a value is not of its column's declared type
  // (the value left out, the column named in extra's failure).
  [[nodiscard]] Status append(const Run& run, const RunSetting& setting, Status status, const Finished& f,
                              const Records& r);
  // The row of a run as it ended (run_one): made, or skipped with its reason.
  [[nodiscard]] Status append(const Run& run, const RunOutcome& ran);

 private:
  explicit ResultsFolder(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void open_streams(bool fresh);
  void check_written();  // throws RunError when a write failed
  std::filesystem::path dir_;
  FolderLock lock_;
  CsvRow columns_;  // runs.csv's columns: this bench's, or a resumed older folder's
  RunsTable table_;  // what runs.csv holds
  Digest runs_written_;  // over runs.csv's bytes as found and written
  std::ofstream runs_, series_, scopes_, micro_;
};

// A new folder under results/runs/ named by the second it starts
// (YYYYMMDD-HHMMSS, "-2" for a second sweep in the same second), created
// atomically: two sweeps never share one.
std::filesystem::path claim_default_folder(const Paths& paths);
// results/latest → `dir` (a folder of the default place; an explicit --out leaves it alone).
void point_latest_at(const Paths& paths, const std::filesystem::path& dir);

}  // namespace allocstamp
