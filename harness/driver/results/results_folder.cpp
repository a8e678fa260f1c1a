// results_folder.cpp — the results folder as the sweep writes it: runs.csv's
// fixed column order (from the key table), series.csv and scopes.csv, meta.json,
// resume bookkeeping. What a run's row holds is run_row.cpp's.
#include "results/results_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cerrno>
#include <iterator>
#include <sstream>

#include "model/errors.h"
#include "model/format.h"
#include "model/output_file.h"
#include "keys.h"
#include "results/run_row.h"
#include "results/runs.h"
#include "key_names.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// runs.csv's columns: the keys of harness/contract/keys.def that are columns,
// in the table's order; the meaning says where a value comes from.
std::vector<Column> columns_from_keys() {
  std::vector<Column> columns;
  for (const contract::KeyInfo& k : contract::kKeys) {
    if (!k.is_column()) continue;
    using contract::KeySource;
    std::string prefix = k.source == KeySource::counter || k.source == KeySource::memprof ? "memprof: "
                         : k.source == KeySource::allocator                                ? "allocator: "
                         : k.source == KeySource::workload                                 ? "workload: "
                                                                                           : "";
    columns.push_back({std::string(k.name), prefix + std::string(k.meaning), std::string(k.type), std::string(k.bound)});
  }
  return columns;
}

const std::vector<Column> kColumns = columns_from_keys();

}  // namespace

std::vector<std::string> side_table_columns(std::string_view table) {
  std::vector<std::string> out;
  for (const keys::SideColumn& c : keys::side_columns)
    if (c.table == table) out.emplace_back(c.name);
  return out;
}

namespace {

// One row per named scope of a run (memprof's @scope records), per repetition
// of a micro-benchmark (@micro), per time-series point (@sample).
const std::vector<std::string> kScopeColumns = side_table_columns("scopes");
const std::vector<std::string> kMicroColumns = side_table_columns("micro");
const std::vector<std::string> kSeriesColumns = side_table_columns("series");

// A file's bytes as they are (runs.csv, for its digest); empty when it cannot be read.
std::string file_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// One row per record: the row's first fields (`lead`: the run's id, ...), then
// the record's value of each remaining column.
void write_records(std::ofstream& out, const std::vector<KeyValues>& records, const std::vector<std::string>& columns,
                   const CsvRow& lead) {
  for (const KeyValues& record : records) {
    CsvRow row = lead;
    for (size_t i = lead.size(); i < columns.size(); ++i) {
      auto it = record.find(columns[i]);
      row.push_back(it == record.end() ? "" : it->second);
    }
    write_row(out, row);
  }
}

}  // namespace

const std::vector<Column>& run_columns() { return kColumns; }

FolderLock::FolderLock(const fs::path& dir) {
  const fs::path file = dir / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw UsageError("cannot create " + file.string(), "choose a writable --out");
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    ssize_t got = pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string holder = got > 0 ? std::string(pid, std::size_t(got)) : std::string("?");
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    throw UsageError(dir.string() + " is being written by another bench (pid " + holder + ")",
                     "wait until it ends, or choose another --out");
  }
  std::string mine = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, mine.data(), mine.size(), 0) != ssize_t(mine.size())) {
    // The lock holds without the pid: only the message would lack it.
  }
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// The files and folders of a results folder: a symbolic link among them
// (planted, or left by a copy) would make the sweep write elsewhere.
void refuse_symlinks(const fs::path& dir) {
  for (const char* name : {"runs.csv", "series.csv", "scopes.csv", "micro.csv", "callsites.csv", "meta.json",
                           "meta.json.tmp", "summary.csv", ".lock", "logs", "callsites", "figures"}) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(dir / name, ec)))
      throw UsageError((dir / name).string() + " is a symbolic link",
                       "a results folder's files are its own: remove the link, or choose another --out");
  }
}

// A run's row in runs.csv is written last (append): series, scopes and micro
// rows of a run id runs.csv lacks belong to a run a kill or a full disk tore,
// which --resume makes again; they are removed, so the run has one series.
void drop_uncommitted_rows(const fs::path& dir, const CsvRow& runs_header, const std::vector<CsvRow>& runs) {
  std::set<std::string> committed;
  const auto id = std::find(runs_header.begin(), runs_header.end(), keys::run_id);
  if (id != runs_header.end())
    for (const CsvRow& row : runs) committed.insert(row[std::size_t(id - runs_header.begin())]);
  for (const char* name : {"series.csv", "scopes.csv", "micro.csv"}) {
    const fs::path file = dir / name;
    if (!fs::exists(file)) continue;
    std::vector<CsvRow> kept;
    bool orphans = false;
    const CsvRow header = scan_csv(file, [&](const CsvRow&, const CsvRow& row) {
      if (committed.count(row[0])) kept.push_back(row);
      else orphans = true;
    });
    if (!orphans) continue;
    std::string schema;  // the file's own first line: an older folder keeps its schema
    std::getline(std::ifstream(file), schema);
    std::ostringstream text;
    text << schema << '\n';
    write_row(text, header);
    for (const CsvRow& row : kept) write_row(text, row);
    replace_file(file, text.str());
  }
}

}  // namespace

