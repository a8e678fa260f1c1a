// sweep_test — the driver's logic with a fake executor: which runs are
// launched in what order, with what command line and environment; how their
// records become rows; statuses, exit codes, an interruption and --resume.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gnu/libc-version.h>
#include <unistd.h>

#include "run/environment.h"
#include "model/errors.h"
#include "run/executor.h"
#include "results/meta.h"
#include "results/results_folder.h"
#include "key_names.h"
#include "results/runs.h"
#include "commands/commands.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

// Returns scripted outcomes and remembers every launch.
class FakeExecutor : public Executor {
 public:
  std::vector<Launch> launches;
  std::function<Finished(const Launch&, int)> script;
  Finished run(const Launch& launch) override {
    launches.push_back(launch);
    return script(launch, int(launches.size()));
  }
};

// An ok exit with memprof's summary, as a profiled run leaves it.
Finished ok_with(const std::string& records) {
  Finished f;
  f.exit_code = 0;
  f.wall_ns = 1000;
  f.records = "@memprof pid=1 format=1 allocs_seq_count=1\n" + records;
  return f;
}

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("sweep-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    paths.source = root / "src";
    paths.build = root / "build";
    paths.memprof = paths.build / "lib" / "libmemprof.so";
    fs::create_directories(paths.source / "allocators");
    fs::create_directories(paths.source / "workloads");
    fs::create_directories(paths.build / "bin");
    fs::create_directories(paths.build / "lib");
    std::ofstream(paths.memprof) << "";
    std::ofstream(paths.build / "bin" / "work") << "";
    std::ofstream(root / "libfast.so") << "";
    std::ofstream(paths.source / "allocators" / "allocators.json")
        << R"({"schema": 1, "allocators": [
              {"name": "glibc", "package": "libc6", "libraries": []},
              {"name": "fast", "package": "libfast1", "libraries": [")" << (root / "libfast.so").string()
        << R"("], "env": {"FAST_TUNING": "1"}},
              {"name": "gone", "package": "libgone1", "libraries": ["/nonexistent/libgone.so"]}]})";
    std::ofstream(paths.source / "workloads" / "workloads.json")
        << R"({"schema": 1, "workloads": [
              {"name": "plain", "binary": "bin/work", "app": "plain", "args": ["--extra", "1"]},
              {"name": "txn", "binary": "bin/work", "app": "txn", "tm": true}]})";
    options.out = (root / "out").string();
    options.command_line = {"bench"};
  }
  void TearDown() override { fs::remove_all(root); }

  // Two workloads, one timed run each under glibc: a table between them.
  void two_workloads_one_run_each() {
    options.allocators = {"glibc"};
    options.workloads = {"plain", "txn"};
    options.threads = {1};
    options.reps = 1;
    options.profile_reps = 0;
  }

  std::vector<std::map<std::string, std::string>> rows() {
    CsvRow header;
    auto raw = read_csv(root / "out" / "runs.csv", &header);
    std::vector<std::map<std::string, std::string>> out;
    for (auto& r : raw) {
      std::map<std::string, std::string> m;
      for (size_t i = 0; i < header.size(); ++i) m[header[i]] = r[i];
      out.push_back(m);
    }
    return out;
  }

  static bool has(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  }

  fs::path root;
  Paths paths;
  Options options;
  FakeExecutor executor;
  std::ostringstream out;
};

// A folder damaged while the sweep runs (here: runs.csv's header edited
// during the first run) never ends the sweep: the next workload's runs are
// made (their tables come from the rows bench holds), and the damage is said
// at the end, where the file is found not to be what bench wrote.
TEST_F(Sweep, AFolderDamagedBetweenRunsNeverEndsTheSweep) {
  two_workloads_one_run_each();
  executor.script = [&](const Launch&, int n) {
    if (n == 1) {  // the header's first column renamed in place, as bench's stream writes on after it
      std::fstream file(root / "out" / "runs.csv", std::ios::in | std::ios::out);
      std::string schema;
      std::getline(file, schema);
      file.seekp(std::streamoff(schema.size() + 1));
      file << "run_xx";
    }
    return ok_with("@metric elapsed_ns=5\n");
  };
  EXPECT_THROW(run_sweep(options, paths, executor, out), UsageError) << "the damage is said at the end";
  EXPECT_EQ(executor.launches.size(), 2u) << "the second workload's run was made after the first's table failed";
}

