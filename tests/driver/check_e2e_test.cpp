// check_e2e_test — `bench check` through the real binary: two runs of the same
// build pass, a planted 10% allocation regression fails, timing noise does not,
// and unusable input exits 2 with a message. Exit codes are what git bisect reads.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/check_pairing.h"
#include "results/results_folder.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using Result = testing::CommandResult;

class CheckEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("check-e2e-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string slurp(const fs::path& p) { return testing::slurp(p); }

  // Runs bench with the test workloads; stdout and stderr through files.
  Result bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    // The test workloads, one thread and no figures unless a test says otherwise
    // (the default job these flags narrow runs 1 and 2 threads and draws figures).
    options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
    options.env.insert(options.env.end(), env.begin(), env.end());
    return testing::run_command(args, options);
  }

  // A sweep of test-alloc (tiny) into dir_/name; more arguments after.
  fs::path sweep(const std::string& name, std::vector<std::string> more = {}, std::vector<std::string> env = {}) {
    fs::path out = dir_ / name;
    std::vector<std::string> args = {"--alloc=glibc", "--workload=test-alloc", "--size=tiny", "--reps=3",
                                     "--profile-reps=3", "--no-series", "--out=" + out.string()};
    args.insert(args.end(), more.begin(), more.end());
    Result r = bench(args, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }

  // A runs.csv with bench's columns: `runs` rows of one cell, `column` taking
  // each of `values` in turn, every deterministic column fixed; each row once
  // timed and once profiled (a cell has both kinds).
  fs::path fabricate(const std::string& name, const std::string& column, const std::vector<double>& values,
                     const std::string& status = "ok") {
    fs::path file = dir_ / name;
    std::ofstream out(file);
    out << "# allocstamp runs.csv schema " << kResultsSchema << "\n";
    std::string header;
    // Appended, not (... ? "" : ",") + name: GCC 12 warns a false -Wrestrict there once inlined.
    for (const Column& c : run_columns()) header.append(header.empty() ? "" : ",").append(c.name);
    out << header << "\n";
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::map<std::string, std::string> v = {
          {"run_id", std::to_string(i + 1)}, {"workload", "test-alloc"},  {"app", "alloc"},
          {"size", "tiny"},                  {"allocator", "glibc"},       {"threads", "1"},
          {"rep", std::to_string(i + 1)},    {"status", status},           {"allocs_seq_count", "1002"},
          {"requested_seq_bytes", "76096"},  {"heap_requested_peak_bytes", "72000"}};
      std::ostringstream value;
      value.precision(15);
      value << values[i];
      v[column] = value.str();
      for (const char* kind : {"timed", "profiled"}) {
        v["kind"] = kind;
        v["run_id"] = std::to_string(2 * i + (std::string(kind) == "timed" ? 1 : 2));  // one id per run, as bench writes
        std::string row;
        for (const Column& c : run_columns()) row += (row.empty() ? "" : ",") + v[c.name];
        out << row << "\n";
      }
    }
    return file;
  }

  fs::path dir_;
};

// The words of `metric`'s row in bench check's table, its cell first: cell,
// metric, baseline, current, change, limit, detects, q, verdict. The table
// shows each cell on a line of its own, its rows indented under it, a row's
// note indented further under the row.
std::vector<std::string> row_of(const std::string& table, const std::string& metric) {
  std::istringstream lines(table);
  std::string cell;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') cell = line;
    if (line.rfind("  ", 0) != 0 || line.rfind("    ", 0) == 0) continue;
    std::istringstream words(line);
    std::vector<std::string> w{cell};
    for (std::string word; words >> word;) w.push_back(word);
    if (w.size() >= 9 && w[1] == metric) return w;
  }
  return {};
}