ResultsFolder ResultsFolder::create(const fs::path& dir, const nlohmann::json& meta) {
  std::error_code ec;
  const bool existed = fs::exists(dir);
  if (existed) refuse_symlinks(dir);
  // A folder of the user's own (a summary.csv, a report, figures/, or /) is
  // never written into: only a new or an empty one becomes a results folder.
  if (existed && fs::is_directory(dir, ec) && !fs::is_empty(dir, ec) && !fs::exists(dir / "runs.csv")) {
    const std::string first = fs::directory_iterator(dir, ec)->path().filename().string();
    throw UsageError(dir.string() + " exists and is not empty (it holds " + first + ", ...): bench would write its " +
                         "runs.csv, meta.json, summary.csv and figures there",
                     "give --out a new or empty folder");
  }
  fs::create_directories(dir / "logs", ec);
  if (ec) throw UsageError("cannot create " + dir.string() + ": " + ec.message(), "choose a writable --out");
  FolderLock lock(dir);
  if (fs::exists(dir / "runs.csv"))
    throw UsageError(dir.string() + " already holds results", "choose another --out, or --resume it");
  ResultsFolder folder(dir);
  folder.lock_ = std::move(lock);
  try {
    folder.write_meta(meta);
    folder.open_streams(true);
  } catch (const std::exception& e) {
    // Nothing half-made is left: no folder that --resume could not take.
    for (const char* name : {"runs.csv", "series.csv", "scopes.csv", "micro.csv", "meta.json", "meta.json.tmp", ".lock"})
      fs::remove(dir / name, ec);
    fs::remove(dir / "logs", ec);
    if (!existed) fs::remove(dir, ec);
    throw RunError(std::string("cannot start the results folder ") + dir.string() + " (disk full?)",
                   "free some space, then run again");
  }
  return folder;
}

ResultsFolder ResultsFolder::reopen(const fs::path& dir) {
  if (!fs::exists(dir / "meta.json") || !fs::exists(dir / "runs.csv"))
    throw UsageError(dir.string() + " has no meta.json and runs.csv", "--resume takes a folder bench wrote");
  refuse_symlinks(dir);
  FolderLock lock(dir);
  // A last row without its newline was torn by a full disk or a kill: cut it
  // off, so that its run is made again and no reader meets half a row.
  for (const char* name : {"runs.csv", "series.csv", "scopes.csv", "micro.csv"}) {
    const fs::path file = dir / name;
    if (!fs::exists(file)) continue;
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.empty() || text.back() == '\n') continue;
    std::size_t keep = text.rfind('\n');
    fs::resize_file(file, keep == std::string::npos ? 0 : keep + 1);
  }
  RunsTable table = load_runs(dir, "results");  // checks the schema and every row
  const CsvRow& header = table.header;
  // A folder of an older schema has fewer columns (no kind, no libitm columns):
  // its rows go on in its own columns. A column this bench does not know means
  // a newer or foreign file.
  for (const std::string& name : header)
    if (std::none_of(kColumns.begin(), kColumns.end(), [&](const Column& c) { return c.name == name; }))
      throw UsageError(dir.string() + "/runs.csv has the column '" + name + "', which this bench does not write",
                       "it comes from another version of allocstamp: start a new folder");
  drop_uncommitted_rows(dir, header, table.rows);
  // The runs' logs go on in logs/ (made again where it was removed; a link
  // there was refused above).
  fs::create_directories(dir / "logs");
  ResultsFolder folder(dir);
  folder.lock_ = std::move(lock);
  folder.columns_ = header;
  folder.table_ = std::move(table);
  folder.open_streams(false);
  return folder;
}

void ResultsFolder::open_streams(bool fresh) {
  auto mode = fresh ? std::ios::trunc : std::ios::app;
  bool series_new = fresh || !fs::exists(dir_ / "series.csv");
  bool scopes_new = fresh || !fs::exists(dir_ / "scopes.csv");
  bool micro_new = fresh || !fs::exists(dir_ / "micro.csv");
  runs_.open(dir_ / "runs.csv", std::ios::out | mode);
  series_.open(dir_ / "series.csv", std::ios::out | mode);
  scopes_.open(dir_ / "scopes.csv", std::ios::out | mode);
  micro_.open(dir_ / "micro.csv", std::ios::out | mode);
  if (!runs_ || !series_ || !scopes_ || !micro_) throw UsageError("cannot write in " + dir_.string(), "choose a writable --out");
  runs_written_ = Digest{};
  if (fresh) {
    std::ostringstream head;
    head << schema_line("runs.csv") << '\n';
    columns_.clear();
    for (const Column& c : kColumns) columns_.push_back(c.name);
    write_row(head, columns_);
    runs_ << head.str();
    runs_written_.add(head.str());
    table_ = RunsTable{};
    table_.source = (dir_ / "runs.csv").string();
    table_.header = columns_;
  }
  if (!fresh) runs_written_.add(file_bytes(dir_ / "runs.csv"));
  if (series_new) {
    series_ << schema_line("series.csv") << '\n';
    write_row(series_, kSeriesColumns);
  }
  if (scopes_new) {
    scopes_ << schema_line("scopes.csv") << '\n';
    write_row(scopes_, kScopeColumns);
  }
  if (micro_new) {
    micro_ << schema_line("micro.csv") << '\n';
    write_row(micro_, kMicroColumns);
  }
  check_written();
}

