// hostile_e2e_test — the second reliability attack (issue 31), as a hostile but
// fair user would try it: damaged results folders under check, summarize,
// plot and merge (each refused with exit 2 naming the file, merge leaving no
// folder behind), files that are not files (a FIFO, a device, a link loop, a
// 2 MiB line), names that would write outside the results folder, planted
// symbolic links, and a torn run's side rows on --resume.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <functional>
#include <sstream>

#include "results/meta.h"
#include "results/runs.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

class Hostile : public ::testing::Test {
 protected:
  static Result bench(std::vector<std::string> args) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
    options.timeout_seconds = 60;  // a FIFO that blocked a reader would end here, red
    return testing::run_command(args, options);
  }
  // One small sweep with series points, whole or as the two parts of --shard
  // (one thread count each).
  static void sweep(const fs::path& out, const std::string& shard = "") {
    std::vector<std::string> args = {"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1,2",
                                     "--reps=2", "--out=" + out.string()};
    if (!shard.empty()) args.push_back("--shard=" + shard);
    Result r = bench(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void SetUpTestSuite() {
    scratch_ = new testing::ScratchDir("hostile-e2e");
    sweep(scratch_->path() / "good");
    sweep(scratch_->path() / "part1", "1/2");
    sweep(scratch_->path() / "part2", "2/2");
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }
  static fs::path dir() { return scratch_->path(); }

  // A copy of `from` (a results folder) at `to`, its logs left out.
  static void copy_folder(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(from))
      if (e.is_regular_file() && e.path().filename() != ".lock") fs::copy_file(e.path(), to / e.path().filename());
  }

  static testing::ScratchDir* scratch_;
};

testing::ScratchDir* Hostile::scratch_ = nullptr;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// runs.csv with field `column` of the first data row set to `value`.
std::string with_field(const std::string& text, const std::string& column, const std::string& value) {
  std::vector<std::string> lines = lines_of(text);
  std::vector<std::string> header, cells;
  std::istringstream h(lines[1]), c(lines[2]);
  for (std::string f; std::getline(h, f, ',');) header.push_back(f);
  for (std::string f; std::getline(c, f, ',');) cells.push_back(f);
  cells.resize(header.size());
  cells[std::size_t(std::find(header.begin(), header.end(), column) - header.begin())] = value;
  lines[2].clear();
  for (const auto& f : cells) lines[2] += (lines[2].empty() ? "" : ",") + f;
  return joined_lines(lines);
}

// runs.csv without the column `column` (its header and every row's field).
std::string without_column(const std::string& text, const std::string& column) {
  std::vector<std::string> lines = lines_of(text);
  std::vector<std::string> header;
  std::istringstream h(lines[1]);
  for (std::string f; std::getline(h, f, ',');) header.push_back(f);
  const std::size_t at = std::size_t(std::find(header.begin(), header.end(), column) - header.begin());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells;
    std::istringstream c(lines[i]);
    for (std::string f; std::getline(c, f, ',');) cells.push_back(f);
    cells.resize(header.size());
    cells.erase(cells.begin() + std::ptrdiff_t(at));
    lines[i].clear();
    for (std::size_t k = 0; k < cells.size(); ++k) lines[i] += (k ? "," : "") + cells[k];
  }
  return joined_lines(lines);
}

struct Damage {
  std::string name;
  std::function<void(const fs::path& folder)> apply;
  std::string says;  // in the message of every command
};