// The table between workloads reads meta.json and the side tables from the
// folder (runs.csv is held in memory): damaged there, the table is not printed,
// the sweep goes on and makes the runs still to make.
TEST_F(Sweep, AMetaJsonDamagedBetweenRunsNeverEndsTheSweep) {
  two_workloads_one_run_each();
  executor.script = [&](const Launch&, int n) {
    if (n == 1) std::ofstream(root / "out" / "meta.json", std::ios::trunc) << "{";
    return ok_with("@metric elapsed_ns=5\n");
  };
  try {
    run_sweep(options, paths, executor, out);
  } catch (const UsageError&) {  // the damage may be said at the end: the runs were made first
  }
  EXPECT_EQ(executor.launches.size(), 2u) << "the second workload's run was made after the first's table failed";
  EXPECT_EQ(rows().size(), 2u);
}

TEST_F(Sweep, InterleavesAllocatorsAndBuildsTheChildsCommandLine) {
  options.allocators = {"glibc", "fast"};
  options.workloads = {"plain", "txn"};
  options.threads = {1, 2};
  options.reps = 2;
  options.profile_reps = 1;
  options.tm = "gl_wt";
  executor.script = [](const Launch&, int) { return ok_with("@metric elapsed_ns=5\n"); };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  // 2 workloads x 2 thread counts x 2 allocators x (2 timed + 1 profiled).
  ASSERT_EQ(executor.launches.size(), 24u);
  // Workload by workload (12 runs each): round 1, per thread count, every
  // allocator timed, then every allocator profiled; round 2: the timed runs only.
  const std::string fast = (root / "libfast.so").string(), memprof = paths.memprof.string();
  std::size_t checked = 0;
  for (size_t w : {0u, 12u}) {
    for (size_t i = w; i < w + 8; i += 4, ++checked) {
      for (const auto& e : executor.launches[i].env) EXPECT_NE(e.rfind("LD_PRELOAD=", 0), 0u) << i << ": " << e;
      EXPECT_TRUE(has(executor.launches[i + 1].env, "LD_PRELOAD=" + fast)) << i;
      EXPECT_TRUE(has(executor.launches[i + 1].env, "FAST_TUNING=1"));
      EXPECT_TRUE(has(executor.launches[i + 2].env, "LD_PRELOAD=" + memprof)) << i;
      EXPECT_TRUE(has(executor.launches[i + 3].env, "LD_PRELOAD=" + memprof + ":" + fast)) << i;
      EXPECT_FALSE(has(executor.launches[i].env, "MEMPROF_SERIES=1")) << "a timed run sets no memprof option";
      EXPECT_TRUE(has(executor.launches[i + 2].env, "MEMPROF_SERIES=1"));
    }
    for (size_t i = w + 8; i < w + 12; ++i, ++checked)
      EXPECT_FALSE(has(executor.launches[i].env, "LD_PRELOAD=" + memprof)) << i << ": round 2 is timed only";
  }
  EXPECT_EQ(checked, 12u);
  const Launch& first = executor.launches[0];
  EXPECT_EQ(first.program, (paths.build / "bin" / "work").string());
  EXPECT_EQ(first.args, (std::vector<std::string>{"plain", "--threads", "1", "--size", "small", "--seed", "1", "--extra", "1"}));
  const Launch& txn = executor.launches[12];  // the second workload's first run
  EXPECT_EQ(txn.args[0], "txn");
  EXPECT_TRUE(has(txn.args, "--tm"));
  EXPECT_TRUE(has(txn.env, "ITM_DEFAULT_METHOD=gl_wt"));
  EXPECT_FALSE(has(first.env, "ITM_DEFAULT_METHOD=gl_wt")) << "only transactional workloads";
  auto r = rows();
  ASSERT_EQ(r.size(), 24u);
  EXPECT_EQ(r[0]["kind"], "timed");
  EXPECT_EQ(r[2]["kind"], "profiled");
  EXPECT_EQ(r[2]["rep"], "1");
  EXPECT_EQ(r[8]["rep"], "2");
  EXPECT_EQ(r[12]["workload"], "txn");
  EXPECT_EQ(r[12]["rep"], "1");
}