void ResultsFolder::check_written() {
  runs_.flush();
  series_.flush();
  scopes_.flush();
  micro_.flush();
  if (!runs_ || !series_ || !scopes_ || !micro_)
    throw RunError("cannot write runs.csv/series.csv in " + dir_.string() + " (disk full?)",
                   "free space, then finish with: bench --resume " + dir_.string());
}

fs::path ResultsFolder::log_path(const Run& run) const {
  return dir_ / "logs" / (std::to_string(run.id) + "-" + run.workload.name + "-" + run.allocator.name + "-t" +
                          std::to_string(run.threads) + "-r" + std::to_string(run.rep) + ".log");
}

std::size_t ResultsFolder::forget_runs(const std::set<std::string>& keys) {
  const RunsTable& t = table_;
  std::vector<CsvRow> kept;
  for (const CsvRow& row : t.rows)
    if (!keys.count(t.run_key(row))) kept.push_back(row);
  const std::size_t forgotten = t.rows.size() - kept.size();
  if (forgotten == 0) return 0;
  runs_.close();
  series_.close();
  scopes_.close();
  micro_.close();
  std::string schema;  // the file's own first line: an older folder keeps its schema
  std::getline(std::ifstream(dir_ / "runs.csv"), schema);
  std::ostringstream text;
  text << schema << '\n';
  write_row(text, t.header);
  for (const CsvRow& row : kept) write_row(text, row);
  replace_file(dir_ / "runs.csv", text.str());
  drop_uncommitted_rows(dir_, t.header, kept);  // their series, scopes and micro rows
  table_.rows = std::move(kept);
  open_streams(false);
  return forgotten;
}

void ResultsFolder::check_runs_unchanged() const {
  Digest now;
  now.add(file_bytes(dir_ / "runs.csv"));
  if (now.hex() != runs_written_.hex())
    throw UsageError(dir_.string() + "/runs.csv was changed while the sweep ran: it is not what bench wrote (the tables "
                                     "and figures came from what bench wrote)",
                     "restore it, or run the sweep again into a new folder");
}

void ResultsFolder::write_meta(const nlohmann::json& meta) { replace_file(dir_ / "meta.json", meta.dump(2) + "\n"); }

Status ResultsFolder::append(const Run& run, const RunSetting& setting, Status status, const Finished& f,
                             const Records& given) {
  RunRow made = run_row(run, setting, status, f, given, columns_, fs::relative(log_path(run), dir_).string());
  const Records& r = made.records;
  const CsvRow& row = made.row;
  // The run's row in runs.csv commits it: it is written once its side rows are
  // (a resume drops side rows whose run has no row: drop_uncommitted_rows).
  write_records(series_, r.samples, kSeriesColumns, {std::to_string(run.id)});
  write_records(micro_, r.micro, kMicroColumns, {std::to_string(run.id), kind_name(run.kind)});
  write_records(scopes_, r.scopes, kScopeColumns, {std::to_string(run.id)});
  series_.flush();
  micro_.flush();
  scopes_.flush();
  std::ostringstream line;
  write_row(line, row);
  runs_ << line.str();
  runs_written_.add(line.str());
  check_written();
  table_.rows.push_back(std::move(made.row));
  return made.status;
}

Status ResultsFolder::append(const Run& run, const RunOutcome& ran) {
  if (ran.skipped.empty()) return append(run, ran.setting, ran.status, ran.finished, ran.records);
  Records records;
  records.metrics["skip_reason"] = ran.skipped;
  return append(run, ran.setting, Status::skipped, Finished{}, records);
}

void point_latest_at(const Paths& paths, const fs::path& dir) {
  fs::path link = paths.source / "results" / "latest";
  std::error_code ec;
  fs::create_directories(link.parent_path(), ec);
  fs::remove(link, ec);
  fs::create_directory_symlink(fs::absolute(dir), link, ec);
}

// A default folder per second; a second sweep in the same second gets "-2".
// create_directory is the atomic claim: two sweeps never share a folder.
fs::path claim_default_folder(const Paths& paths) {
  fs::path base = paths.source / "results" / "runs" / local_time_text("%Y%m%d-%H%M%S");
  std::error_code ec;
  fs::create_directories(base.parent_path(), ec);
  for (int n = 1;; ++n) {
    fs::path candidate = n == 1 ? base : fs::path(base.string() + "-" + std::to_string(n));
    if (fs::create_directory(candidate, ec)) return candidate;
    if (ec) throw UsageError("cannot create " + candidate.string() + ": " + ec.message(), "choose a writable --out");
  }
}

}  // namespace allocstamp
