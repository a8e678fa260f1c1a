// bench_e2e_test — the real bench binary against the test workloads: every run
// status (ok, crashed, timeout, verify_failed, failed), an allocator given by
// path that crashes or hangs or that ld.so cannot load, a missing allocator,
// interrupt then --resume, and bad command lines (clear message, exit 2, no
// results folder left behind).
#include <gtest/gtest.h>

#include <regex>

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "results/results_folder.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using BenchResult = testing::CommandResult;
using testing::slurp;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("bench-e2e-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  return p;
}

// Runs bench; `interrupt_when`, polled while it runs, sends SIGINT once true.
BenchResult bench(std::vector<std::string> args, std::vector<std::string> env = {},
                  std::function<bool()> interrupt_when = {}) {
  args.insert(args.begin(), BENCH_BINARY);
  testing::CommandOptions options;
  // The test workloads, one thread and no figures unless a test says otherwise
  // (the default job these flags narrow runs 1 and 2 threads and draws figures).
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
  options.env.insert(options.env.end(), env.begin(), env.end());
  options.interrupt_when = std::move(interrupt_when);
  return testing::run_command(args, options);
}

std::vector<std::map<std::string, std::string>> rows_of(const fs::path& dir) {
  CsvRow header;
  auto rows = read_csv(dir / "runs.csv", &header);
  std::vector<std::map<std::string, std::string>> out;
  for (const auto& row : rows) {
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < header.size() && i < row.size(); ++i) m[header[i]] = row[i];
    out.push_back(m);
  }
  return out;
}