// By default a cell has one profiled run at one thread (memprof's counts are
// exact there) and three at more; --profile-reps 0 has none.
TEST_F(Sweep, ProfiledRunsByThreadCount) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.threads = {1, 2};
  options.reps = 2;
  executor.script = [](const Launch&, int) { return ok_with("@metric elapsed_ns=5\n"); };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  std::map<std::string, int> count;  // threads + kind -> runs
  for (auto& row : rows()) ++count[row["threads"] + row["kind"]];
  EXPECT_EQ(count["1timed"], 2);
  EXPECT_EQ(count["1profiled"], 1);
  EXPECT_EQ(count["2timed"], 2);
  EXPECT_EQ(count["2profiled"], 3);
}

// A run whose records were cut short, or whose memprof writes a record format
// this bench does not read, is not measured: a failed row that says why.
TEST_F(Sweep, TruncatedOrUnknownRecordsMakeAFailedRow) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;  // profiled runs only
  options.profile_reps = 3;
  executor.script = [](const Launch&, int n) {
    if (n == 1) return ok_with("@error records_truncated_at_bytes=1048576\n");
    Finished f = ok_with("");
    if (n == 2) f.records = "@memprof pid=1 format=9 allocs_seq_count=1\n";
    return f;
  };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 1);
  auto r = rows();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]["status"], "failed");
  EXPECT_NE(r[0]["extra"].find("records are incomplete: error records_truncated_at_bytes=1048576"), std::string::npos)
      << r[0]["extra"];
  EXPECT_EQ(r[1]["status"], "failed");
  EXPECT_NE(r[1]["extra"].find("memprof wrote record format 9, this bench reads 1"), std::string::npos) << r[1]["extra"];
  EXPECT_EQ(r[2]["status"], "ok");
}

// A run whose own process wrote no record, while processes it started did
// (a shell pipeline whose shell left through _exit; issue 46, N15), is not
// measured: its row does not take another process's figures. A record whose
// ppid is bench's is the run's own; a stream without ppid (an older memprof)
// keeps its first record.
TEST_F(Sweep, ARootWithoutARecordTakesNoOtherProcesssFigures) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;
  options.profile_reps = 3;
  const std::string me = std::to_string(::getpid());
  auto with_only = [](const std::string& records) {
    Finished f = ok_with("");
    f.records = records;
    return f;
  };
  executor.script = [&](const Launch&, int n) {
    if (n == 1) return with_only("@memprof pid=7 ppid=6 format=1 allocs_seq_count=203\n");  // seq's, not the shell's
    if (n == 2)
      return with_only("@memprof pid=7 ppid=6 format=1 allocs_seq_count=203\n@memprof pid=6 ppid=" + me +
                       " format=1 allocs_seq_count=5\n");
    return with_only("@memprof pid=9 format=1 allocs_seq_count=11\n");
  };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 1);
  auto r = rows();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]["status"], "failed");
  EXPECT_EQ(r[0]["allocs_seq_count"], "");
  EXPECT_NE(r[0]["extra"].find("the program's own process wrote no memprof record (1 process(es) it started did)"),
            std::string::npos)
      << r[0]["extra"];
  EXPECT_EQ(r[1]["status"], "ok");
  EXPECT_EQ(r[1]["allocs_seq_count"], "5");
  EXPECT_EQ(r[2]["status"], "ok");
  EXPECT_EQ(r[2]["allocs_seq_count"], "11");
}