std::vector<Damage> damages() {
  auto edit = [](const char* file, std::function<std::string(const std::string&)> change) {
    return [file, change](const fs::path& folder) {
      const std::string text = testing::slurp(folder / file);
      std::ofstream(folder / file, std::ios::binary | std::ios::trunc) << change(text);
    };
  };
  return {
      {"truncated row", edit("runs.csv", [](const std::string& t) { return t.substr(0, t.size() - 30); }),
       "has no line end: it was cut off"},
      {"appended garbage", edit("runs.csv", [](const std::string& t) { return t + "garbage\n"; }), "has 1 fields, the header"},
      {"unterminated quote", edit("runs.csv", [](const std::string& t) { return t + "\"1,2,3\n"; }),
       "a quoted field that never ends"},
      {"extra field", edit("runs.csv", [](const std::string& t) { return t.substr(0, t.size() - 1) + ",x\n"; }),
       "fields, the header"},
      {"column removed", edit("runs.csv", [](const std::string& t) { return without_column(t, "elapsed_ns"); }),
       "lacks the column 'elapsed_ns'"},
      {"1e400", edit("runs.csv", [](const std::string& t) { return with_field(t, "elapsed_ns", "1e400"); }),
       "column elapsed_ns: '1e400'"},
      {"25 digits", edit("runs.csv", [](const std::string& t) { return with_field(t, "elapsed_ns", std::string(25, '9')); }),
       "column elapsed_ns"},
      {"inf", edit("runs.csv", [](const std::string& t) { return with_field(t, "load_avg_before", "inf"); }),
       "column load_avg_before: 'inf'"},
      {"nan", edit("runs.csv", [](const std::string& t) { return with_field(t, "others_cpu_pct", "nan"); }),
       "column others_cpu_pct: 'nan'"},
      {"a name with ../", edit("runs.csv", [](const std::string& t) { return with_field(t, "workload", "../../x"); }),
       "column workload"},
      {"garbage in series.csv", edit("series.csv", [](const std::string& t) { return t + "1,soon,,,,\n"; }),
       "series.csv: data row"},
      {"short row in series.csv", edit("series.csv", [](const std::string& t) { return t + "1,2\n"; }),
       "series.csv: data row"},
      {"a FIFO as runs.csv",
       [](const fs::path& folder) {
         fs::remove(folder / "runs.csv");
         ASSERT_EQ(mkfifo((folder / "runs.csv").c_str(), 0644), 0);
       },
       "is a FIFO, not a regular file"},
      {"/dev/zero as runs.csv",
       [](const fs::path& folder) {
         fs::remove(folder / "runs.csv");
         fs::create_symlink("/dev/zero", folder / "runs.csv");
       },
       "is a device, not a regular file"},
      {"a 2 MiB line", edit("runs.csv", [](const std::string& t) { return t + std::string(2 << 20, 'a') + "\n"; }),
       "a row longer than 1048576 bytes"},
      {"runs.csv a link loop",
       [](const fs::path& folder) {
         fs::remove(folder / "runs.csv");
         fs::create_symlink("runs.csv", folder / "runs.csv");
       },
       "symbolic link loop"},
  };
}