// docs/results.md's column table is `bench --columns` (the key table, keys.def) to the
// letter; scripts/readme-columns rewrites it.
TEST(BenchEndToEnd, ReadmeColumnTableIsTheKeyTable) {
  BenchResult r = bench({"--columns"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(slurp(README_FILE).find(r.out), std::string::npos)
      << "docs/results.md's column table differs from bench --columns: run scripts/readme-columns";
}

TEST(BenchEndToEnd, OkRunFillsMemprofAndAllocatorColumns) {
  fs::path dir = scratch("ok");
  BenchResult r = bench({"--alloc=glibc,jemalloc,tcmalloc,mimalloc,tbbmalloc", "--workload=test-alloc", "--size=tiny",
                         "--reps=2", "--profile-reps=1", "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 15u);  // 5 allocators x (2 timed + 1 profiled)
  // Allocators interleave within a repetition round: timed, then profiled.
  EXPECT_EQ(rows[0]["allocator"], "glibc");
  EXPECT_EQ(rows[1]["allocator"], "jemalloc");
  EXPECT_EQ(rows[0]["kind"], "timed");
  EXPECT_EQ(rows[5]["kind"], "profiled");
  EXPECT_EQ(rows[5]["allocator"], "glibc");
  EXPECT_EQ(rows[10]["rep"], "2");
  EXPECT_EQ(rows[10]["kind"], "timed");
  for (auto& row : rows) {
    EXPECT_EQ(row["status"], "ok");
    EXPECT_FALSE(row["elapsed_ns"].empty());
    // wait4's mechanisms, for every run: a process faults its pages in, and
    // its system time is a share of its CPU time.
    EXPECT_GT(std::stoll(row["minor_faults_count"]), 100) << row["allocator"];
    // Written as wait4 gives them: whole numbers (a major fault cannot be
    // provoked here; the switches are held to a run that sleeps below).
    for (const char* key : {"major_faults_count", "voluntary_switches_count", "involuntary_switches_count"})
      EXPECT_TRUE(std::regex_match(row[key], std::regex("[0-9]+"))) << key << " = '" << row[key] << "'";
    // The system-time share is sys / (user + sys) of wait4's times, one decimal,
    // for every run that used any CPU time.
    const double user = std::stod(row["user_ns"]), sys = std::stod(row["sys_ns"]);
    if (user + sys > 0) {
      ASSERT_FALSE(row["sys_share_pct"].empty()) << row["allocator"];
      EXPECT_NEAR(std::stod(row["sys_share_pct"]), 100.0 * sys / (user + sys), 0.05 + 1e-9)
          << "user " << user << " sys " << sys;
    } else {
      EXPECT_TRUE(row["sys_share_pct"].empty());
    }
    if (row["kind"] == "timed") {  // the allocator alone: no memprof column
      EXPECT_TRUE(row["allocs_seq_count"].empty()) << row["allocator"];
      EXPECT_TRUE(row["heap_requested_peak_bytes"].empty()) << row["allocator"];
      EXPECT_FALSE(row["maxrss_kb"].empty());
      continue;
    }
    EXPECT_GE(std::stoll(row["allocs_seq_count"]) + std::stoll(row["allocs_par_count"]), 1000);
    EXPECT_FALSE(row["heap_requested_peak_bytes"].empty());
    EXPECT_FALSE(row["rss_kb"].empty());
    // wait4's peak RSS is the process's whole life's: the peak memprof read
    // from inside it (VmHWM), same pages, same unit, give or take the pages
    // the kernel's per-CPU RSS counters had not yet folded in (seen: 3520
    // against 3560 kB under mimalloc); a figure from another field (a fault
    // count: hundreds) is far below it.
    EXPECT_GE(double(std::stoll(row["maxrss_kb"])), 0.9 * double(std::stoll(row["hwm_kb"]))) << row["allocator"];
    if (row["allocator"] != "tbbmalloc") {
      EXPECT_FALSE(row["alloc_mapped_bytes"].empty()) << row["allocator"];
    }
    if (row["allocator"] != "tbbmalloc" && row["allocator"] != "mimalloc") {
      EXPECT_FALSE(row["alloc_in_use_bytes"].empty()) << row["allocator"];
    }
  }
  for (const char* f : {"runs.csv", "series.csv", "meta.json", "summary.csv"}) EXPECT_TRUE(fs::exists(dir / f)) << f;
  EXPECT_NE(slurp(dir / "meta.json").find("\"git_commit\""), std::string::npos);
  EXPECT_NE(r.out.find("vs glibc"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timed runs"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// A run that naps (test-naps: 1 ms, 200 times) gives up the CPU at each nap:
// wait4 counts at least 200 voluntary switches. Awake for microseconds between
// naps, it is rarely running when the kernel could preempt it, so even on a
// busy machine its involuntary switches (a few in its start and exit) stay far
// fewer: the two columns cannot be swapped, or filled from one count, unseen.
// Its CPU time is a sliver of its wall time.
TEST(BenchEndToEnd, ASleepingRunCountsItsVoluntarySwitches) {
  constexpr int64_t kNaps = 200;  // test-naps's --naps
  fs::path dir = scratch("sleeps");
  BenchResult r = bench({"--alloc=glibc", "--workload=test-naps", "--size=tiny", "--reps=2", "--no-profile",
                         "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 2u);
  for (auto& row : rows) {
    const int64_t voluntary = std::stoll(row["voluntary_switches_count"]);
    const int64_t involuntary = std::stoll(row["involuntary_switches_count"]);
    EXPECT_GE(voluntary, kNaps) << "one per nap";
    EXPECT_LT(involuntary, kNaps / 4) << "a process that naps is rarely preempted";
    EXPECT_LT(std::stod(row["user_ns"]) + std::stod(row["sys_ns"]), 0.5 * std::stod(row["wall_ns"]));
  }
  fs::remove_all(dir);
}

// A run that counts in user mode (test-spin: 1,000 million steps, 0.27 s of
// CPU here) spends nearly all its CPU time as user time: wait4's
// user_ns holds it, sys_ns a sliver, and their sum fits in the wall time of a
// process of one thread. The two columns cannot be swapped, or filled from
// one figure, unseen.
TEST(BenchEndToEnd, ASpinningRunsCpuTimeIsUserTime) {
  fs::path dir = scratch("spins");
  BenchResult r = bench({"--alloc=glibc", "--workload=test-spin", "--size=tiny", "--reps=1", "--no-profile",
                         "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 1u);
  auto& row = rows[0];
  const double user = std::stod(row["user_ns"]), sys = std::stod(row["sys_ns"]), wall = std::stod(row["wall_ns"]);
  EXPECT_GT(user, 100e6) << "a count of 1,000 million takes tenths of a second of CPU";
  EXPECT_LT(sys, user / 4) << "user " << user << " sys " << sys;
  EXPECT_LE(user + sys, 1.05 * wall) << "one thread: its CPU time fits in its wall time";
  EXPECT_LT(std::stod(row["sys_share_pct"]), 20.0);
  fs::remove_all(dir);
}

TEST(BenchEndToEnd, EveryFailureStatus) {
  fs::path dir = scratch("statuses");
  BenchResult r = bench({"--alloc=glibc", "--workload=test-crash,test-hang,test-hang-stubborn,test-fail-verify,test-fail",
                         "--reps=1", "--no-profile", "--timeout=1", "--out=" + dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 5u);
  std::map<std::string, std::map<std::string, std::string>> by;
  for (auto& row : rows) by[row["workload"]] = row;
  EXPECT_EQ(by["test-crash"]["status"], "crashed");
  EXPECT_EQ(by["test-crash"]["signal"], std::to_string(SIGSEGV));
  EXPECT_EQ(by["test-hang"]["status"], "timeout");
  EXPECT_EQ(by["test-hang-stubborn"]["status"], "timeout");
  EXPECT_EQ(by["test-hang-stubborn"]["signal"], std::to_string(SIGKILL));  // TERM was ignored
  EXPECT_EQ(by["test-fail-verify"]["status"], "verify_failed");
  EXPECT_EQ(by["test-fail-verify"]["exit_code"], "3");
  EXPECT_EQ(by["test-fail"]["status"], "failed");
  EXPECT_NE(slurp(dir / by["test-fail"]["log"]).find("failing on purpose"), std::string::npos);
  fs::remove_all(dir);
}

TEST(BenchEndToEnd, AllocatorByPathThatCrashesOrHangs) {
  fs::path dir = scratch("crashalloc");
  BenchResult r = bench({"--alloc=" + std::string(CRASHALLOC) + ",glibc", "--workload=test-alloc", "--size=tiny",
                         "--reps=1", "--no-profile", "--out=" + dir.string()},
                        {"CRASHALLOC_AFTER=200"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["allocator"], "libcrashalloc.so");
  EXPECT_EQ(rows[0]["status"], "crashed");
  EXPECT_EQ(rows[0]["signal"], std::to_string(SIGSEGV));
  EXPECT_EQ(rows[1]["status"], "ok") << "the sweep goes on after a crash";
  fs::remove_all(dir);

  BenchResult hang = bench({"--alloc=" + std::string(CRASHALLOC), "--workload=test-alloc", "--size=tiny", "--reps=1",
                            "--timeout=1", "--out=" + dir.string()},
                           {"CRASHALLOC_AFTER=200", "CRASHALLOC_MODE=hang"});
  EXPECT_EQ(hang.exit_code, 1) << hang.err;
  EXPECT_EQ(rows_of(dir).at(0)["status"], "timeout");
  fs::remove_all(dir);
}

// An allocator library that exists and defines malloc and free, but that
// ld.so cannot load: one built for another machine (libcrashalloc.so with its
// ELF header's e_machine set to AArch64). ld.so says it "cannot be preloaded"
// and ignores it, the program runs on glibc's malloc: its runs fail and say
// so, not glibc's times under its name. (A library whose dependency is not on
// the library path stops the program instead: it fails by its exit status.)
TEST(BenchEndToEnd, AnAllocatorTheLoaderCannotLoadFailsItsRunsAsNotPreloaded) {
  fs::path dir = scratch("unloadable");
  const fs::path foreign = scratch("libforeign.so");
  fs::copy_file(CRASHALLOC, foreign);
  {
    std::fstream elf(foreign, std::ios::in | std::ios::out | std::ios::binary);
    elf.seekp(18);  // e_machine
    elf.write("\xb7\x00", 2);  // EM_AARCH64
  }
  BenchResult r = bench({"--alloc=" + foreign.string(), "--workload=test-alloc", "--size=tiny", "--reps=1",
                         "--no-profile", "--out=" + dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(testing::flat(r.err).find("the allocator library was not preloaded"), std::string::npos) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["allocator"], foreign.filename().string());
  EXPECT_EQ(rows[0]["status"], "failed") << rows[0]["extra"];
  EXPECT_NE(rows[0]["extra"].find("not preloaded"), std::string::npos) << rows[0]["extra"];
  fs::remove_all(dir);
  fs::remove(foreign);
}

TEST(BenchEndToEnd, MissingAllocatorNamesThePackage) {
  fs::path dir = scratch("missing");
  fs::path registry = scratch("registry.json");
  std::ofstream(registry) << R"({"schema": 1, "allocators": [{"name": "ghost", "package": "libghost-malloc1",
                                  "libraries": ["/nonexistent/libghost.so"]}]})";
  BenchResult r = bench({"--registry=" + registry.string(), "--alloc=ghost", "--workload=test-alloc", "--out=" + dir.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(testing::flat(r.err).find("not installed"), std::string::npos) << r.err;
  EXPECT_NE(testing::flat(r.err).find("apt-get install libghost-malloc1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir));
  // With --alloc=all the missing one becomes a skipped row and the rest runs.
  BenchResult all = bench({"--registry=" + registry.string(), "--alloc=all", "--workload=test-alloc", "--size=tiny",
                           "--reps=1", "--out=" + dir.string()});
  EXPECT_EQ(all.exit_code, 0) << "skipping is not failing: " << all.err;
  EXPECT_NE(all.out.find("skipped"), std::string::npos) << all.out;
  bool skipped = false;
  for (auto& row : rows_of(dir)) {
    if (row["allocator"] == "ghost") {
      skipped = row["status"] == "skipped";
      // It never started: nothing points to a log it does not have (issue 58).
      EXPECT_EQ(row["log"], "") << "a skipped run's log column names a file that does not exist";
    } else {
      EXPECT_TRUE(fs::exists(dir / row["log"])) << row["log"];
    }
  }
  EXPECT_TRUE(skipped);
  const std::string said = testing::flat(all.out + all.err);
  EXPECT_EQ(said.find("logs/"), said.rfind("logs/")) << "logs/ is named once, in the results line: " << said;
  // Its progress line says why it was skipped, as runs.csv does.
  EXPECT_NE(testing::flat(all.err).find(": skipped: allocator not installed: apt-get install libghost-malloc1"),
            std::string::npos)
      << all.err;
  fs::remove_all(dir);
  fs::remove(registry);
}

// A run skipped because its allocator was missing is made on --resume once
// the library is there, in the skipped row's place: one row per run (the
// skipped one beside the new once made the folder unreadable: "run 3 appears
// twice"), and the folder reads.
TEST(BenchEndToEnd, ASkippedRunIsMadeInItsPlaceOnceItsAllocatorIsThere) {
  fs::path dir = scratch("skipped-then-installed");
  fs::path lib = scratch("libghost.so");
  fs::path registry = scratch("ghost-registry.json");
  fs::remove(lib);
  std::ofstream(registry) << R"({"schema": 1, "allocators": [{"name": "ghost",
                                  "libraries": [")" << lib.string() << R"("]}]})";
  // (--alloc=all: a missing allocator named alone is refused, among all it is skipped)
  BenchResult first = bench({"--registry=" + registry.string(), "--alloc=all", "--workload=test-alloc",
                             "--size=tiny", "--reps=1", "--profile-reps=0", "--no-plot", "--out=" + dir.string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // An entry without a Debian package: the way to install it is its path, not "apt-get install ".
  EXPECT_NE(testing::flat(first.err).find("skipped: allocator not installed: put its library at " + lib.string()),
            std::string::npos)
      << first.err;
  // A dry run says what the resume would make: nothing while the library is
  // missing (the run stays skipped), the skipped run once it is there.
  BenchResult waiting = bench({"--resume=" + dir.string(), "--registry=" + registry.string(), "--dry-run"});
  ASSERT_EQ(waiting.exit_code, 0) << waiting.err;
  EXPECT_EQ(waiting.out.rfind("0 runs still to make", 0), 0u) << waiting.out;
  fs::copy_file("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", lib);
  BenchResult preview = bench({"--resume=" + dir.string(), "--registry=" + registry.string(), "--dry-run"});
  ASSERT_EQ(preview.exit_code, 0) << preview.err;
  EXPECT_NE(preview.out.find("\n1 runs still to make"), std::string::npos) << preview.out;
  EXPECT_NE(preview.out.find("ghost"), std::string::npos) << preview.out;
  BenchResult resumed = bench({"--resume=" + dir.string(), "--registry=" + registry.string(), "--no-plot"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::map<std::string, int> ids;
  int ghost_ok = 0;
  for (auto& row : rows_of(dir)) {
    ++ids[row["run_id"]];
    if (row["allocator"] == "ghost") {
      EXPECT_EQ(row["status"], "ok") << "the skipped row is gone";
      ghost_ok += row["status"] == "ok";
    }
  }
  EXPECT_EQ(ghost_ok, 1);
  for (const auto& [id, n] : ids) EXPECT_EQ(n, 1) << "run " << id;
  BenchResult summary = bench({"summarize", dir.string()});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  fs::remove_all(dir);
  fs::remove(registry);
  fs::remove(lib);
}

// A variant is its base's library with settings: its own rows, its variables
// in the child's environment and in alloc_env, and a table against its base.
// One from the command line, one from a registry line; bad entries are refused.
TEST(BenchEndToEnd, VariantsRunWithTheirSettingsAgainstTheirBase) {
  fs::path dir = scratch("variants");
  fs::path registry = scratch("variants.json");
  std::ofstream(registry) << R"({"schema": 1, "allocators": [{"name": "jemalloc:tcacheoff", "base": "jemalloc",
                                  "env": {"MALLOC_CONF": "tcache:false"}}]})";
  BenchResult r = bench({"--registry=" + registry.string(), "--alloc=jemalloc,jemalloc:tcacheoff,jemalloc:MALLOC_CONF=narenas:1",
                         "--workload=test-alloc", "--size=tiny", "--reps=2", "--profile-reps=1", "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> env_of;
  for (auto& row : rows_of(dir)) {
    EXPECT_EQ(row["status"], "ok") << row["allocator"];
    env_of[row["allocator"]] = row["alloc_env"];
  }
  EXPECT_EQ(env_of.size(), 3u);
  EXPECT_EQ(env_of["jemalloc"].find("MALLOC_CONF"), std::string::npos) << env_of["jemalloc"];
  EXPECT_NE(env_of["jemalloc:tcacheoff"].find("MALLOC_CONF=tcache:false"), std::string::npos);
  EXPECT_NE(env_of["jemalloc:MALLOC_CONF=narenas:1"].find("MALLOC_CONF=narenas:1"), std::string::npos);
  EXPECT_NE(r.out.find("variants against their base"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MALLOC_CONF=tcache:false"), std::string::npos) << "the settings column: " << r.out;
  BenchResult plotted = bench({"plot", dir.string()});
  ASSERT_EQ(plotted.exit_code, 0) << plotted.err;
  std::ifstream report(dir / "report.md");
  std::stringstream text;
  text << report.rdbuf();
  EXPECT_NE(text.str().find("## Variants against their base"), std::string::npos);
  // The dry run shows a variant's variables in front of its command.
  BenchResult dry = bench({"--alloc=variants", "--workload=test-alloc", "--size=tiny", "--threads=1", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("libjemalloc.so.2 MALLOC_CONF=background_thread:true "), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("test-alloc glibc:arena1 t=1"), std::string::npos) << dry.out;
  // Entries that would mislabel a variant's rows.
  auto refused = [&](const std::string& json, const std::string& says) {
    std::ofstream(registry) << json;
    BenchResult bad = bench({"--registry=" + registry.string(), "--alloc=jemalloc", "--workload=test-alloc", "--dry-run"});
    EXPECT_EQ(bad.exit_code, 2) << says << ": " << bad.err;
    EXPECT_NE(testing::flat(bad.err).find(says), std::string::npos) << bad.err;
  };
  refused(R"({"schema": 1, "allocators": [{"name": "jemalloc:x", "env": {"A": "1"}}]})", "has no \"base\"");
  refused(R"({"schema": 1, "allocators": [{"name": "jemalloc:x", "base": "mimalloc", "env": {"A": "1"}}]})",
          "name a variant BASE:VARIANT after its base");
  refused(R"({"schema": 1, "allocators": [{"name": "nope:x", "base": "nope", "env": {"A": "1"}}]})",
          "not an allocator defined before it");
  refused(R"({"schema": 1, "allocators": [{"name": "jemalloc:x", "base": "jemalloc"}]})", "sets nothing");
  refused(R"({"schema": 1, "allocators": [{"name": "jemalloc:x", "base": "jemalloc", "env": {"A": "1"},
               "libraries": ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"]}]})",
          "drop \"libraries\"");
  refused(R"({"schema": 1, "allocators": [{"name": "jemalloc:bg:x", "base": "jemalloc:bg", "env": {"A": "1"}}]})",
          "as its base, not an allocator");
  refused(R"({"schema": 1, "allocators": [{"name": "jemalloc:x", "base": "jemalloc", "env": {"A B": "1"}}]})",
          "not a variable name");
  // The command-line form: a known base, a variable name, a value bench can name rows after.
  for (const auto& [alloc, says] : std::vector<std::pair<std::string, std::string>>{
           {"jemaloc:MALLOC_CONF=narenas:1", "unknown allocator 'jemaloc'"},
           {"jemalloc:MALLOC-CONF=narenas:1", "is not a variable name"},
           {"jemalloc:MALLOC_CONF=a/b", "needs a registry line"},
           {"jemalloc:bgg", "did you mean 'jemalloc:bg'?"}}) {
    BenchResult bad = bench({"--alloc=" + alloc, "--workload=test-alloc", "--dry-run"});
    EXPECT_EQ(bad.exit_code, 2) << alloc << ": " << bad.err;
    EXPECT_NE(testing::flat(bad.err).find(says), std::string::npos) << alloc << ": " << bad.err;
  }
  fs::remove_all(dir);
  fs::remove(registry);
}

TEST(BenchEndToEnd, InterruptThenResume) {
  fs::path dir = scratch("resume");
  std::vector<std::string> args = {"--alloc=glibc,jemalloc", "--workload=test-slow", "--reps=3", "--profile-reps=1",
                                   "--out=" + dir.string()};
  // 2 x (3 timed + 1 profiled) runs of 300 ms, interrupted once two rows are
  // written (an event, however slow the machine).
  auto two_rows = [&] {
    try {
      return fs::exists(dir / "runs.csv") && rows_of(dir).size() >= 2;
    } catch (const std::exception&) {
      return false;  // a row being written
    }
  };
  BenchResult first = bench(args, {}, two_rows);
  EXPECT_EQ(first.exit_code, 130) << first.err;
  EXPECT_NE(testing::flat(first.err).find("--resume"), std::string::npos) << first.err;
  size_t recorded = rows_of(dir).size();
  EXPECT_GE(recorded, 2u);
  EXPECT_LT(recorded, 8u);
  for (auto& row : rows_of(dir)) EXPECT_EQ(row["status"], "ok") << "an interrupted run is not recorded";
  BenchResult preview = bench({"--resume=" + dir.string(), "--dry-run"});
  EXPECT_EQ(preview.exit_code, 0) << preview.err;
  EXPECT_NE(preview.out.find(std::to_string(8 - recorded) + " runs still to make (" + std::to_string(recorded) +
                             " of 8 recorded)"),
            std::string::npos)
      << preview.out;
  EXPECT_EQ(rows_of(dir).size(), recorded) << "--dry-run runs nothing";
  BenchResult second = bench({"--resume=" + dir.string()});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  auto rows = rows_of(dir);
  EXPECT_EQ(rows.size(), 8u);
  std::set<std::string> keys;
  for (auto& row : rows) keys.insert(row["allocator"] + row["rep"] + row["kind"]);
  EXPECT_EQ(keys.size(), 8u) << "no run twice";
  fs::remove_all(dir);
}

// Interrupted before its first run ends, a sweep says so and exits 130 with
// the way to finish it, as any interrupted sweep (it said "runs.csv holds no
// runs", exit 2, as if the folder were damaged); --resume then makes them all.
TEST(BenchEndToEnd, AnInterruptBeforeTheFirstRunIsAnInterruption) {
  fs::path dir = scratch("interrupt-first");
  std::vector<std::string> args = {"--alloc=glibc", "--workload=test-slow", "--reps=2", "--no-profile",
                                   "--out=" + dir.string()};
  // The folder made (runs.csv's header written), the first 300 ms run under way.
  auto opened = [&] { return fs::exists(dir / "runs.csv"); };
  BenchResult first = bench(args, {}, opened);
  EXPECT_EQ(first.exit_code, 130) << first.err;
  EXPECT_NE(testing::flat(first.err).find("interrupted: 0 run(s) recorded; finish with: bench --resume " + dir.string()),
            std::string::npos)
      << first.err;
  EXPECT_EQ(first.err.find("holds no runs"), std::string::npos) << first.err;
  BenchResult second = bench({"--resume=" + dir.string()});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(rows_of(dir).size(), 2u);
  fs::remove_all(dir);
}

TEST(BenchEndToEnd, BadCommandLinesLeaveNothing) {
  fs::path dir = scratch("bad");
  const std::vector<std::vector<std::string>> bad = {
      {"--alloc=nosuch", "--workload=test-alloc"},
      {"--workload=nosuch"},
      {"--threads=1,x", "--workload=test-alloc"},
      {"--reps=0", "--profile-reps=0", "--workload=test-alloc"},
      {"--size=enormous", "--workload=test-alloc"},
      {"--timeout=-3", "--workload=test-alloc"},
      {"--alloc=/nonexistent/lib.so", "--workload=test-alloc"},
      {"--bogus-flag"},
      {"--preset=nosuch"},
  };
  for (auto args : bad) {
    args.push_back("--out=" + dir.string());
    BenchResult r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << r.err;
    EXPECT_EQ(testing::flat(r.err).rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(testing::flat(r.err).find(" — "), std::string::npos) << "says how to fix: " << r.err;
    EXPECT_FALSE(fs::exists(dir)) << args[0];
  }
  BenchResult unwritable = bench({"--workload=test-alloc", "--alloc=glibc", "--out=/proc/allocstamp-cannot"});
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.err;
}

// With no workload chosen, bench runs the preset "default"; flags narrow it.
TEST(BenchEndToEnd, NoWorkloadMeansTheDefaultPresetWhichFlagsNarrow) {
  BenchResult all = bench({"--dry-run"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("maps-insert-std_map"), std::string::npos);
  EXPECT_NE(all.out.find("intset-list-u60"), std::string::npos);
  BenchResult narrowed = bench({"--dry-run", "--alloc=glibc", "--reps=1", "--threads=2"});
  ASSERT_EQ(narrowed.exit_code, 0) << narrowed.err;
  // The default job's workloads, from its own plan (not spelled here): each
  // narrowed to glibc, 2 threads, 1 timed and 3 profiled runs (3 at threads > 1).
  std::set<std::string> workloads;
  std::istringstream plan(all.out);
  for (std::string line; std::getline(plan, line);) {
    std::istringstream words(line);
    std::string number, workload;
    if (words >> number >> workload && !number.empty() && std::isdigit(static_cast<unsigned char>(number[0])) &&
        line.find(" t=") != std::string::npos)
      workloads.insert(workload);
  }
  // The one-thread programs (workloads/real) have no run at 2 threads: named and left out.
  std::smatch left_out;
  const std::regex note("note: ([^:]*) run at one thread only, and --threads leaves 1 out: left out of this sweep");
  const std::string flat_err = testing::flat(narrowed.err);
  ASSERT_TRUE(std::regex_search(flat_err, left_out, note)) << narrowed.err;
  std::istringstream names(left_out[1].str());
  int one_thread = 0;
  for (std::string name; std::getline(names, name, ',');) {
    name.erase(0, name.find_first_not_of(' '));
    EXPECT_TRUE(workloads.count(name)) << name;
    workloads.erase(name);
    ++one_thread;
  }
  EXPECT_EQ(one_thread, 8) << "lua, python, sqlite, ghostscript, z3, rocksdb, redis, redis-mixed";
  ASSERT_GE(workloads.size(), 10u) << all.out;
  EXPECT_NE(narrowed.out.find("\n" + std::to_string(workloads.size() * 4) + " runs; nothing was run"), std::string::npos)
      << workloads.size() << " workloads x glibc x 1 thread count x (1 timed + 3 profiled):\n" << narrowed.out;
  EXPECT_EQ(narrowed.out.find(" t=1 "), std::string::npos) << "--threads=2 replaces the preset's 1,2";
  BenchResult ci = bench({"--dry-run", "--preset=ci", "--alloc=glibc", "--workload=churn"});
  ASSERT_EQ(ci.exit_code, 0) << ci.err;
  EXPECT_NE(ci.out.find("churn glibc t=1 tiny rep 1\n"), std::string::npos) << ci.out;
  EXPECT_NE(ci.out.find("churn glibc t=1 tiny rep 2 profiled"), std::string::npos) << ci.out;
  EXPECT_NE(ci.out.find("churn glibc t=1 tiny rep 1 simulated\n"), std::string::npos) << ci.out;
  EXPECT_NE(ci.out.find("\n4 runs; nothing was run"), std::string::npos) << "1 timed + 2 profiled + 1 simulated\n" << ci.out;
}

// The mission's own command: --alloc and --workload narrow the default job,
// they do not switch to other defaults (1 and 2 threads, 5 timed runs, the
// default job's arguments, figures at the end). The real registry and
// nothing else in the environment.
TEST(BenchEndToEnd, TheMissionsCommandIsTheDefaultJobNarrowed) {
  testing::CommandOptions options;
  BenchResult r = testing::run_command({BENCH_BINARY, "--alloc=tcmalloc,jemalloc", "--workload=vacation", "--dry-run"},
                                       options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("vacation-low jemalloc t=2 small ml_wt rep 5\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--tm ml_wt --transactions 65536"), std::string::npos) << "the default job's arguments\n" << r.out;
  EXPECT_NE(r.out.find("\n56 runs; then, with --precision 20, more timed rounds for the groups still wider (up to --max-reps 10)"), std::string::npos)
      << "2 workloads x 2 allocators x (1 thread: 5 timed + 1 profiled; 2 threads: 5 timed + 3 profiled)\n" << r.out;
  BenchResult help = testing::run_command({BENCH_BINARY, "--help"}, options);
  EXPECT_NE(help.out.find("--threads INT:INT in [1 - 1024]=the preset's (default job: 1,2)"), std::string::npos)
      << help.out;
}

// Each verb's help ends with its own words, not the sweep's examples (summarize
// and merge showed those: "bench --alloc=tcmalloc,jemalloc --workload=vacation").
TEST(BenchEndToEnd, EachVerbsHelpEndsWithItsOwnWords) {
  const std::pair<std::vector<std::string>, std::string> verbs[] = {
      {{"summarize", "--help"}, "Exit status: 0 written, 1 summary.csv could not be written, 2 not a results folder"},
      {{"merge", "--help"}, "Exit status: 0 merged, 1 a file could not be written in full, 2 parts that do not make"},
      {{"plot", "--help"}, "Exit status: 0 drawn"},
      {{"check", "--help"}, "Exit status"},
      {{"trace", "--help"}, "bench trace"},
      {{"overhead", "--help"}, "Prints, per allocator and variant"},
      {{"slurm", "--help"}, "The scripts go to OUT/slurm/"}};
  for (const auto& [args, says] : verbs) {
    std::vector<std::string> command = {BENCH_BINARY};
    command.insert(command.end(), args.begin(), args.end());
    BenchResult help = testing::run_command(command, {});
    ASSERT_EQ(help.exit_code, 0) << args[0] << ": " << help.err;
    EXPECT_NE(testing::flat(help.out).find(says), std::string::npos) << args[0] << ":\n" << help.out;
    EXPECT_EQ(help.out.find("vacation-low and vacation-high as in the"), std::string::npos)
        << args[0] << " --help shows the sweep's examples:\n" << help.out;
  }
}

// Anyone's program runs through bench with a --workloads entry ("contract":
// false: its own arguments only): timed by its wall time, profiled by memprof,
// its own output in the log.
TEST(BenchEndToEnd, AForeignProgramRunsWithItsOwnArguments) {
  fs::path dir = scratch("foreign");
  BenchResult r = bench({"--workloads=" + std::string(FOREIGN_WORKLOADS), "--workload=python-dict", "--alloc=glibc,jemalloc",
                         "--reps=2", "--profile-reps=1", "--no-series", "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = rows_of(dir);
  ASSERT_EQ(rows.size(), 6u);
  for (auto& row : rows) {
    EXPECT_EQ(row["status"], "ok") << row["extra"];
    EXPECT_TRUE(row["elapsed_ns"].empty()) << "it reports nothing itself";
    EXPECT_FALSE(row["wall_ns"].empty());
    if (row["kind"] == "profiled") {
      EXPECT_GT(std::stoll(row["allocs_seq_count"]), 100) << "memprof counted its mallocs";
    }
    EXPECT_NE(slurp(dir / row["log"]).find("built 20000"), std::string::npos) << "its own output, in its log";
  }
  fs::remove_all(dir);
}

TEST(BenchEndToEnd, ListShowsAllocatorsAndWorkloads) {
  BenchResult r = bench({"--list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"glibc", "jemalloc", "tcmalloc", "tcmalloc-full", "mimalloc", "tbbmalloc", "churn", "test-alloc"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_NE(r.out.find("installed"), std::string::npos);
}

}  // namespace
}  // namespace allocstamp