// memprof's @scope records become scopes.csv, one row per scope of a run.
TEST_F(Sweep, ScopeRecordsBecomeScopesCsv) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;  // profiled runs only
  options.profile_reps = 2;
  executor.script = [](const Launch&, int n) {
    return ok_with("@scope pid=1 name=build calls_count=" + std::to_string(n) +
                   " allocs_count=7 requested_bytes=700 held_bytes=100 duration_ns=55\n"
                   "@scope pid=1 name=query calls_count=3 allocs_count=0 requested_bytes=0 held_bytes=0 duration_ns=9\n");
  };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  CsvRow header;
  auto rows = read_csv(root / "out" / "scopes.csv", &header);
  EXPECT_EQ(header, (CsvRow{"run_id", "name", "calls_count", "allocs_count", "requested_bytes", "held_bytes", "duration_ns"}));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (CsvRow{"1", "build", "1", "7", "700", "100", "55"}));
  EXPECT_EQ(rows[1], (CsvRow{"1", "query", "3", "0", "0", "0", "9"}));
  EXPECT_EQ(rows[2][0], "2");
  EXPECT_EQ(rows[2][2], "2");
}

TEST_F(Sweep, RecordsBecomeColumnsAndUnknownKeysGoToExtra) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;  // profiled runs only
  options.profile_reps = 3;
  executor.script = [](const Launch&, int n) {
    return ok_with("@memprof pid=1 allocs_seq_count=" + std::to_string(10 * n) +
                   " heap_requested_peak_bytes=4096 novel_key=7\n@metric elapsed_ns=" + std::to_string(100 * n) +
                   "\n@metric tx_commits_count=3\n@sample t_ns=5 heap_requested_bytes=64 rss_kb=100\n");
  };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  auto r = rows();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1]["allocs_seq_count"], "20");
  EXPECT_EQ(r[1]["elapsed_ns"], "200");
  EXPECT_EQ(r[1]["tx_commits_count"], "3");
  EXPECT_EQ(r[1]["extra"], "novel_key=7");
  EXPECT_EQ(r[1]["status"], "ok");
  // summary.csv: elapsed_ns over 3 reps is 100, 200, 300.
  CsvRow header;
  auto summary = read_csv(root / "out" / "summary.csv", &header);
  bool found = false;
  for (auto& row : summary)
    if (row[9] == "elapsed_ns") {  // after the cell's identity: workload ... args, allocator, library, env, tm, threads
      found = true;
      EXPECT_EQ(row[10], "profiled") << "no timed run: the profiled runs' times, and summary.csv says so";
      EXPECT_EQ(row[11], "3");
      EXPECT_EQ(row[12], "200");
      EXPECT_EQ(row[13], "200");
      EXPECT_EQ(row[14], "100");  // two-pass sample stddev
      EXPECT_NEAR(std::stod(row[17]), std::cbrt(100.0 * 200 * 300), 1e-6);  // the tables' estimate: the geometric mean
    }
  EXPECT_TRUE(found);
  std::ifstream series(root / "out" / "series.csv");
  std::string all((std::istreambuf_iterator<char>(series)), {});
  EXPECT_NE(all.find("1,5,64,,,100"), std::string::npos) << all;
}