// The verdict of `metric`'s row: the word under the header's "verdict" (the
// table is aligned).
std::string verdict(const std::string& table, const std::string& metric) {
  std::istringstream lines(table);
  std::size_t column = std::string::npos;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  metric ", 0) == 0) column = line.find(" verdict") + 1;
    if (line.rfind("  ", 0) != 0 || line.rfind("    ", 0) == 0) continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name == metric && column < line.size()) return line.substr(column, line.find(' ', column) - column);
  }
  return "(no row for " + metric + ")";
}

TEST_F(CheckEndToEnd, SameBuildTwicePasses) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  fs::path a = sweep("a"), b = sweep("b");
  // The deterministic figures: whether two sweeps' times agree depends on the
  // machine (3 runs against 3 on a loaded one can differ), so no verdict on
  // time is asserted here; the time verdicts are tested on fabricated runs
  // with known answers (below).
  Result r = bench({"check", "--baseline=" + a.string(), "--current=" + b.string(), "--all", "--deterministic-only"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(verdict(r.out, "requested_seq_bytes"), "ok") << r.out;
  EXPECT_EQ(verdict(r.out, "allocs_seq_count"), "ok") << r.out;
  EXPECT_NE(testing::flat(r.out).find("— PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("names no machine"), std::string::npos) << "both meta.json name it: " << r.err;
  EXPECT_EQ(r.err.find("names its machine"), std::string::npos) << r.err;

  Result gate = bench({"check", "--baseline=" + (a / "runs.csv").string(), "--current=" + b.string(),
                       "--deterministic-only", "--all"});
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  EXPECT_EQ(gate.out.find("elapsed_ns"), std::string::npos) << "measured metrics are not compared: " << gate.out;
  EXPECT_EQ(verdict(gate.out, "requested_seq_bytes"), "ok") << gate.out;
}

// Runs made with other arguments (here the registry's --more-pct 10) or
// another allocator environment (MALLOC_CONF) are never compared: check
// lists them as not comparable, names the difference, and exits 2 unless the
// difference is allowed by name.
TEST_F(CheckEndToEnd, RunsMadeDifferentlyAreNotComparedAndNamed) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  fs::path a = sweep("a"), b = sweep("b", {"--workloads=" + std::string(REGRESSED_WORKLOADS)});
  Result r = bench({"check", "--baseline=" + a.string(), "--current=" + b.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("not comparable"), std::string::npos) << r.out;
  EXPECT_NE(testing::flat(r.err).find("error: 1 cell(s) ran differently and were not compared (arguments: --more-pct 10 in the current "
                       "runs only) — compare folders run the same way, or allow the difference: --allow-different args"),
            std::string::npos)
      << r.err;
  Result allowed = bench({"check", "--baseline=" + a.string(), "--current=" + b.string(), "--allow-different=args"});
  EXPECT_EQ(allowed.exit_code, 1) << "compared, and the planted 10% more allocations regressed: " << allowed.out;
  EXPECT_NE(allowed.out.find("ran differently (allowed): arguments: --more-pct 10"), std::string::npos) << allowed.out;

  fs::path tuned = sweep("tuned", {}, {"MALLOC_CONF=tcache:false"});
  Result env = bench({"check", "--baseline=" + a.string(), "--current=" + tuned.string()});
  EXPECT_EQ(env.exit_code, 2) << env.out << env.err;
  EXPECT_NE(testing::flat(env.err).find("environment: MALLOC_CONF=tcache:false in the current runs only"), std::string::npos) << env.err;
}

// What a user hit: the default job runs vacation-high with --transactions
// 49152 (the preset's args), --size=small without; both are labelled size
// small. bench check refuses to compare them and names the argument.
TEST_F(CheckEndToEnd, TheDefaultJobAndSizeSmallAreNotComparable) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const std::vector<std::string> one = {"--alloc=glibc", "--workload=vacation-high", "--threads=1", "--reps=1",
                                        "--profile-reps=0", "--no-series"};
  auto run = [&](const std::string& name, std::vector<std::string> more) {
    std::vector<std::string> args = one;
    args.insert(args.end(), more.begin(), more.end());
    args.push_back("--out=" + (dir_ / name).string());
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return dir_ / name;
  };
  fs::path job = run("job", {}), small = run("small", {"--size=small"});
  Result r = bench({"check", "--baseline=" + job.string(), "--current=" + small.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(testing::flat(r.err).find("--transactions 49152 in the baseline only"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("elapsed_ns"), std::string::npos) << "no time of the two was compared: " << r.out;
}

// The map question answered in its unit: bytes per element in the terminal
// table and in summary.csv (std::map of u32 pairs 40 B, Abseil's B+ tree ~10.5 B).
TEST_F(CheckEndToEnd, MapsAnswerInBytesPerElement) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  fs::path out = dir_ / "maps";
  Result r = bench({"--preset=maps-containers", "--workload=maps-insert-std_map,maps-insert-absl_btree_map",
                    "--size=tiny", "--reps=1", "--no-series", "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("req. B/elem"), std::string::npos) << r.out;
  std::map<std::string, double> per_element;  // workload -> requested bytes per element
  CsvRow header;
  for (const CsvRow& row : read_csv(out / "summary.csv", &header)) {
    std::map<std::string, std::string> v;
    for (std::size_t i = 0; i < header.size(); ++i) v[header[i]] = row[i];
    if (v["metric"] == "requested_bytes_per_element") per_element[v["workload"]] = std::stod(v["median"]);
  }
  EXPECT_NEAR(per_element["maps-insert-std_map"], 40.0, 0.05);
  EXPECT_NEAR(per_element["maps-insert-absl_btree_map"], 10.5, 0.1);
  // The terminal shows the same, to one decimal.
  std::istringstream lines(r.out);
  bool std_map = false;
  for (std::string line; std::getline(lines, line);)
    if (line.find("glibc") != std::string::npos && line.find(" 40.0 ") != std::string::npos) std_map = true;
  EXPECT_TRUE(std_map) << r.out;
}

TEST_F(CheckEndToEnd, PlantedAllocationRegressionFails) {
  // 10% more blocks, the arguments unchanged (as a code change would do it).
  fs::path a = sweep("a"), b = sweep("b", {}, {"TESTLOAD_MORE_PCT=10"});
  fs::path csv = dir_ / "check.csv";
  Result r = bench({"check", "--baseline=" + a.string(), "--current=" + b.string(), "--csv=" + csv.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // Default output: the rows that are not ok, then the verdict.
  EXPECT_EQ(verdict(r.out, "requested_seq_bytes"), "regressed") << r.out;
  EXPECT_EQ(verdict(r.out, "allocs_seq_count"), "regressed") << r.out;
  const std::vector<std::string> allocs = row_of(r.out, "allocs_seq_count");
  EXPECT_EQ(allocs, (std::vector<std::string>{"test-alloc:alloc/tiny/glibc/t1", "allocs_seq_count", "1002", "1102",
                                              "+9.98%", "exact", "-", "-", "regressed"}))
      << r.out;
  EXPECT_NE(testing::flat(r.out).find("— FAIL"), std::string::npos) << r.out;
  const std::string rows = slurp(csv);
  EXPECT_EQ(rows.rfind("# allocstamp check.csv schema 4\n", 0), 0u) << rows;
  EXPECT_NE(rows.find(",requested_seq_bytes,exact,3,3,76096,"), std::string::npos) << rows;
  EXPECT_NE(rows.find(",status,status,6,6,6,6,,,,,,,ok,"), std::string::npos) << "every row, ok ones too: " << rows;

  // The CI gate sees it too; a threshold above the change lets it through.
  EXPECT_EQ(bench({"check", "--baseline=" + a.string(), "--current=" + b.string(), "--deterministic-only"}).exit_code, 1);
  Result relaxed = bench({"check", "--baseline=" + a.string(), "--current=" + b.string(), "--deterministic-only",
                          "--threshold=deterministic=12"});
  EXPECT_EQ(relaxed.exit_code, 0) << relaxed.out << relaxed.err;
  // The other way round it is an improvement, which passes.
  Result back = bench({"check", "--baseline=" + b.string(), "--current=" + a.string(), "--deterministic-only"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(verdict(back.out, "requested_seq_bytes"), "improved") << back.out;
}

// --fail-on-change reaches the gate: a count that fell (memprof stopped
// counting, a workload stopped working) fails it, exit 1; without the flag it
// is improved and passes, and --fail-on-missing does not turn it on.
TEST_F(CheckEndToEnd, FailOnChangeFailsACountThatFell) {
  fs::path base = fabricate("base.csv", "allocs_seq_count", {1002, 1002, 1002});
  fs::path fewer = fabricate("fewer.csv", "allocs_seq_count", {900, 900, 900});
  Result lenient = bench({"check", base.string(), fewer.string(), "--deterministic-only"});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.out << lenient.err;
  EXPECT_EQ(verdict(lenient.out, "allocs_seq_count"), "improved") << lenient.out;
  Result gate = bench({"check", base.string(), fewer.string(), "--deterministic-only", "--fail-on-change"});
  EXPECT_EQ(gate.exit_code, 1) << gate.out << gate.err;
  EXPECT_EQ(verdict(gate.out, "allocs_seq_count"), "improved") << gate.out;
  EXPECT_NE(testing::flat(gate.out).find("— FAIL"), std::string::npos) << gate.out;
  Result missing = bench({"check", base.string(), fewer.string(), "--deterministic-only", "--fail-on-missing"});
  EXPECT_EQ(missing.exit_code, 0) << "--fail-on-missing is not --fail-on-change\n" << missing.out << missing.err;
}

// Two folders whose meta.json name other machines are refused (exit 2) unless
// machine is allowed by name; allowing another difference (library) does
// not let them through, and the warning names the flag only where it was given.
TEST_F(CheckEndToEnd, FoldersFromTwoMachinesAreRefusedUnlessMachineIsAllowed) {
  for (const char* side : {"base", "cur"}) fs::create_directories(dir_ / side);
  fabricate("base/runs.csv", "elapsed_ns", {100e6, 101e6, 102e6});
  fs::copy_file(dir_ / "base" / "runs.csv", dir_ / "cur" / "runs.csv");
  std::ofstream(dir_ / "base" / "meta.json") << R"({"machine": {"host": "alpha", "cpu": "Xeon", "cores": 4}})";
  std::ofstream(dir_ / "cur" / "meta.json") << R"({"machine": {"host": "beta", "cpu": "Xeon", "cores": 4}})";
  const std::string base = (dir_ / "base").string(), cur = (dir_ / "cur").string();
  const std::string difference = "the baseline ran on alpha (Xeon, 4 cores), the current runs on beta (Xeon, 4 cores)";
  for (const std::vector<std::string>& more :
       {std::vector<std::string>{}, {"--allow-different=library"}, {"--allow-different=args,env,library,tm"}}) {
    std::vector<std::string> args = {"check", base, cur, "--deterministic-only"};
    args.insert(args.end(), more.begin(), more.end());
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << (more.empty() ? "" : more[0]) << "\n" << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("error: the two sides are not comparable: " + difference +
                                        " — compare folders measured on one machine, or allow it: --allow-different machine"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("check:"), std::string::npos) << "nothing compared: " << r.out;
  }
  Result allowed = bench({"check", base, cur, "--deterministic-only", "--allow-different=machine"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_NE(testing::flat(allowed.err).find("warning: " + difference + " (allowed by --allow-different machine)"),
            std::string::npos)
      << allowed.err;
}

// bench check --help names every difference --allow-different accepts, in
// the option's line and in the footer (the footer's list had no simulator).
TEST_F(CheckEndToEnd, HelpNamesEveryDifferenceItAllows) {
  Result help = bench({"check", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  std::string names;
  for (const std::string& name : difference_names()) names += (names.empty() ? "" : ", ") + name;
  EXPECT_EQ(names, "args, env, library, tm, machine, simulator");
  const std::string text = testing::flat(help.out);
  EXPECT_NE(text.find("--allow-different names every difference (" + names + ")."), std::string::npos) << help.out;
  EXPECT_NE(text.find("ran differently in these ways: " + names + " (comma-separated)"), std::string::npos)
      << help.out;
}

TEST_F(CheckEndToEnd, TimingNoiseDoesNotFail) {
  // Overlapping samples, medians 30% apart: beyond the threshold, not significant.
  fs::path base = fabricate("base.csv", "elapsed_ns", {100e6, 150e6, 90e6, 160e6, 95e6});
  fs::path noisy = fabricate("noisy.csv", "elapsed_ns", {130e6, 95e6, 170e6, 110e6, 140e6});
  fs::path close = fabricate("close.csv", "elapsed_ns", {101e6, 149e6, 92e6, 158e6, 96e6});
  Result r = bench({"check", "--baseline=" + base.string(), "--current=" + noisy.string(), "--all"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Samples this spread (±30%) could not have seen 5%: undecided, never ok.
  EXPECT_EQ(verdict(r.out, "elapsed_ns"), "undecided") << r.out;
  EXPECT_EQ(verdict(r.out, "requested_seq_bytes"), "ok") << r.out;
  EXPECT_NE(testing::flat(r.err).find("detectable: 0 of 1 timed comparison(s) could see a change of 5% (power 0.8); median "
                       "detectable change 66%"),
            std::string::npos)
      << r.err;
  Result close_check = bench({"check", "--baseline=" + base.string(), "--current=" + close.string(), "--all"});
  EXPECT_EQ(close_check.exit_code, 0) << close_check.out << close_check.err;
  EXPECT_EQ(verdict(close_check.out, "elapsed_ns"), "undecided") << close_check.out;
  EXPECT_EQ(bench({"check", "--baseline=" + base.string(), "--current=" + close.string(), "--fail-on-undecided"})
                .exit_code, 1) << "a gate that must see its threshold";
  // Tight repetitions see 5%: ok, and --fail-on-undecided passes.
  fs::path steady = fabricate("steady.csv", "elapsed_ns", {100e6, 100.2e6, 100.4e6, 100.1e6, 100.3e6});
  fs::path steady_too = fabricate("steady-too.csv", "elapsed_ns", {100.1e6, 100.3e6, 100.2e6, 100.4e6, 100.0e6});
  Result ok = bench({"check", "--baseline=" + steady.string(), "--current=" + steady_too.string(), "--all",
                     "--fail-on-undecided"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(verdict(ok.out, "elapsed_ns"), "ok") << ok.out;

  // A real slowdown with five repetitions each is significant (p = 2/252)...
  fs::path slow = fabricate("slow.csv", "elapsed_ns", {200e6, 210e6, 220e6, 230e6, 240e6});
  Result bad = bench({"check", "--baseline=" + base.string(), "--current=" + slow.string()});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_EQ(verdict(bad.out, "elapsed_ns"), "regressed") << bad.out;
  // ...unless the threshold allows it, or only deterministic metrics are compared.
  fs::path thresholds = dir_ / "thresholds.json";
  std::ofstream(thresholds) << R"({"elapsed_ns": 150})";
  EXPECT_EQ(bench({"check", "--baseline=" + base.string(), "--current=" + slow.string(), "--thresholds=" +
                   thresholds.string()}).exit_code, 0);
  EXPECT_EQ(bench({"check", "--baseline=" + base.string(), "--current=" + slow.string(), "--thresholds=" +
                   thresholds.string(), "--threshold=elapsed_ns=10"}).exit_code, 1) << "the command line wins";
  EXPECT_EQ(bench({"check", "--baseline=" + base.string(), "--current=" + slow.string(), "--deterministic-only"})
                .exit_code, 0);
}

TEST_F(CheckEndToEnd, CrashingWorkloadFails) {
  fs::path base = fabricate("base.csv", "elapsed_ns", {100e6, 101e6, 102e6});
  fs::path crashed = fabricate("crashed.csv", "signal", {11, 11, 11}, "crashed");
  Result r = bench({"check", "--baseline=" + base.string(), "--current=" + crashed.string(), "--deterministic-only"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(verdict(r.out, "status"), "failed") << r.out;
  EXPECT_NE(r.out.find("current: 6 crashed"), std::string::npos) << "3 timed and 3 profiled: " << r.out;
}

// An allocator broken for cross-thread frees (libownercheck.so with
// OWNERCHECK_LEAK=1 leaks every block another thread frees) shows up in the
// stress programs that free across threads: the process's memory grows many
// times past the same allocator's when it is sound, and bench check flags it.
TEST_F(CheckEndToEnd, AnAllocatorLeakingCrossThreadFreesIsFlagged) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  for (const char* app : {"xmalloc", "larson"}) {
    std::vector<std::string> args = {"--alloc=" + std::string(OWNERCHECK_ALLOCATOR), std::string("--workload=") + app,
                                     "--size=tiny", "--threads=2", "--reps=8", "--profile-reps=8", "--no-series"};
    fs::path sound = dir_ / (std::string(app) + "-sound"), leaky = dir_ / (std::string(app) + "-leaky");
    std::vector<std::string> a = args, b = args;
    a.push_back("--out=" + sound.string());
    b.push_back("--out=" + leaky.string());
    ASSERT_EQ(bench(a, {"OWNERCHECK_LEAK=0"}).exit_code, 0);
    ASSERT_EQ(bench(b, {"OWNERCHECK_LEAK=1"}).exit_code, 0) << "the program itself runs fine";
    Result r = bench({"check", "--baseline=" + sound.string(), "--current=" + leaky.string(), "--all"});
    EXPECT_EQ(r.exit_code, 1) << app << "\n" << r.out << r.err;
    EXPECT_EQ(verdict(r.out, "hwm_kb"), "regressed") << app << "\n" << r.out;
    EXPECT_EQ(verdict(r.out, "maxrss_kb"), "regressed") << app << ": the timed runs see it too\n" << r.out;
    EXPECT_EQ(verdict(r.out, "allocs_par_count"), "ok") << app << ": the program made the same calls\n" << r.out;
  }
}

// The micro-benchmarks (micro.csv) are compared per benchmark: a planted 50%
// slowdown of one benchmark's repetitions is a regression, the others pass.
TEST_F(CheckEndToEnd, MicroBenchmarksAreComparedPerBenchmark) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  // One sweep, copied: the planted change is then the only one (two sweeps on
  // a shared machine differ by more than noise now and then).
  fs::path base = dir_ / "micro-base", cur = dir_ / "micro-cur";
  ASSERT_EQ(bench({"--alloc=glibc", "--workload=micro-batch", "--size=tiny", "--reps=5", "--no-profile",
                   "--out=" + base.string()})
                .exit_code,
            0);
  fs::copy(base, cur, fs::copy_options::recursive);
  {
    CsvRow header;
    std::vector<CsvRow> rows = read_csv(cur / "micro.csv", &header);
    EXPECT_EQ(rows.size(), 10u) << "5 runs x 2 benchmarks";
    std::ofstream out(cur / "micro.csv", std::ios::trunc);
    out << schema_line("micro.csv") << "\n";
    write_row(out, header);
    // Every planted value far above every measured one (ten times the slowest, on
    // the log scale the test works in): significant however noisy the machine was.
    double slowest = 0;
    for (const CsvRow& row : rows)
      if (row[2] == "batch_reversed/64") slowest = std::max(slowest, std::stod(row[7]));
    for (CsvRow& row : rows) {
      if (row[2] == "batch_reversed/64") row[7] = std::to_string(std::stod(row[7]) + 10 * slowest);
      write_row(out, row);
    }
  }
  Result r = bench({"check", "--baseline=" + base.string(), "--current=" + cur.string(), "--all"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(verdict(r.out, "ns_per_op:batch_reversed/64"), "regressed") << r.out;
  EXPECT_NE(verdict(r.out, "ns_per_op:batch_in_order/64"), "regressed") << r.out;
  // A benchmark's time is under the time group's threshold, never under one
  // given to elapsed_ns alone (which once let the planted change pass).
  Result one_metric = bench({"check", "--baseline=" + base.string(), "--current=" + cur.string(), "--all",
                             "--threshold=elapsed_ns=100000"});
  EXPECT_EQ(verdict(one_metric.out, "ns_per_op:batch_reversed/64"), "regressed") << one_metric.out;
  Result group = bench({"check", "--baseline=" + base.string(), "--current=" + cur.string(), "--all",
                        "--threshold=time=100000"});
  EXPECT_EQ(verdict(group.out, "ns_per_op:batch_reversed/64"), "ok") << group.out;
}

// A micro-benchmark the current micro.csv lacks is missing, named, and fails
// --fail-on-missing (issue 54: the check said PASS). Fabricated folders: no
// sweep, so nothing else can differ.
TEST_F(CheckEndToEnd, AMicroBenchmarkMissingFromTheCurrentRunsFailsWhenAsked) {
  for (const char* side : {"base", "cur"}) fs::create_directories(dir_ / side);
  fabricate("base/runs.csv", "elapsed_ns", {100e6, 101e6, 102e6});
  fs::copy_file(dir_ / "base" / "runs.csv", dir_ / "cur" / "runs.csv");
  auto write_micro = [&](const std::string& side, const std::vector<std::string>& benchmarks) {
    std::ofstream out(dir_ / side / "micro.csv");
    out << schema_line("micro.csv") << "\n"
        << "run_id,kind,benchmark,size_bytes,threads,repetition,iterations,real_ns_per_op,cpu_ns_per_op,items_per_s\n";
    for (int run : {1, 3, 5})  // fabricate()'s timed runs
      for (const std::string& benchmark : benchmarks)
        out << run << ",timed," << benchmark << ",64,1,0,1000," << 10 + run << "," << 10 + run << ",\n";
  };
  write_micro("base", {"batch_in_order/64", "batch_reversed/64"});
  write_micro("cur", {"batch_in_order/64"});
  const std::string base = (dir_ / "base").string(), cur = (dir_ / "cur").string();
  Result r = bench({"check", base, cur, "--all", "--fail-on-missing"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(verdict(r.out, "ns_per_op:batch_reversed/64"), "missing") << r.out;
  EXPECT_NE(testing::flat(r.err).find("1 micro-benchmark(s) of the baseline are not in the current micro.csv (verdict missing, which "
                       "fails the check): batch_reversed/64"),
            std::string::npos)
      << r.err;
  EXPECT_NE(testing::flat(r.out).find("— FAIL"), std::string::npos) << r.out;
  // Folders without a meta.json: compared, and said to be of unknown machines.
  EXPECT_NE(testing::flat(r.err).find("warning: neither side's meta.json names its machine: compared as if both ran on "
                                      "one machine"),
            std::string::npos)
      << r.err;
  Result lenient = bench({"check", base, cur, "--all"});
  EXPECT_EQ(lenient.exit_code, 0) << "missing fails only when asked\n" << lenient.out << lenient.err;
  EXPECT_EQ(verdict(lenient.out, "ns_per_op:batch_reversed/64"), "missing") << lenient.out;
}

TEST_F(CheckEndToEnd, UnusableInputExitsTwoWithAMessage) {
  fs::path good = fabricate("good.csv", "elapsed_ns", {100e6, 101e6, 102e6});
  // A --csv bench cannot write is bad usage, said before comparing: never the
  // exit 1 a CI gate reads as a regression.
  std::ofstream(dir_ / "a-file") << "x";
  Result csv = bench({"check", "--baseline=" + good.string(), "--current=" + good.string(),
                      "--csv=" + (dir_ / "a-file" / "check.csv").string()});
  EXPECT_EQ(csv.exit_code, 2) << csv.out << csv.err;
  EXPECT_NE(testing::flat(csv.err).find("is not a folder bench can write in"), std::string::npos) << csv.err;
  EXPECT_EQ(csv.out.find("check:"), std::string::npos) << "nothing compared: " << csv.out;
  fs::path garbage = dir_ / "garbage.csv";
  std::ofstream(garbage) << "this is,not\na \"runs.csv at all\n\x01\x02\n";
  fs::path newer = dir_ / "newer.csv";
  std::ofstream(newer) << "# allocstamp runs.csv schema 99\n" << slurp(good).substr(slurp(good).find('\n') + 1);
  fs::path damaged = dir_ / "damaged.csv";
  std::ofstream(damaged) << slurp(good) << "4,test-alloc,alloc\n";
  fs::path other = fabricate("other.csv", "elapsed_ns", {100e6});
  {
    std::string text = slurp(other);
    for (std::size_t at; (at = text.find("test-alloc")) != std::string::npos;) text.replace(at, 10, "churn");
    std::ofstream(other) << text;
  }
  fs::path bad_json = dir_ / "bad.json";
  std::ofstream(bad_json) << "{\"elapsed_ns\": ";
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--current=" + garbage.string()},
       "does not start with '# allocstamp runs.csv schema " + std::to_string(kResultsSchema) + "'"},
      {{"--current=" + newer.string()}, "has schema 99, newer than this bench reads"},
      {{"--current=" + damaged.string()}, "data row 7 (line 9) has 3 fields"},
      {{"--current=" + (dir_ / "nosuch").string()}, "current " + (dir_ / "nosuch").string() + " does not exist"},
      {{"--current=" + dir_.string()}, "holds no runs.csv"},
      {{"--current=" + other.string()}, "no cell (workload, app, size, allocator, tm, threads) is in both"},
      {{"--current=" + good.string(), "--threshold=elapsed=5"}, "unknown metric 'elapsed'"},
      {{"--current=" + good.string(), "--threshold=elapsed_ns=fast"}, "is not metric=percent"},
      {{"--current=" + good.string(), "--thresholds=" + bad_json.string()}, "is not valid JSON"},
      {{"--current=" + good.string(), "--thresholds=" + (dir_ / "none.json").string()}, "cannot read the thresholds file"},
      {{}, "was given one (" + good.string() + ", taken as the baseline)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"check", "--baseline=" + good.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << c.expected << "\n" << r.out << r.err;
    EXPECT_EQ(testing::flat(r.err).rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(testing::flat(r.err).find(c.expected), std::string::npos) << r.err;
    EXPECT_NE(testing::flat(r.err).find(" — "), std::string::npos) << "says how to fix: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // One folder, positional, names the missing one and how to give it; none says so too.
  Result one = bench({"check", good.string()});
  EXPECT_EQ(one.exit_code, 2) << one.err;
  EXPECT_NE(testing::flat(one.err).find("— name the runs to judge after it: bench check " + good.string() + " CURRENT"), std::string::npos)
      << one.err;
  Result none = bench({"check"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(testing::flat(none.err).find("was given none — name the known-good runs and the runs to judge: bench check BASELINE CURRENT"),
            std::string::npos) << none.err;
}

}  // namespace
}  // namespace allocstamp