// The attack's table: each damaged folder × {check, summarize, plot, merge}:
// exit 2, the damage named; merge leaves neither its folder nor its staging.
TEST_F(Hostile, DamagedFoldersAreRefusedByEveryCommand) {
  int n = 0;
  for (const Damage& d : damages()) {
    ++n;
    const fs::path folder = dir() / ("damaged-" + std::to_string(n));
    const fs::path part = dir() / ("damaged-part-" + std::to_string(n));
    copy_folder(dir() / "good", folder);
    copy_folder(dir() / "part2", part);
    d.apply(folder);
    d.apply(part);
    const fs::path merged = dir() / ("merged-" + std::to_string(n));
    const std::vector<std::vector<std::string>> commands = {
        {"check", "--baseline", (dir() / "good").string(), "--current", folder.string()},
        {"summarize", folder.string()},
        {"plot", folder.string()},
        {"merge", merged.string(), (dir() / "part1").string(), part.string()},
    };
    for (const auto& args : commands) {
      Result r = bench(args);
      EXPECT_EQ(r.exit_code, 2) << d.name << ", " << args[0] << ": " << r.out << r.err;
      EXPECT_NE(testing::flat(r.err).find(d.says), std::string::npos) << d.name << ", " << args[0] << ": " << r.err;
      EXPECT_EQ(testing::flat(r.err).find("a bug in bench"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(merged)) << d.name << ": merge left a half-written folder";
    for (const auto& e : fs::directory_iterator(dir()))
      EXPECT_EQ(e.path().filename().string().rfind(".merging-", 0), std::string::npos) << e.path();
  }
}

// A part that holds only runs.csv's header (a task stopped in its first run,
// as Slurm's time limit leaves it) is a missing part: left out and said, its
// runs missing (bench --resume OUT makes them), never merged silently; the
// merge job that takes every part still writes the folder. Only header-only
// parts: refused.
TEST_F(Hostile, AHeaderOnlyPartIsLeftOutAndSaid) {
  const fs::path part = dir() / "header-only";
  copy_folder(dir() / "part2", part);
  std::vector<std::string> lines = lines_of(testing::slurp(part / "runs.csv"));
  lines.resize(2);
  std::ofstream(part / "runs.csv", std::ios::trunc) << joined_lines(lines);
  const fs::path merged = dir() / "merged-header-only";
  Result r = bench({"merge", merged.string(), (dir() / "part1").string(), part.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(testing::flat(r.err).find("part " + part.string() + " holds no runs: left out, its runs missing"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("missing: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merged 1 of 2 part(s)"), std::string::npos) << r.out;
  EXPECT_EQ(load_runs(merged, "merged").rows.size(), load_runs(dir() / "part1", "part1").rows.size());
  const fs::path none = dir() / "merged-none";
  Result empty = bench({"merge", none.string(), part.string()});
  EXPECT_EQ(empty.exit_code, 2) << empty.out << empty.err;
  EXPECT_NE(testing::flat(empty.err).find("no part holds a run"), std::string::npos) << empty.err;
  EXPECT_FALSE(fs::exists(none));
}

// A folder that is a link to itself: every command says so, exit 2.
TEST_F(Hostile, AFolderThatIsALinkLoopIsRefused) {
  const fs::path loop = dir() / "loop";
  fs::create_symlink("loop", loop);
  const std::vector<std::vector<std::string>> commands = {
      {"check", "--baseline", (dir() / "good").string(), "--current", loop.string()},
      {"summarize", loop.string()},
      {"plot", loop.string()},
      {"merge", (dir() / "merged-loop").string(), (dir() / "part1").string(), loop.string()},
      {"merge", loop.string(), (dir() / "part1").string(), (dir() / "part2").string()},
      {"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1", "--out=" + loop.string()},
      {"--resume", loop.string()},
  };
  for (const auto& args : commands) {
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.out << r.err;
    EXPECT_EQ(testing::flat(r.err).find("a bug in bench"), std::string::npos) << r.err;
    EXPECT_EQ(testing::flat(r.err).rfind("error: ", 0), 0u) << r.err;
  }
}

// Names that would make a path: a registry's workload or allocator with '/' or
// '..' is refused at load, naming the entry; nothing is written outside --out.
TEST_F(Hostile, NamesThatWouldEscapeTheFolderAreRefused) {
  const fs::path outside = dir() / "outside";
  fs::create_directories(outside);
  const fs::path out = dir() / "escape";
  fs::create_directories(out / "logs" / "1-ok");
  auto file = [&](const std::string& name, const std::string& json) {
    const fs::path p = dir() / name;
    std::ofstream(p) << json;
    return p.string();
  };
  const std::string escape = "ok/../../../" + outside.filename().string() + "/pwn";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--workloads=" + file("w-escape.json", "{\"schema\": 1, \"workloads\": [{\"name\": \"" + escape +
                                                   "\", \"binary\": \"bin/testload\", \"app\": \"alloc\"}]}"),
        "--workload=" + escape},
       "the workload entry '" + escape + "': the name"},
      {{"--registry=" + file("a-escape.json",
                             "{\"schema\": 1, \"allocators\": [{\"name\": \"../mine\", \"libraries\": "
                             "[\"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\"]}]}"),
        "--workload=test-alloc"},
       "the allocator entry '../mine'"},
      {{"--registry=" + file("a-dot.json",
                             "{\"schema\": 1, \"allocators\": [{\"name\": \"..\", \"libraries\": "
                             "[\"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\"]}]}"),
        "--workload=test-alloc"},
       "(a folder's)"},
      {{"--workloads=" + file("w-newline.json", "{\"schema\": 1, \"workloads\": [{\"name\": \"a\\nb\", \"binary\": "
                                                    "\"bin/testload\"}]}"),
        "--workload=test-alloc"},
       "holds a character other than"},
  };
  for (const auto& [args, says] : cases) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile", "--out=" + out.string()});
    Result r = bench(a);
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
  }
  EXPECT_TRUE(fs::is_empty(outside)) << "a log was written outside --out";
  EXPECT_FALSE(fs::exists(out / "runs.csv"));
}

// A `logs` link planted in a folder (to be resumed, or given as --out) is not
// followed: refused before any run, the link's target left as it was.
TEST_F(Hostile, APlantedLogsLinkIsNotFollowed) {
  const fs::path target = dir() / "link-target";
  fs::create_directories(target);
  const fs::path folder = dir() / "planted";
  sweep(folder);
  {
    std::string text = testing::slurp(folder / "runs.csv");  // the last run to be made again
    std::ofstream(folder / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  fs::remove_all(folder / "logs");
  fs::create_directory_symlink(target, folder / "logs");
  Result resumed = bench({"--resume", folder.string()});
  EXPECT_EQ(resumed.exit_code, 2) << resumed.out << resumed.err;
  EXPECT_NE(testing::flat(resumed.err).find("logs is a symbolic link"), std::string::npos) << resumed.err;
  const fs::path fresh = dir() / "planted-new";
  fs::create_directories(fresh);
  fs::create_directory_symlink(target, fresh / "logs");
  Result created = bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile",
                          "--out=" + fresh.string()});
  EXPECT_EQ(created.exit_code, 2) << created.out << created.err;
  EXPECT_NE(testing::flat(created.err).find("logs is a symbolic link"), std::string::npos) << created.err;
  EXPECT_TRUE(fs::is_empty(target)) << "a log was written through the link";
}

// Issue 46, N10 and N9: an output or temporary file planted as a link is
// replaced, never written through (report.md by plot, summary.csv's temporary
// by summarize, series.csv's by a resume), and merge refuses a part whose logs
// folder is a link (it copied /etc's files).
TEST_F(Hostile, PlantedOutputLinksAreNotWrittenThrough) {
  const fs::path victim = dir() / "victim.txt";
  auto plant = [&](const fs::path& link) {
    std::ofstream(victim, std::ios::trunc) << "untouched\n";
    fs::remove(link);
    fs::create_symlink(victim, link);
  };
  const fs::path folder = dir() / "links";
  copy_folder(dir() / "good", folder);  // without logs/: the resume below makes it again
  plant(folder / "summary.csv.tmp");
  EXPECT_EQ(bench({"summarize", folder.string()}).exit_code, 0);
  EXPECT_EQ(testing::slurp(victim), "untouched\n");
  {
    std::string text = testing::slurp(folder / "runs.csv");  // the last run to be made again
    std::ofstream(folder / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  plant(folder / "series.csv.tmp");
  Result resumed = bench({"--resume", folder.string()});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(testing::slurp(victim), "untouched\n");
  // bench plot writes the report only where gnuplot draws; install-deps installs it.
  const bool gnuplot = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  if (!gnuplot && testing::in_ci()) ADD_FAILURE() << "gnuplot is missing under CI=true: scripts/install-deps installs it";
  if (!gnuplot) std::cout << "note: gnuplot is not installed: the report.md link is not tried\n";
  if (gnuplot) {
    plant(folder / "report.md");
    EXPECT_EQ(bench({"plot", folder.string()}).exit_code, 0);
    EXPECT_EQ(testing::slurp(victim), "untouched\n");
    EXPECT_FALSE(fs::is_symlink(fs::symlink_status(folder / "report.md"))) << "the link itself is replaced";
  }
  // merge: a part whose logs folder is a link to elsewhere.
  const fs::path p1 = dir() / "merge-p1", p2 = dir() / "merge-p2", elsewhere = dir() / "elsewhere";
  copy_folder(dir() / "part1", p1);
  copy_folder(dir() / "part2", p2);
  fs::create_directories(elsewhere);
  std::ofstream(elsewhere / "passwd") << "secret\n";
  fs::create_directory_symlink(elsewhere, p2 / "logs");
  Result merged = bench({"merge", (dir() / "merged-links").string(), p1.string(), p2.string()});
  EXPECT_EQ(merged.exit_code, 2) << merged.out << merged.err;
  EXPECT_NE(testing::flat(merged.err).find("logs is a symbolic link"), std::string::npos) << merged.err;
  EXPECT_FALSE(fs::exists(dir() / "merged-links" / "logs" / "passwd"));
}

// A run torn after its series points were written and before its row (a full
// disk, a kill): --resume makes it again with one series, not two.
TEST_F(Hostile, AResumedTornRunHasOneSeries) {
  const fs::path folder = dir() / "torn-series";
  sweep(folder);
  RunsTable runs = load_runs(folder, "torn");
  const std::string last_id = runs.text(runs.rows.back(), "run_id");
  const auto points_of = [&](const std::string& id) {
    std::vector<double> t;
    for (const std::string& line : lines_of(testing::slurp(folder / "series.csv")))
      if (line.rfind(id + ",", 0) == 0) t.push_back(std::stod(line.substr(id.size() + 1)));
    return t;
  };
  const std::size_t points = points_of(last_id).size();
  ASSERT_GT(points, 0u) << "the last run (profiled) has series points";
  {
    std::string text = testing::slurp(folder / "runs.csv");  // its row never written
    std::ofstream(folder / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  Result resumed = bench({"--resume", folder.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::vector<double> t = points_of(last_id);
  EXPECT_TRUE(std::is_sorted(t.begin(), t.end())) << "t_ns restarts: two series for one run";
  EXPECT_LT(t.size(), 2 * points) << "the torn run's points were kept beside the new ones";
  Result summarize = bench({"summarize", folder.string()});
  EXPECT_EQ(summarize.exit_code, 0) << summarize.err;
}

// A control byte in meta.json's machine (a NUL cut bench check's refusal
// short: "the baseline ran on vm (A") is shown escaped, the message whole.
TEST_F(Hostile, AControlByteInTheMachineIsShownInCheck) {
  const fs::path a = dir() / "machine-a", b = dir() / "machine-b";
  sweep(a);
  fs::copy(a, b, fs::copy_options::recursive);
  nlohmann::json meta = nlohmann::json::parse(testing::slurp(b / "meta.json"));
  meta["machine"]["cpu"] = std::string("A\0B", 3);
  std::ofstream(b / "meta.json", std::ios::trunc) << meta.dump(2);
  Result r = bench({"check", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("(A\\x00B, "), std::string::npos) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find(" cores)"), std::string::npos) << "the message goes on past the byte";
}

// Resume trusts meta.json no further than the command line (issue 46, N11,
// N12): another schema, a plan removed, options edited so that the runs
// differ, or a workload file inside the folder are each refused before
// anything is written, and the folder stays resumable as it was.
// Issue 55, item 11: check's --csv inside a folder it compares replaced the
// runs it had read; a link at --csv is replaced, never written through.
TEST_F(Hostile, CheckNeverWritesItsCsvIntoAComparedFolderOrThroughALink) {
  const fs::path folder = dir() / "csv-target";
  copy_folder(dir() / "good", folder);
  const std::string runs = testing::slurp(folder / "runs.csv");
  for (const fs::path& csv : {folder / "runs.csv", folder / "check.csv"}) {
    Result r = bench({"check", (dir() / "good").string(), folder.string(), "--csv", csv.string()});
    EXPECT_EQ(r.exit_code, 2) << csv << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("is inside the results folder"), std::string::npos) << r.err;
  }
  EXPECT_EQ(testing::slurp(folder / "runs.csv"), runs);
  EXPECT_FALSE(fs::exists(folder / "check.csv"));
  const fs::path victim = dir() / "csv-victim", link = dir() / "check-link.csv";
  std::ofstream(victim) << "untouched\n";
  fs::create_symlink(victim, link);
  Result linked = bench({"check", (dir() / "good").string(), folder.string(), "--csv", link.string()});
  EXPECT_NE(linked.exit_code, 2) << linked.err;
  EXPECT_EQ(testing::slurp(victim), "untouched\n");
  EXPECT_FALSE(fs::is_symlink(fs::symlink_status(link))) << "the link itself is replaced by the CSV";
}

TEST_F(Hostile, AResumeRefusesAnEditedMetaJson) {
  const fs::path folder = dir() / "edited-meta";
  sweep(folder);
  {
    std::string text = testing::slurp(folder / "runs.csv");  // the last run still to make
    std::ofstream(folder / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  const std::string original = testing::slurp(folder / "meta.json"), runs = testing::slurp(folder / "runs.csv");
  std::ofstream(folder / "w.json") << R"({"schema": 1, "workloads": [{"name": "pwn", "binary": "/bin/sh", "args": ["-c", "touch )" +
                                          (folder / "MARK").string() + R"("], "contract": false}]})";
  const std::pair<std::function<void(nlohmann::json&)>, std::string> edits[] = {
      {[](nlohmann::json& m) { m["schema"] = 5; }, "meta.json says schema 5, runs.csv schema "},
      {[](nlohmann::json& m) { m.erase("plan"); }, "records no plan"},
      {[](nlohmann::json& m) { m["options"]["threads"] = {1, 2, 3}; }, "differ from the plan its meta.json recorded"},
      {[](nlohmann::json& m) { m["options"]["reps"] = -2; }, "differ from the plan its meta.json recorded"},
      {[&](nlohmann::json& m) {
         m["options"]["workloads_file"] = {(folder / "w.json").string()};
         m["options"]["workload"] = {"test-alloc", "pwn"};
       },
       "a file inside the results folder itself"},
      // The attack's re-run: an option the plan's keys do not show (the seed), and the
      // options and the plan edited together (another allocator in both).
      {[](nlohmann::json& m) { m["options"]["seed"] = 7; }, "its meta.json was edited"},
      {[](nlohmann::json& m) {
         m["options"]["alloc"] = {"jemalloc"};
         for (auto& key : m["plan"]) {
           std::string k = key.get<std::string>();
           k.replace(k.find("|glibc|"), 7, "|jemalloc|");
           key = k;
         }
       },
       "which the sweep's plan does not: its meta.json was edited"},
      // ... and a workloads file outside the folder that meta.json names: a resume runs
      // programs only from files the command line names (N12 as the re-run found it).
      {[&](nlohmann::json& m) {
         m["options"]["workloads_file"].push_back((dir() / "outside-w.json").string());
         m["options"]["workload"] = {"test-alloc", "pwn"};
       },
       "a resume runs programs only from files you name"},
  };
  std::ofstream(dir() / "outside-w.json") << R"({"schema": 1, "workloads": [{"name": "pwn", "binary": "/bin/sh", "args": ["-c", "touch )" +
                                                 (folder / "MARK").string() + R"("], "contract": false}]})";
  for (const auto& [edit, says] : edits) {
    nlohmann::json meta = nlohmann::json::parse(original);
    edit(meta);
    meta["options_seal"] = options_seal(meta["options"]);  // the checks past the seal (edited_folder_e2e tries it)
    std::ofstream(folder / "meta.json", std::ios::trunc) << meta.dump(2);
    Result r = bench({"--resume", folder.string()});
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
    EXPECT_EQ(testing::slurp(folder / "runs.csv"), runs) << says << ": nothing written";
    EXPECT_FALSE(fs::exists(folder / "MARK")) << "the program meta.json named ran";
  }
  std::ofstream(folder / "meta.json", std::ios::trunc) << original;
  // runs.csv's first two runs under each other's id: two runs would share an id
  // once the resume makes the missing one.
  {
    std::vector<std::string> lines = lines_of(runs);
    ASSERT_GE(lines.size(), 4u);
    const std::size_t a = lines[2].find(','), b = lines[3].find(',');
    const std::string first = lines[2].substr(0, a), second = lines[3].substr(0, b);
    lines[2] = second + lines[2].substr(a);
    lines[3] = first + lines[3].substr(b);
    std::ofstream swapped(folder / "runs.csv", std::ios::trunc);
    for (const std::string& line : lines) swapped << line << '\n';
  }
  const std::string swapped = testing::slurp(folder / "runs.csv");
  Result under_other_ids = bench({"--resume", folder.string()});
  EXPECT_EQ(under_other_ids.exit_code, 2) << under_other_ids.out << under_other_ids.err;
  EXPECT_NE(testing::flat(under_other_ids.err).find("where the plan has it as run"), std::string::npos) << under_other_ids.err;
  EXPECT_EQ(testing::slurp(folder / "runs.csv"), swapped) << "nothing written";
  std::ofstream(folder / "runs.csv", std::ios::trunc) << runs;
  Result resumed = bench({"--resume", folder.string()});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

}  // namespace
}  // namespace allocstamp