TEST_F(Sweep, StatusesAndExitCode) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;  // profiled runs only
  options.profile_reps = 4;
  executor.script = [](const Launch&, int n) {
    Finished f = ok_with("");
    if (n == 2) f.signal = 11, f.exit_code = -1;
    if (n == 3) f.exit_code = 3;
    if (n == 4) f.timed_out = true, f.signal = 15;
    return f;
  };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 1);
  auto r = rows();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]["status"], "ok");
  EXPECT_EQ(r[1]["status"], "crashed");
  EXPECT_EQ(r[1]["signal"], "11");
  EXPECT_EQ(r[2]["status"], "verify_failed");
  EXPECT_EQ(r[3]["status"], "timeout");
}

TEST_F(Sweep, AnOkExitWithoutMemprofsReportIsNotOk) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;  // profiled runs only
  options.profile_reps = 1;
  executor.script = [](const Launch&, int) {
    Finished f;
    f.exit_code = 0;
    f.records = "@metric elapsed_ns=5\n";  // memprof was not loaded, or died silently
    return f;
  };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 1);
  auto r = rows();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["status"], "failed");
  EXPECT_NE(r[0]["extra"].find("memprof did not report"), std::string::npos) << r[0]["extra"];
}

TEST_F(Sweep, ResumeKeepsItsOptionsAndRefusesNewOnes) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 1;
  executor.script = [](const Launch&, int) { return ok_with(""); };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  Options resume;
  resume.resume = (root / "out").string();
  resume.given = {"--resume", "--reps"};
  EXPECT_THROW(run_sweep(resume, paths, executor, out), UsageError);
  resume.given = {"--resume", "--dry-run"};
  resume.dry_run = true;
  size_t before = executor.launches.size();
  EXPECT_EQ(run_sweep(resume, paths, executor, out), 0);
  EXPECT_EQ(executor.launches.size(), before) << "--dry-run runs nothing, resumed or not";
}

// A dry run of a resume reads the folder and changes nothing in it: no lock,
// no log folder or side file made again, no row cut or dropped.
TEST_F(Sweep, ADryRunOfAResumeLeavesTheFolderAsItWas) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 1;
  executor.script = [](const Launch&, int) { return ok_with(""); };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  const fs::path dir = root / "out";
  fs::remove_all(dir / "logs");
  fs::remove(dir / "micro.csv");
  auto listing = [&] {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      std::ifstream in(e.path(), std::ios::binary);
      files[e.path().lexically_relative(dir).string()] =
          std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    return files;
  };
  const auto before = listing();
  Options resume;
  resume.resume = dir.string();
  resume.given = {"--resume", "--dry-run"};
  resume.dry_run = true;
  std::ostringstream said;
  EXPECT_EQ(run_sweep(resume, paths, executor, said), 0);
  EXPECT_EQ(said.str().rfind("0 runs still to make", 0), 0u) << said.str();
  EXPECT_EQ(listing(), before) << "--dry-run changes nothing";
}

TEST_F(Sweep, CountsOnlyProfile) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 0;  // profiled runs only
  options.profile_reps = 1;
  options.profile = "counts";
  executor.script = [](const Launch&, int) { return ok_with(""); };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 0);
  ASSERT_EQ(executor.launches.size(), 1u);
  EXPECT_TRUE(has(executor.launches[0].env, "MEMPROF_HEAP=0"));
  EXPECT_TRUE(has(executor.launches[0].env, "LD_PRELOAD=" + paths.memprof.string()));
}

TEST_F(Sweep, NoProfileAndSkippedAllocators) {
  options.allocators = {"all"};
  options.workloads = {"plain"};
  options.reps = 1;
  options.profile = "none";  // --profile none: timed runs only
  executor.script = [](const Launch&, int) { return ok_with(""); };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 0);
  ASSERT_EQ(executor.launches.size(), 2u) << "'gone' is not installed: not launched";
  for (const auto& e : executor.launches[0].env) EXPECT_EQ(e.rfind("LD_PRELOAD=", 0), std::string::npos) << e;
  EXPECT_TRUE(has(executor.launches[1].env, "LD_PRELOAD=" + (root / "libfast.so").string()));
  auto r = rows();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2]["allocator"], "gone");
  EXPECT_EQ(r[2]["status"], "skipped");
  EXPECT_NE(r[2]["extra"].find("apt-get install libgone1"), std::string::npos);
}

