// real_programs_e2e_test — the `real` family end to end: Debian's programs run
// through bench on the inputs the project generates, under two allocators,
// timed and profiled, each program's output compared across allocators; a
// program whose output an allocator changes fails that run; the registry's
// program fields are checked; a one-thread program runs once per repetition;
// a program's scratch folder is gone when its run is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "results/csv.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

const char* const kPrograms[] = {"lua", "python", "sqlite", "ghostscript", "z3", "rocksdb"};
const char* const kBinaries[] = {"/usr/bin/lua5.4", "/usr/bin/python3", "/usr/bin/sqlite3",
                                 "/usr/bin/gs",      "/usr/bin/z3",      "/usr/bin/db_bench"};

testing::CommandResult bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), BENCH_BINARY);
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_NO_PLOT=1"};
  options.env.insert(options.env.end(), env.begin(), env.end());
  options.drop_prefixes = {"ALLOCSTAMP_"};
  options.timeout_seconds = 600;
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

// A key's text in a row's `extra` column (key="value";...).
std::string extra(const std::map<std::string, std::string>& row, const std::string& key) {
  std::smatch m;
  const std::string text = row.at("extra");
  if (std::regex_search(text, m, std::regex("(^|;)" + key + "=\"?([^\";]*)"))) return m[2];
  return "";
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

// Every real program at tiny under glibc and jemalloc, timed and profiled:
// every run ok, one output per program whatever the allocator or kind, memprof
// counting the program's own allocations (python's too: PYTHONMALLOC=malloc
// sends every object to the allocator), the generated inputs made once.
TEST(RealPrograms, EachRunsUnderTwoAllocatorsWithOneOutput) {
  for (const char* binary : kBinaries) SKIP_UNLESS_INSTALLED(fs::exists(binary), binary);
  testing::ScratchDir dir("real-e2e");
  testing::ScratchDir tmp("real-e2e-tmp");
  std::string workloads;
  for (const char* p : kPrograms) workloads += std::string(workloads.empty() ? "" : ",") + p;
  auto r = bench({"--workload=" + workloads, "--size=tiny", "--alloc=glibc,jemalloc", "--threads=1", "--reps=1",
                  "--profile-reps=1", "--no-series", "--out=" + (dir / "out").string()},
                 {"TMPDIR=" + tmp.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto rows = rows_of(dir / "out");
  ASSERT_EQ(rows.size(), 6u * 2 * 2) << "6 programs x 2 allocators x (1 timed + 1 profiled)";
  std::map<std::string, std::set<std::string>> digests;
  for (auto& row : rows) {
    EXPECT_EQ(row["status"], "ok") << row["workload"] << " " << row["allocator"] << ": " << row["extra"];
    EXPECT_EQ(row["threads"], "1");
    const std::string digest = extra(row, "output_digest");
    EXPECT_EQ(digest.size(), 16u) << row["workload"] << ": " << row["extra"];
    digests[row["workload"]].insert(digest);
    if (row["kind"] == "profiled") {
      // What each program allocates at tiny, at the least (python without PYTHONMALLOC=malloc makes about 4,000).
      const long long least = std::string(row["workload"]) == "python" ? 30000 : 100;
      EXPECT_GT(std::stoll(row["allocs_seq_count"]), least) << row["workload"] << " under " << row["allocator"];
      EXPECT_FALSE(row["pss_kb"].empty());
    }
  }
  for (const char* p : kPrograms) EXPECT_EQ(digests[p].size(), 1u) << p << ": one output whatever the allocator";
  EXPECT_TRUE(fs::is_empty(tmp.path())) << "rocksdb's scratch folder is removed with its run";

  // Again: the inputs are there (kept by content), nothing is made twice.
  auto again = bench({"--workload=lua,sqlite", "--size=tiny", "--alloc=glibc", "--threads=1", "--reps=1",
                      "--profile-reps=0", "--no-series", "--out=" + (dir / "again").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("making "), std::string::npos) << again.err;
  for (auto& row : rows_of(dir / "again"))
    EXPECT_TRUE(digests[row["workload"]].count(extra(row, "output_digest"))) << row["workload"];
}

// A real program's simulated run (callgrind in front): ok, its instructions
// counted, its output the same as natively.
TEST(RealPrograms, ASimulatedRunCountsTheWholeProgram) {
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/lua5.4"), "/usr/bin/lua5.4");
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/valgrind"), "valgrind");
  testing::ScratchDir dir("real-sim");
  auto r = bench({"--workload=lua", "--size=tiny", "--alloc=glibc", "--threads=1", "--reps=1", "--profile-reps=0",
                  "--simulate", "--simulate-reps=1", "--out=" + (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = rows_of(dir / "out");
  ASSERT_EQ(rows.size(), 2u);
  std::map<std::string, std::map<std::string, std::string>> by;
  for (auto& row : rows) by[row["kind"]] = row;
  ASSERT_EQ(by["simulated"]["status"], "ok") << by["simulated"]["extra"];
  EXPECT_GT(std::stoll(by["simulated"]["sim_instructions_count"]), 1000000) << "lua's start-up alone is more";
  EXPECT_EQ(extra(by["simulated"], "output_digest"), extra(by["timed"], "output_digest"));
}

// A program whose output depends on the allocator fails the runs that differ
// from the first of their cell, naming it; lines its entry says vary are left
// out, and with output_keep only what it matches counts.
TEST(RealPrograms, AnOutputTheAllocatorChangesFailsItsRun) {
  testing::ScratchDir dir("real-output");
  write(dir / "w.json", R"({"schema": 1, "workloads": [
    {"name": "says-preload", "family": "t", "binary": "/bin/sh", "contract": false, "single_thread": true,
     "check_output": true, "args": ["-c", "echo result 7; echo lib ${LD_PRELOAD##*/}"]},
    {"name": "timing-ignored", "family": "t", "binary": "/bin/sh", "contract": false, "single_thread": true,
     "check_output": true, "output_ignore": ["^lib"], "args": ["-c", "echo result 7; echo lib ${LD_PRELOAD##*/}"]},
    {"name": "kept-only", "family": "t", "binary": "/bin/sh", "contract": false, "single_thread": true,
     "check_output": true, "output_keep": "result [0-9]+", "args": ["-c", "echo result 7 lib ${LD_PRELOAD##*/}"]}]})");
  auto r = bench({"--workloads=" + (dir / "w.json").string(), "--workload=says-preload,timing-ignored,kept-only",
                  "--alloc=glibc,jemalloc", "--reps=1", "--profile-reps=0", "--out=" + (dir / "out").string()});
  EXPECT_NE(r.exit_code, 0) << "a run failed";
  std::map<std::string, std::map<std::string, std::map<std::string, std::string>>> by;
  for (auto& row : rows_of(dir / "out")) by[row["workload"]][row["allocator"]] = row;
  EXPECT_EQ(by["says-preload"]["glibc"]["status"], "ok");
  EXPECT_EQ(by["says-preload"]["jemalloc"]["status"], "failed");
  EXPECT_NE(by["says-preload"]["jemalloc"]["extra"].find("its output differs from run 1's under glibc"), std::string::npos)
      << by["says-preload"]["jemalloc"]["extra"];
  for (const char* w : {"timing-ignored", "kept-only"})
    for (const char* a : {"glibc", "jemalloc"}) EXPECT_EQ(by[w][a]["status"], "ok") << w << " " << a << by[w][a]["extra"];
}

// The program fields are checked when the registry is read: exit 2, the fix named.
TEST(RealPrograms, BadProgramEntriesAreRefused) {
  testing::ScratchDir dir("real-refused");
  const std::pair<std::string, std::string> cases[] = {
      {R"("contract": true, "package": "lua5.4")", "only a program without the contract"},
      {R"("contract": false, "env": {"MALLOC_ARENA_MAX": "1"})", "make it a variant"},
      {R"("contract": false, "env": {"LD_PRELOAD": "/x.so"})", "LD_PRELOAD"},
      {R"("contract": false, "args": ["{input}"])", "names {input} but has no \"input\""},
      {R"("contract": false, "input": {"generator": "/tmp/gen.py"})", "is not under the sources"},
      {R"("contract": false, "check_output": true, "output_ignore": ["(("])", "is not a regex"},
      {R"("contract": false, "output_keep": "x")", "says which output to compare but not to compare it"},
      {R"("contract": false, "sizes": {"huge": ["--n=1"]})", "use tiny, small, medium, large"},
  };
  for (const auto& [fields, says] : cases) {
    write(dir / "w.json", R"({"schema": 1, "workloads": [{"name": "p", "binary": "/bin/true", )" + fields + "}]}");
    auto r = bench({"--workloads=" + (dir / "w.json").string(), "--workload=p", "--alloc=glibc", "--dry-run"});
    EXPECT_EQ(r.exit_code, 2) << fields << "\n" << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << fields << "\n" << r.err;
  }
}

// A one-thread program runs once per repetition and kind, at one thread,
// whatever --threads asks of the programs that have threads.
TEST(RealPrograms, AOneThreadProgramRunsOncePerRepetition) {
  testing::ScratchDir dir("real-threads");
  write(dir / "w.json", R"({"schema": 1, "workloads": [
    {"name": "one", "family": "t", "binary": "/bin/true", "contract": false, "single_thread": true},
    {"name": "many", "family": "t", "binary": "/bin/true", "contract": false}]})");
  auto r = bench({"--workloads=" + (dir / "w.json").string(), "--workload=one,many", "--alloc=glibc",
                  "--threads=2,1", "--reps=2", "--profile-reps=0", "--out=" + (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::multiset<std::string>> threads;
  for (auto& row : rows_of(dir / "out")) threads[row["workload"]].insert(row["threads"]);
  EXPECT_EQ(threads["one"], (std::multiset<std::string>{"1", "1"}));
  EXPECT_EQ(threads["many"], (std::multiset<std::string>{"1", "1", "2", "2"}));
}

}  // namespace
}  // namespace allocstamp