// Every reader of a sweep (the workloads' tables, the precision rounds, the
// summary, the ranking) takes the rows the folder holds: a new sweep never
// reads its runs.csv back, a resumed one reads it once, when it reopens it.
TEST_F(Sweep, RunsCsvIsReadOncePerSweep) {
  options.allocators = {"glibc", "fast"};
  options.workloads = {"plain", "txn"};
  options.threads = {1};
  options.reps = 2;
  options.profile_reps = 1;
  options.precision = 50;
  options.max_reps = 3;
  int n = 0;
  executor.script = [&](const Launch&, int) { return ok_with("@metric elapsed_ns=" + std::to_string(1000 + (++n % 7) * 100) + "\n"); };
  const int before = runs_files_loaded();
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  EXPECT_EQ(runs_files_loaded() - before, 0) << out.str();
  EXPECT_NE(out.str().find("bottom line"), std::string::npos) << "the tables were printed: " << out.str();
  Options resume;
  resume.resume = (root / "out").string();
  resume.command_line = {"bench", "--resume"};
  const int again = runs_files_loaded();
  ASSERT_EQ(run_sweep(resume, paths, executor, out), 0);
  EXPECT_EQ(runs_files_loaded() - again, 1);
}

TEST_F(Sweep, InterruptedRunIsNotRecordedAndResumeCompletes) {
  options.allocators = {"glibc", "fast"};
  options.workloads = {"plain"};
  options.reps = 2;
  executor.script = [](const Launch&, int n) {
    Finished f = ok_with("@metric elapsed_ns=1\n");
    if (n == 3) f.interrupted = true;
    return f;
  };
  EXPECT_EQ(run_sweep(options, paths, executor, out), 130);
  EXPECT_EQ(rows().size(), 2u);
  FakeExecutor second;
  second.script = [](const Launch&, int) { return ok_with("@metric elapsed_ns=1\n"); };
  Options resume;
  resume.resume = (root / "out").string();
  resume.command_line = {"bench", "--resume"};
  EXPECT_EQ(run_sweep(resume, paths, second, out), 0);
  // 2 allocators x (2 timed + 1 profiled): the four missing runs.
  EXPECT_EQ(second.launches.size(), 4u) << "only the missing runs";
  auto r = rows();
  ASSERT_EQ(r.size(), 6u);
  std::set<std::string> keys;
  for (auto& row : r) keys.insert(row["allocator"] + row["rep"] + row["kind"]);
  EXPECT_EQ(keys.size(), 6u);
}

// runs.csv's schema-4 columns: the child's arguments as it got them, the
// library preloaded, the variables that tune the allocator (the registry's
// among them), for every run, a skipped one too.
TEST_F(Sweep, RecordsWhatEachRunWasRunWith) {
  options.allocators = {"all"};
  options.workloads = {"plain"};
  options.reps = 1;
  options.profile_reps = 0;
  options.workload_args["plain"] = {"--label", "two words"};
  setenv("MALLOC_ARENA_MAX", "2", 1);
  setenv("LD_BIND_NOW", "1", 1);
  setenv("FAST_TUNING", "9", 1);  // the registry entry's value wins
  executor.script = [](const Launch&, int) { return ok_with(""); };
  const int status = run_sweep(options, paths, executor, out);
  unsetenv("MALLOC_ARENA_MAX");
  unsetenv("LD_BIND_NOW");
  unsetenv("FAST_TUNING");
  ASSERT_EQ(status, 0);
  auto r = rows();
  ASSERT_EQ(r.size(), 3u);
  for (auto& row : r)
    EXPECT_EQ(row["args"], "plain --threads 1 --size small --seed 1 --extra 1 --label 'two words'") << row["allocator"];
  EXPECT_EQ(r[0]["allocator"], "glibc");
  EXPECT_EQ(r[0]["alloc_library"], std::string("glibc ") + gnu_get_libc_version());
  EXPECT_EQ(r[0]["alloc_env"], "LD_BIND_NOW=1;MALLOC_ARENA_MAX=2");
  // libfast.so is no ELF file and libfast1 no installed package: its path alone.
  EXPECT_EQ(r[1]["alloc_library"], (root / "libfast.so").string());
  EXPECT_EQ(r[1]["alloc_env"], "FAST_TUNING=1;LD_BIND_NOW=1;MALLOC_ARENA_MAX=2");
  EXPECT_EQ(r[2]["status"], "skipped");
  EXPECT_EQ(r[2]["alloc_library"], "") << "not installed: no library to name";
  EXPECT_EQ(r[2]["alloc_env"], "LD_BIND_NOW=1;MALLOC_ARENA_MAX=2");
}

TEST(AllocatorEnvironment, KeepsTuningAndTheRegistrysVariablesSortedNotThePreload) {
  Allocator a;
  a.env = {{"MY_ARENAS", "4"}};
  EXPECT_EQ(allocator_environment({"PATH=/bin", "TCMALLOC_RELEASE_RATE=0", "LD_PRELOAD=/x.so", "MY_ARENAS=4",
                                   "GLIBC_TUNABLES=glibc.malloc.tcache_count=0", "MEMPROF_SERIES=1", "MIMALLOC_VERBOSE=1",
                                   "JEMALLOC_X=1", "TBB_MALLOC_USE_HUGE_PAGES=1", "LD_LIBRARY_PATH=/opt"},
                                  a),
            "GLIBC_TUNABLES=glibc.malloc.tcache_count=0;JEMALLOC_X=1;LD_LIBRARY_PATH=/opt;MIMALLOC_VERBOSE=1;"
            "MY_ARENAS=4;TBB_MALLOC_USE_HUGE_PAGES=1;TCMALLOC_RELEASE_RATE=0");
  EXPECT_EQ(allocator_environment({"HOME=/root"}, a), "");
  // gperftools' heap checker and profiler, and scudo's options, steer those
  // allocators too (HEAPCHECK=normal made tcmalloc-full 80 times slower, its
  // rows ok with alloc_env empty).
  EXPECT_EQ(allocator_environment({"HEAPCHECK=normal", "HEAPPROFILE=/tmp/h", "HEAP_PROFILE_ALLOCATION_INTERVAL=1",
                                   "PERFTOOLS_VERBOSE=1", "SCUDO_OPTIONS=release_to_os_interval_ms=0", "HOME=/root"},
                                  a),
            "HEAPCHECK=normal;HEAPPROFILE=/tmp/h;HEAP_PROFILE_ALLOCATION_INTERVAL=1;PERFTOOLS_VERBOSE=1;"
            "SCUDO_OPTIONS=release_to_os_interval_ms=0");
}

// The machine around each run: what the executor measured, with one decimal
// (the load average as the kernel gives it), empty where it measured nothing;
// meta.json counts the runs measured on a busy machine, and keeps the warnings.
TEST_F(Sweep, RecordsTheMachineAroundEachRunAndCountsBusyRuns) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 4;
  options.profile_reps = 0;
  executor.script = [](const Launch&, int n) {
    Finished f = ok_with("");
    if (n == 4) return f;  // a fake that measures nothing
    f.load_avg_before = 1.5;
    f.others_cpu_pct = n == 1 ? 30.04 : n == 2 ? 5 : 25;  // 25 is not more than a quarter
    f.steal_pct = n == 2 ? 12.5 : 0;
    return f;
  };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 0);
  auto r = rows();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]["load_avg_before"], "1.50");
  EXPECT_EQ(r[0]["others_cpu_pct"], "30.0");
  EXPECT_EQ(r[0]["steal_pct"], "0.0");
  EXPECT_EQ(r[1]["steal_pct"], "12.5");
  for (const char* column : {"load_avg_before", "others_cpu_pct", "steal_pct"}) EXPECT_EQ(r[3][column], "") << column;
  const Meta meta = read_meta(root / "out");
  EXPECT_EQ(meta.busy_runs().busy, 2) << "30% of the machine to others; 12.5% stolen";
  EXPECT_EQ(meta.busy_runs().of, 3) << "the fourth run's machine is unknown";
  EXPECT_TRUE(meta.doc["machine_warnings"].is_array());
}

// Resuming a folder of schema 3 (no args, alloc_* or machine columns) goes on
// in its own columns: every row as wide as its header, readable again.
TEST_F(Sweep, AnOlderFolderIsResumedInItsOwnColumns) {
  options.allocators = {"glibc"};
  options.workloads = {"plain"};
  options.reps = 3;
  options.profile_reps = 0;
  executor.script = [](const Launch&, int n) {
    Finished f = ok_with("");
    f.interrupted = n == 2;
    return f;
  };
  ASSERT_EQ(run_sweep(options, paths, executor, out), 130);
  // The folder as schema 3 wrote it: without the six columns (and the two
  // later schemas added for the map workloads), schema 3 in both files.
  const std::set<std::string> newer = {"args",           "alloc_library", "alloc_env",      "load_avg_before",
                                       "others_cpu_pct", "steal_pct",     "elements_count", "rss_baseline_kb"};
  CsvRow header;
  auto raw = read_csv(root / "out" / "runs.csv", &header);
  std::vector<bool> keep;
  for (const auto& name : header) keep.push_back(!newer.count(name));
  auto narrow = [&](const CsvRow& row) {
    CsvRow kept;
    for (size_t i = 0; i < row.size(); ++i)
      if (keep[i]) kept.push_back(row[i]);
    return kept;
  };
  {
    std::ofstream file(root / "out" / "runs.csv", std::ios::trunc);
    file << "# allocstamp runs.csv schema 3\n";
    write_row(file, narrow(header));
    for (const auto& row : raw) write_row(file, narrow(row));
  }
  Meta meta = read_meta(root / "out");
  meta.doc["schema"] = 3;
  std::ofstream(root / "out" / "meta.json", std::ios::trunc) << meta.doc.dump(2);
  FakeExecutor second;
  second.script = [](const Launch&, int) { return ok_with("@metric elements_count=7\n@metric rss_baseline_kb=1950\n"); };
  Options resume;
  resume.resume = (root / "out").string();
  resume.command_line = {"bench", "--resume"};
  ASSERT_EQ(run_sweep(resume, paths, second, out), 0);
  EXPECT_EQ(second.launches.size(), 2u);
  CsvRow after;
  auto resumed = read_csv(root / "out" / "runs.csv", &after);
  EXPECT_EQ(after, narrow(header)) << "its own columns";
  ASSERT_EQ(resumed.size(), 3u);
  for (const auto& row : resumed) EXPECT_EQ(row.size(), after.size());
  EXPECT_NO_THROW(load_runs(root / "out", "resumed"));
  // A measured figure a later schema made a column is kept in extra, where
  // the readers find it; bench's own newer columns are not (as before).
  const RunsTable table = load_runs(root / "out", "resumed");
  for (std::size_t r = 1; r < table.rows.size(); ++r) {
    EXPECT_EQ(table.number(table.rows[r], keys::elements_count), 7) << table.text(table.rows[r], keys::extra);
    EXPECT_EQ(table.number(table.rows[r], keys::rss_baseline_kb), 1950) << table.text(table.rows[r], keys::extra);
    EXPECT_EQ(table.text(table.rows[r], keys::extra).find("alloc_env"), std::string::npos);
  }
}

}  // namespace
}  // namespace allocstamp
