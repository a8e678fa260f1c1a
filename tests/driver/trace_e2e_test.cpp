// trace_e2e_test — `bench trace` through the real binary: a recording of a
// program that makes every kind of call (threads, fork, exec, C++ operators,
// aligned and never-freed blocks) gives the figures memprof's own record of the
// same run gives; its replay under each allocator of the registry counts as the
// recording did; a real program (Python) likewise; and a damaged trace — cut,
// a flipped bit, another version — is refused with exit status 2, never a crash.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "profiled_run.h"
#include "replay_plan.h"
#include "run_command.h"
#include "results/runs.h"
#include "trace_reader.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

// The figures memprof counts exactly and a replay must repeat: counts and
// requested bytes by region, the size histogram, the heap left at exit.
const char* const kReplayedKeys[] = {
    "allocs_seq_count",  "allocs_par_count",     "allocs_tx_count",     "frees_seq_count",     "frees_par_count",
    "frees_tx_count",    "requested_seq_bytes",  "requested_par_bytes", "requested_tx_bytes",  "reallocs_count",
    "size_le16_count",   "size_le32_count",      "size_le48_count",     "size_le64_count",     "size_le96_count",
    "size_le128_count",  "size_le256_count",     "size_le512_count",    "size_le1024_count",   "size_gt1024_count",
    "heap_requested_end_bytes", "live_blocks_end_count"};

class TraceEndToEnd : public ::testing::Test {
 protected:
  Result bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    options.env = std::move(env);
    options.timeout_seconds = 240;
    return testing::run_command(args, options);
  }

  // memprof's record of the recorded run (key=value words of its @memprof line).
  static std::map<std::string, std::string> record_of(const fs::path& trace) {
    std::map<std::string, std::string> keys;
    std::istringstream words(testing::slurp(trace.string() + ".memprof"));
    for (std::string w; words >> w;)
      if (auto eq = w.find('='); eq != std::string::npos) keys[w.substr(0, eq)] = w.substr(eq + 1);
    return keys;
  }

  // Replays `trace` under every allocator of the registry; every profiled
  // run's counts must be the recording's.
  void expect_replay_counts(const fs::path& trace) {
    fs::path out = dir_ / "replay";
    std::string allocators;
    for (const testing::TestAllocator& a : testing::test_allocators())
      allocators += (allocators.empty() ? "" : ",") + a.name;
    Result r = bench({"trace", "replay", trace.string(), "--alloc=" + allocators,
                      "--reps=1", "--profile-reps=1", "--no-series", "--out=" + out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto recorded = record_of(trace);
    // The trace's own most threads at once (memprof's live peak is a bound where threads overlap).
    std::string most_threads;
    std::istringstream figures(bench({"trace", "stats", "--record", trace.string()}).out);
    for (std::string w; figures >> w;)
      if (w.rfind("threads_peak_count=", 0) == 0) most_threads = w.substr(w.find('=') + 1);
    ASSERT_FALSE(most_threads.empty());
    RunsTable runs = load_runs(out, "replay");
    std::size_t profiled = 0;
    for (const CsvRow& row : runs.rows) {
      EXPECT_EQ(runs.text(row, "status"), "ok") << runs.text(row, "allocator");
      // Labelled as it runs: the trace's most threads at once (not 1), the default size.
      EXPECT_EQ(runs.text(row, "threads"), most_threads);
      EXPECT_EQ(runs.text(row, "size"), "small");
      if (runs.text(row, "kind") != "profiled") continue;
      ++profiled;
      for (const char* key : kReplayedKeys) {
        // A key missing on both sides must not compare equal (empty = empty).
        ASSERT_TRUE(recorded.count(key)) << key << " is not in the recording's record";
        EXPECT_FALSE(runs.text(row, key).empty()) << key << " is not in the replay's row";
        EXPECT_EQ(runs.text(row, key), recorded.at(key)) << key << " under " << runs.text(row, "allocator");
      }
    }
    EXPECT_EQ(profiled, testing::test_allocators().size()) << "one profiled replay per allocator";
  }

  // Each allocation in `trace`, as (operation, requested size, alignment),
  // counted: with `replayed_only`, the ones a replay makes (docs/trace.md: not
  // failed calls, not libitm's own blocks, region 3; _ITM_malloc is replayed
  // by malloc). Said here, not taken from the replay's own rule (replay_plan.h).
  using Allocations = std::map<std::tuple<int, uint64_t, uint32_t>, int>;
  static Allocations allocations_of(const fs::path& trace, bool replayed_only) {
    Allocations made;
    for (const trace::ThreadCalls& thread : trace::read_trace(trace.string()).threads)
      for (const trace::Call& c : thread.calls) {
        if (trace::is_release_op(c.op) || (replayed_only && (c.failed || c.region == 3))) continue;
        ++made[{c.op == trace::kTmMalloc ? int(trace::kMalloc) : int(c.op), c.size, c.align}];
      }
    return made;
  }

  // The replay itself recorded: the calls it made for `trace`.
  fs::path record_replay_of(const fs::path& trace) {
    const fs::path replayed = dir_ / ("replay-of-" + trace.filename().string());
    Result r = bench({"trace", "record", "--trace", replayed.string(), "--", REPLAY_BINARY, trace.string()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return replayed;
  }

  testing::ScratchDir scratch_{"trace-e2e"};
  const fs::path& dir_ = scratch_.path();
};

TEST_F(TraceEndToEnd, TheTraceGivesMemprofsFiguresAndItsReplayCountsAsTheRecording) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  fs::path trace = dir_ / "subject.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT, "--exec"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("of 5 thread(s)"), std::string::npos) << "main, two one-at-a-time and two side by side: " << r.out;

  // stats --record, key for key against memprof's record of the same run.
  Result stats = bench({"trace", "stats", "--record", trace.string()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  auto recorded = record_of(trace);
  std::istringstream words(stats.out);
  std::size_t compared = 0;
  for (std::string w; words >> w;) {
    auto eq = w.find('=');
    if (eq == std::string::npos) continue;
    std::string key = w.substr(0, eq);
    if (key == "program" || key == "format" || key == "source" || key.find("peak") != std::string::npos ||
        key.rfind("load_", 0) == 0 || key == "duration_ns")
      continue;  // peaks with threads alive side by side are bounds in memprof; load and duration are timed
    ASSERT_TRUE(recorded.count(key)) << key;
    EXPECT_EQ(w.substr(eq + 1), recorded[key]) << key;
    ++compared;
  }
  EXPECT_GE(compared, 38u);
  EXPECT_EQ(recorded.at("allocs_par_count"), "4500");
  EXPECT_EQ(recorded.at("reallocs_count"), "2");
  expect_replay_counts(trace);
  // ALLOCSTAMP_SIZE would only relabel the replay's cells: the default size stays.
  Result sized = bench({"trace", "replay", trace.string(), "--alloc=glibc", "--dry-run"}, {"ALLOCSTAMP_SIZE=large"});
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  EXPECT_EQ(sized.out.find("large"), std::string::npos) << sized.out;
}

// The replay makes each call as the program did: a calloc by calloc (the
// allocator zeroes it), an aligned call at its recorded alignment. memprof's
// counts cannot tell (a calloc counts as a malloc of its size, an alignment
// changes no requested byte): the replay, recorded in turn, must hold the
// recording's calls, kind, size and alignment.
TEST_F(TraceEndToEnd, AReplayMakesEachCallWithItsRecordedKindSizeAndAlignment) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path trace = dir_ / "kinds.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Allocations recorded = allocations_of(trace, true);
  std::set<int> kinds;
  std::set<uint32_t> alignments;
  for (const auto& [call, count] : recorded) kinds.insert(std::get<0>(call)), alignments.insert(std::get<2>(call));
  ASSERT_TRUE(kinds.count(trace::kCalloc) && kinds.count(trace::kPosixMemalign) && kinds.count(trace::kAlignedAlloc) &&
              kinds.count(trace::kMemalign))
      << "trace_subject calls calloc and the aligned forms";
  ASSERT_TRUE(alignments.count(64) && alignments.count(128) && alignments.count(256));
  const fs::path replayed = record_replay_of(trace);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(allocations_of(replayed, false), recorded);
}

// libitm's own blocks (region 3: its logs, its per-thread state) are the TM
// runtime's, which the replay does not run: a replay of a transactional
// program makes the program's allocations only.
TEST_F(TraceEndToEnd, ATransactionalProgramsReplayLeavesLibitmsOwnBlocksOut) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path trace = dir_ / "tm.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", std::string(TARGET_DIR) + "/tm", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::size_t libitms = 0, transactional = 0;
  for (const trace::ThreadCalls& thread : trace::read_trace(trace.string()).threads)
    for (const trace::Call& c : thread.calls) {
      libitms += c.region == 3 && !trace::is_release_op(c.op);
      transactional += c.region == 2 && !trace::is_release_op(c.op);
    }
  ASSERT_GT(libitms, 0u) << "libitm allocates for itself";
  ASSERT_EQ(transactional, 400u) << "200 rounds of a malloc and a new in a transaction";
  const fs::path replayed = record_replay_of(trace);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(allocations_of(replayed, false), allocations_of(trace, true));
  for (const trace::ThreadCalls& thread : trace::read_trace(replayed.string()).threads)
    for (const trace::Call& c : thread.calls) EXPECT_NE(c.region, 3) << "the replay runs no libitm";
}

// A user who records under an allocator of their own (LD_PRELOAD=libjemalloc.so.2
// bench trace record -- prog): memprof comes first in the preload, so it still
// sees every call (behind jemalloc it saw none, and the trace was empty).
TEST_F(TraceEndToEnd, ARecordingUnderTheUsersOwnPreloadHoldsTheProgramsCalls) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  std::string jemalloc;
  for (const testing::TestAllocator& a : testing::test_allocators())
    if (a.name == "jemalloc") jemalloc = a.library;
  SKIP_UNLESS_INSTALLED(!jemalloc.empty() && fs::exists(jemalloc), "jemalloc");
  const fs::path trace = dir_ / "preloaded.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT}, {"LD_PRELOAD=" + jemalloc});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
  EXPECT_EQ(record_of(trace).at("allocs_par_count"), "4500");
  Result stats = bench({"trace", "stats", "--record", trace.string()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("allocs_par_count=4500"), std::string::npos) << stats.out;
}

// A simulated replay counts the replay's measured phase (replay.cpp marks it;
// its workload entry says "marks_phase"), not its start-up and the mapping of
// its plan: callgrind starts with instrumentation off, as for every bench
// workload (docs/check.md). It once counted from the process's start.
TEST_F(TraceEndToEnd, ASimulatedReplayCountsItsMeasuredPhaseOnly) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/valgrind"), "valgrind");
  const fs::path trace = dir_ / "simulated.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  Result dry = bench({"trace", "replay", trace.string(), "--alloc=glibc", "--reps=0", "--profile-reps=0", "--simulate",
                      "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("--instr-atstart=no"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find("--instr-atstart=yes"), std::string::npos) << dry.out;
  // As run: /bin/true's few calls replayed are some thousands of instructions;
  // the loader and the C++ runtime's start-up alone are hundreds of thousands.
  const fs::path out = dir_ / "simulated";
  Result simulated = bench({"trace", "replay", trace.string(), "--alloc=glibc", "--reps=0", "--profile-reps=0",
                            "--simulate", "--no-plot", "--out=" + out.string()});
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  const RunsTable runs = load_runs(out, "simulated replay");
  ASSERT_EQ(runs.rows.size(), 1u);
  EXPECT_EQ(runs.text(runs.rows[0], "status"), "ok");
  const std::string instructions = runs.text(runs.rows[0], "sim_instructions_count");
  ASSERT_FALSE(instructions.empty());
  EXPECT_LT(std::stoll(instructions), 100000) << "counted from the process's start";
}

// What a recording leaves beside the trace (the trace, memprof's record) is
// ignored by git: a trace recorded in the checkout made later sweeps say
// "with uncommitted changes" (issue 58).
TEST_F(TraceEndToEnd, EveryFileARecordingLeavesIsIgnoredByGit) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path trace = dir_ / "left.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // The checkout's .gitignore in a repository of its own (the tests also run
  // in copies of the tree that are not one), each file asked as if in its root.
  const fs::path repository = dir_ / "repository";
  fs::create_directories(repository);
  ASSERT_EQ(testing::run_command({"/usr/bin/git", "init", "-q", repository.string()}).exit_code, 0);
  fs::copy_file(fs::path(SOURCE_DIR) / ".gitignore", repository / ".gitignore");
  std::size_t left = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("left.astrace", 0) != 0) continue;
    ++left;
    Result ignored = testing::run_command({"/usr/bin/git", "-C", repository.string(), "check-ignore", "-q", "--no-index", name});
    EXPECT_EQ(ignored.exit_code, 0) << name << " would show as an uncommitted change: " << ignored.err;
  }
  EXPECT_GE(left, 2u) << "the trace and memprof's record";
}

// A replay is its own sweep: a typed --preset is refused (its workloads
// replaced the replay's), ALLOCSTAMP_PRESET left out. Its workload file is
// kept beside the trace (its plan's name, its content's digest), so an
// interrupted replay is finished by bench --resume DIR --workloads FILE, and
// git ignores it. (The file was a temporary one, removed at exit: no replay
// could be resumed.)
TEST_F(TraceEndToEnd, AReplayTakesNoPresetAndCanBeResumed) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path trace = dir_ / "resume.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  Result typed = bench({"trace", "replay", trace.string(), "--preset=micro", "--alloc=glibc", "--dry-run"});
  EXPECT_EQ(typed.exit_code, 2) << typed.out;
  EXPECT_NE(testing::flat(typed.err).find("--preset does not go with bench trace replay"), std::string::npos)
      << typed.err;
  Result by_variable = bench({"trace", "replay", trace.string(), "--alloc=glibc", "--reps=1", "--no-profile", "--dry-run"},
                             {"ALLOCSTAMP_PRESET=micro"});
  ASSERT_EQ(by_variable.exit_code, 0) << by_variable.err;
  EXPECT_NE(by_variable.out.find("replay glibc"), std::string::npos) << by_variable.out;
  EXPECT_EQ(by_variable.out.find("micro"), std::string::npos) << by_variable.out;
  EXPECT_NE(by_variable.out.find("\n1 runs"), std::string::npos) << by_variable.out;
  // The replay runs the recorded threads: a thread count would label the same replay as other cells.
  Result threads = bench({"trace", "replay", trace.string(), "--alloc=glibc", "--threads=1,4", "--dry-run"});
  EXPECT_EQ(threads.exit_code, 2) << threads.out;
  EXPECT_NE(testing::flat(threads.err).find("--threads does not go with bench trace replay"), std::string::npos)
      << threads.err;
  for (const char* flag : {"--workload=churn", "--size=large"}) {
    Result other = bench({"trace", "replay", trace.string(), "--alloc=glibc", flag, "--dry-run"});
    EXPECT_EQ(other.exit_code, 2) << flag << ": " << other.out;
    EXPECT_NE(testing::flat(other.err).find("does not go with bench trace replay: the replay's one workload is the trace"),
              std::string::npos)
        << other.err;
  }

  const fs::path out = dir_ / "replayed";
  Result replayed = bench({"trace", "replay", trace.string(), "--alloc=glibc,jemalloc", "--reps=1", "--no-profile",
                           "--no-plot", "--out=" + out.string()});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const nlohmann::json meta = nlohmann::json::parse(testing::slurp(out / "meta.json"));
  const std::vector<std::string> files = meta.at("options").at("workloads_file").get<std::vector<std::string>>();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files[0]).parent_path(), dir_) << "beside the trace";
  ASSERT_TRUE(fs::exists(files[0])) << "kept for --resume";
  {
    // The last run lost, as an interrupted sweep leaves it.
    std::string text = testing::slurp(out / "runs.csv");
    std::ofstream(out / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  Result resumed = bench({"--resume", out.string(), "--workloads", files[0]});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(testing::flat(resumed.err).find("1 of 2 runs left"), std::string::npos) << resumed.err;
  EXPECT_EQ(load_runs(out, "replay").rows.size(), 2u);
  const fs::path repository = dir_ / "repository";
  fs::create_directories(repository);
  ASSERT_EQ(testing::run_command({"/usr/bin/git", "init", "-q", repository.string()}).exit_code, 0);
  fs::copy_file(fs::path(SOURCE_DIR) / ".gitignore", repository / ".gitignore");
  Result ignored = testing::run_command(
      {"/usr/bin/git", "-C", repository.string(), "check-ignore", "-q", "--no-index", fs::path(files[0]).filename().string()});
  EXPECT_EQ(ignored.exit_code, 0) << files[0] << " would show as an uncommitted change";
  // The plan is named by its content and written as a fresh file: a link
  // planted at its name is replaced, not written through.
  const nlohmann::json listing = nlohmann::json::parse(testing::slurp(files[0]));
  const fs::path plan = listing.at("workloads").at(0).at("args").at(0).get<std::string>();
  ASSERT_TRUE(fs::is_regular_file(plan)) << plan;
  EXPECT_EQ(plan.parent_path(), dir_);
  EXPECT_EQ(plan.filename().string().rfind("resume.astrace.plan.", 0), 0u) << plan;
  const std::string plan_bytes = testing::slurp(plan);
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "mine";
  fs::remove(plan);
  fs::create_symlink(victim, plan);
  ASSERT_EQ(bench({"trace", "replay", trace.string(), "--alloc=glibc", "--reps=1", "--no-profile", "--dry-run"}).exit_code, 0);
  EXPECT_EQ(testing::slurp(victim), "mine") << "the plan was written through a link";
  EXPECT_FALSE(fs::is_symlink(plan));
  EXPECT_EQ(testing::slurp(plan), plan_bytes);
  // Another program recorded to the same path has its own plan: a resume of
  // the first replay still replays the first trace (one plan per trace path
  // once made it replay the newer one, its counts mixed into the folder).
  const RunsTable before = load_runs(out, "replay");
  const std::string last_args = before.text(before.rows.back(), "args");
  ASSERT_NE(last_args.find(plan.string()), std::string::npos) << last_args;
  ASSERT_EQ(bench({"trace", "record", "--trace", trace.string(), "--", "/bin/sh", "-c", "true"}).exit_code, 0);
  ASSERT_EQ(bench({"trace", "replay", trace.string(), "--alloc=glibc", "--reps=1", "--no-profile", "--dry-run"}).exit_code, 0);
  EXPECT_EQ(testing::slurp(plan), plan_bytes) << "the first trace's plan is left as it was";
  {
    std::string text = testing::slurp(out / "runs.csv");
    std::ofstream(out / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  Result again = bench({"--resume", out.string(), "--workloads", files[0]});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const RunsTable after = load_runs(out, "replay");
  EXPECT_EQ(after.text(after.rows.back(), "args"), last_args) << "the first trace's plan, replayed again";
}

TEST_F(TraceEndToEnd, APythonProgramUnderGlibcReplaysUnderEveryAllocator) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/python3"), "/usr/bin/python3");
  fs::path trace = dir_ / "python.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", "/usr/bin/python3", "-c",
                    "d = {i: str(i) for i in range(20000)}; print(len(d))"},
                   {"PYTHONMALLOC=malloc"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("trace: all 46 figures"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("differ"), std::string::npos) << r.out;
  expect_replay_counts(trace);
}

// A shell leaves through _exit (dash does): memprof writes its record and
// ends its trace first (issue 46), so the recording is whole and agrees.
// Whether a process whose command line starts with `word` still runs (bench's
// own, which holds the script, does not count).
bool running_with(const std::string& word) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = testing::slurp(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    std::string stat = testing::slurp(entry.path() / "stat");
    const std::size_t paren = stat.rfind(')');
    if (paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z') continue;  // ended, unreaped
    if (cmdline.rfind(word, 0) == 0) return true;
  }
  return false;
}

// bench trace record stopped by SIGTERM passes it on to the program and
// leaves nothing of it running: a shell's background job (once left under
// init, the shell's PDEATHSIG reaching only the shell) is killed with it.
TEST_F(TraceEndToEnd, ARecordingStoppedLeavesNothingRunning) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const std::string tag = std::to_string(90 + ::getpid() % 9) + "." + std::to_string(::getpid());
  const pid_t bench = fork();
  if (bench == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    const std::string trace = (dir_ / "stopped.astrace").string(), script = "sleep " + tag + " & sleep 95; echo x";
    execl(BENCH_BINARY, BENCH_BINARY, "trace", "record", "--trace", trace.c_str(), "--", "/bin/sh", "-c", script.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(bench, 0);
  for (int i = 0; i < 500 && !running_with("sleep " + tag); ++i) usleep(10000);
  ASSERT_TRUE(running_with("sleep " + tag)) << "the background job started";
  kill(bench, SIGTERM);
  int status = 0;
  for (int i = 0; i < 1000 && waitpid(bench, &status, WNOHANG) == 0; ++i) usleep(10000);
  if (waitpid(bench, &status, WNOHANG) == 0) {
    kill(bench, SIGKILL);
    waitpid(bench, &status, 0);
    ADD_FAILURE() << "bench did not end within 10 s of SIGTERM";
  }
  const bool left = running_with("sleep " + tag);
  if (left) std::system(("pkill -f 'sleep " + tag + "'").c_str());
  EXPECT_FALSE(left) << "the shell's background job outlived the recording";
}

TEST_F(TraceEndToEnd, AShellThatLeavesThroughExitIsRecorded) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  Result r = bench({"trace", "record", "--trace", (dir_ / "sh.astrace").string(), "--", "/bin/sh", "-c",
                    "/bin/true; /bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
}

// A program that fails is recorded as far as it ran, and its failure is
// bench's exit status (it was 0, a note in the middle of the output the only
// sign); one that ends well exits 0 (above).
TEST_F(TraceEndToEnd, AProgramThatFailsIsRecordedAndItsFailureIsTheExitStatus) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path trace = dir_ / "fails.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", "/bin/sh", "-c", "/bin/true; exit 3"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(fs::is_regular_file(trace)) << "the trace of what it did";
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trace: /bin/sh ended with exit status 3: the trace holds its calls until then; exit status 1"),
            std::string::npos) << r.out;
}

// Execs that fail while two other threads allocate (issue 46, N3): the exec
// ends the trace with a trailer, takes it back when it fails, and the other
// threads' events wait meanwhile; the trace stays whole and agrees, every time
// (before the fix: damaged or short in 4 runs of 4).
TEST_F(TraceEndToEnd, FailedExecsWhileThreadsAllocateLeaveTheTraceWhole) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  for (int run = 0; run < 5; ++run) {
    const fs::path trace = dir_ / ("failed-execs-" + std::to_string(run) + ".astrace");
    Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT, "--failed-execs", "300"});
    ASSERT_EQ(r.exit_code, 0) << "run " << run << ":\n" << r.out << r.err;
    EXPECT_NE(r.out.find("trace_subject: 300 failed execs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("of 3 thread(s)"), std::string::npos) << r.out;
  }
}

// A program that allocates nothing (memprof's first call is its exit), and one
// that execs before its first allocation: the trace ends, whole and equal to
// memprof's record. Both hung at 100% CPU after the N3 fix (the thread was
// attached while the registry was locked), found by the attack's re-run.
TEST_F(TraceEndToEnd, AProgramThatAllocatesNothingEndsAndAgrees) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const std::vector<std::vector<std::string>> programs = {{"/bin/true"}, {"/bin/sh", "-c", "exec /bin/true"}};
  int checked = 0;
  for (const auto& program : programs) {
    std::vector<std::string> args = {BENCH_BINARY, "trace", "record", "--trace",
                                     (dir_ / ("nothing-" + std::to_string(checked) + ".astrace")).string(), "--"};
    args.insert(args.end(), program.begin(), program.end());
    testing::CommandOptions options;
    options.timeout_seconds = 20;  // well under a second when it works
    const Result r = testing::run_command(args, options);
    ASSERT_FALSE(r.timed_out) << program.back() << ": hung";
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("trace: all 46 figures equal memprof's"), std::string::npos) << r.out;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// The trace is written as a fresh file renamed into place: a link at its
// path is replaced, never written through (it once overwrote the file the
// link pointed to). A path that cannot take the trace is refused before the
// program runs; a folder given as a trace is refused by every verb (exit 2).
TEST_F(TraceEndToEnd, TheTraceNeverGoesThroughALinkOrIntoAFolder) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path victim = dir_ / "precious.txt", link = dir_ / "link.astrace";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, link);
  Result linked = bench({"trace", "record", "--trace", link.string(), "--", "/bin/true"});
  EXPECT_EQ(linked.exit_code, 0) << linked.out << linked.err;
  EXPECT_EQ(testing::slurp(victim.string()), "precious\n") << "written through the link";
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_regular_file(link));
  EXPECT_EQ(bench({"trace", "stats", link.string()}).exit_code, 0) << "the trace is whole";
  const fs::path marker = dir_ / "ran";
  const fs::path folder = dir_ / "a-folder";
  fs::create_directories(folder);
  for (const auto& [trace, says] :
       {std::pair<std::string, std::string>{folder.string(), " is a folder"},
        {(dir_ / "nowhere" / "t.astrace").string(), " does not exist"}}) {
    Result r = bench({"trace", "record", "--trace", trace, "--", "/usr/bin/touch", marker.string()});
    EXPECT_EQ(r.exit_code, 2) << trace << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(marker)) << trace << ": the program ran before its trace path was refused";
  }
  for (const char* verb : {"stats", "replay"}) {
    Result r = bench({"trace", verb, folder.string(), "--dry-run"});
    if (std::string(verb) == "stats") r = bench({"trace", verb, folder.string()});
    EXPECT_EQ(r.exit_code, 2) << verb << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("is not a file"), std::string::npos) << verb << ": " << r.err;
  }
}

// bench killed while it records (a test that gave up on a hang, a closed
// terminal): the recorded program goes with it. (A planted hang in memprof
// once left a /bin/true spinning on a core for the rest of a CI run.)
TEST_F(TraceEndToEnd, TheRecordedProgramDiesWithBench) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const std::string trace = (dir_ / "killed.astrace").string();
  const pid_t bench_pid = fork();
  if (bench_pid == 0) {
    execl(BENCH_BINARY, BENCH_BINARY, "trace", "record", "--trace", trace.c_str(), "--", "/bin/sleep", "30",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(bench_pid, 0);
  pid_t sleeper = 0;
  for (int i = 0; i < 400 && !sleeper; ++i) {
    usleep(50000);
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "stat");
      std::string stat;
      std::getline(in, stat);
      const auto close_paren = stat.rfind(')');
      if (close_paren == std::string::npos || stat.find("(sleep)") == std::string::npos) continue;
      std::istringstream rest(stat.substr(close_paren + 1));
      std::string state;
      long parent = 0;
      if (rest >> state >> parent && parent == bench_pid) sleeper = pid_t(std::stol(name));
    }
  }
  kill(bench_pid, SIGKILL);
  waitpid(bench_pid, nullptr, 0);
  ASSERT_GT(sleeper, 0) << "bench trace record never started the program";
  const bool ended = testing::ends_within(sleeper, 5);
  EXPECT_TRUE(ended) << "the recorded program outlived bench";
  if (!ended) kill(sleeper, SIGKILL);
}

// execveat(2) is followed like execve (issue 46, N1): the trace is the
// program it became, whole, and agrees with memprof.
TEST_F(TraceEndToEnd, AnExecveatIsFollowed) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  Result r = bench({"trace", "record", "--trace", (dir_ / "execveat.astrace").string(), "--", TRACE_SUBJECT,
                    "--execveat", "/usr/bin/python3", "-c", "d = {i: str(i) for i in range(2000)}"},
                   {"PYTHONMALLOC=malloc"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("traced /usr/bin/python3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ran by exec"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
}

// A program that gives its child another environment (env -i: no LD_PRELOAD)
// passes it unchanged (issue 46, N2): the child sees no memprof variable and is
// not traced; trace record says why it has no record.
TEST_F(TraceEndToEnd, AnEnvironmentWithoutThePreloadPassesUnchanged) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  Result r = bench({"trace", "record", "--trace", (dir_ / "envi.astrace").string(), "--", "/usr/bin/env", "-i",
                    "/usr/bin/env"});
  EXPECT_EQ(r.out.find("MEMPROF_"), std::string::npos) << "the child's environment was changed: " << r.out;
  EXPECT_EQ(r.out.find("LD_PRELOAD"), std::string::npos) << r.out;
  EXPECT_NE(testing::flat(r.err).find("exec'd a program without memprof"), std::string::npos) << r.err;
}

// A wrapper that changes directory before it execs (issue 46, N4), given a
// relative trace path: the trace goes where bench was run, not into the
// wrapper's directory, and the recording agrees with memprof.
TEST_F(TraceEndToEnd, ARelativeTracePathHoldsWhenTheWrapperChangesDirectory) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  fs::create_directories(dir_ / "sub");
  const fs::path wrapper = dir_ / "cd-wrapper.sh";
  std::ofstream(wrapper) << "#!/bin/sh\ncd sub && exec \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  testing::CommandOptions options;
  options.timeout_seconds = 240;
  Result r = testing::run_command({"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir_.string(), BENCH_BINARY, "trace",
                                   "record", "--trace", "rel.astrace", "--", wrapper.string(), TRACE_SUBJECT},
                                  options);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "rel.astrace")) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "sub" / "rel.astrace.raw")) << "memprof wrote into the wrapper's directory";
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
}

// A wrapper that execs the program (a pyenv shim, env, nice, a launch script):
// the trace is the program's, its figures memprof's record of it, and the
// output says which program was traced. MEMPROF_TRACE=path alone does the same.
TEST_F(TraceEndToEnd, ARecordingThroughAnExecWrapperTracesTheProgramItRuns) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path wrapper = dir_ / "wrapper.sh";
  std::ofstream(wrapper) << "#!/bin/sh\n# a launch script: sets up, then becomes the program\nexec \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  const fs::path trace = dir_ / "wrapped.astrace";
  Result r = bench({"trace", "record", "--trace", trace.string(), "--", wrapper.string(), TRACE_SUBJECT, "--exec"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("figures agree with memprof's"), std::string::npos) << r.out;
  EXPECT_NE(testing::flat(r.out).find("which " + wrapper.string() + " ran by exec"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("of 5 thread(s)"), std::string::npos) << "the subject's threads, not the shell's: " << r.out;
  Result stats = bench({"trace", "stats", trace.string()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(testing::flat(stats.out).find(std::string(TRACE_SUBJECT) + " (pid"), std::string::npos) << stats.out;
  // In a person's units (counts with their thousands separated, bytes in
  // KiB or MiB), the figures that are 0 (every tx_* one here) counted, not shown.
  EXPECT_NE(stats.out.find("4,500\n"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("iB\n"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find("tx_"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("are 0 and not shown"), std::string::npos) << stats.out;
  // env execs by execvp (the shell above by execve): the same.
  Result by_env = bench({"trace", "record", "--trace", (dir_ / "env.astrace").string(), "--", "/usr/bin/env", TRACE_SUBJECT});
  ASSERT_EQ(by_env.exit_code, 0) << by_env.out << by_env.err;
  EXPECT_NE(by_env.out.find("which /usr/bin/env ran by exec"), std::string::npos) << by_env.out;

  // memprof alone, as a user runs it: the same trace of the same program.
  const fs::path direct = dir_ / "direct.astrace";
  testing::CommandOptions options;
  options.env = {"LD_PRELOAD=" + std::string(MEMPROF_LIBRARY), "MEMPROF_TRACE=" + direct.string(),
                 "MEMPROF_OUT=" + (dir_ / "direct.memprof").string()};
  Result run = testing::run_command({wrapper.string(), TRACE_SUBJECT}, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result direct_stats = bench({"trace", "stats", "--record", direct.string()});
  ASSERT_EQ(direct_stats.exit_code, 0) << direct_stats.err;
  EXPECT_NE(direct_stats.out.find("allocs_par_count=4500"), std::string::npos) << direct_stats.out;
}

// The comparison covers every figure the trace computes: the load within the
// slack memprof states, within 1% with no slack; the duration exactly.
TEST_F(TraceEndToEnd, TheComparisonCoversEveryFigureWithItsBound) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  for (const char* slack : {"65536", "0"}) {
    const fs::path trace = dir_ / (std::string("slack-") + slack + ".astrace");
    Result r = bench({"trace", "record", "--trace", trace.string(), "--", TRACE_SUBJECT},
                     {std::string("MEMPROF_PEAK_SLACK=") + slack});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* figure : {"load_avg_bytes", "load_total_byte_ns", "duration_ns", "threads_peak_count"})
      EXPECT_NE(r.out.find(std::string("  ") + figure + " "), std::string::npos) << figure << " not compared: " << r.out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string key;
      double mine = 0, traced = 0;
      if (!(words >> key >> mine >> traced)) continue;
      if (key == "duration_ns") {
        EXPECT_EQ(mine, traced) << line;
      }
      if (key == "load_avg_bytes") {
        EXPECT_LE(std::abs(mine - traced), std::string(slack) == "0" ? 0.01 * mine + 1 : 5 * 65536.0) << line;
      }
    }
  }
}

TEST_F(TraceEndToEnd, ADamagedTraceIsRefusedWithExitStatus2) {
  fs::path raw = dir_ / "raw.astrace";
  Result r = bench({"trace", "record", "--raw", "--trace", raw.string(), "--", TRACE_SUBJECT});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string bytes = testing::slurp(raw);
  ASSERT_GT(bytes.size(), 4096u);
  auto write = [&](const std::string& name, const std::string& content) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  };
  std::string flipped_magic = bytes, new_version = bytes, flipped_event = bytes;
  flipped_magic[3] ^= 0x10;
  new_version[8] = 99;
  flipped_event[296 + 16 + 3] ^= 0x01;  // the first chunk's first event
  // The first chunk's header (trace_format.h TraceChunk: magic, thread, count,
  // checksum of the events only): a thread index past 2^20, a count past a chunk's.
  auto with_word = [&](std::size_t at, uint32_t value) {
    std::string edited = bytes;
    std::memcpy(edited.data() + at, &value, sizeof value);
    return edited;
  };
  const std::string far_thread = with_word(296 + 4, 2000000), long_chunk = with_word(296 + 8, 5000);
  const std::pair<std::string, std::string> cases[] = {
      {write("cut.astrace", bytes.substr(0, bytes.size() - 1000)), "is truncated"},
      {write("magic.astrace", flipped_magic), "is not an allocation trace"},
      {write("version.astrace", new_version), "format version 99"},
      {write("event.astrace", flipped_event), "checksum does not match"},
      {write("thread.astrace", far_thread), "names thread 2000000"},
      {write("count.astrace", long_chunk), "(a chunk of 5000 events)"},
      {write("empty.astrace", ""), "shorter than its header"},
      {write("zstd-cut.astrace", std::string("\x28\xb5\x2f\xfd\x04\x58", 6)), "is truncated"},
      {(dir_ / "absent.astrace").string(), "cannot be read"},
  };
  for (const auto& [file, says] : cases) {
    Result stats = bench({"trace", "stats", file});
    EXPECT_EQ(stats.exit_code, 2) << file << ": " << stats.err;
    EXPECT_NE(testing::flat(stats.err).find(says), std::string::npos) << file << ": " << stats.err;
    EXPECT_EQ(testing::flat(stats.err).find("bug"), std::string::npos) << stats.err;
  }
  // A replay checks the trace before anything runs.
  fs::path out = dir_ / "never";
  Result replay = bench({"trace", "replay", (dir_ / "cut.astrace").string(), "--alloc=glibc", "--out=" + out.string()});
  EXPECT_EQ(replay.exit_code, 2) << replay.err;
  EXPECT_FALSE(fs::exists(out));
  // A replay that fails after its workload listing is written (an unknown
  // allocator) leaves no listing behind in the temporary folder.
  const fs::path tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  Result unknown = bench({"trace", "replay", raw.string(), "--alloc=no-such-allocator", "--out=" + (dir_ / "x").string()},
                         {"TMPDIR=" + tmp.string()});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_TRUE(fs::is_empty(tmp)) << "a listing was left in " << tmp;
  // An --out that is a link to itself: exit 2, not "a bug in bench".
  const fs::path loop = dir_ / "loop";
  fs::create_symlink("loop", loop);
  Result looped = bench({"trace", "replay", raw.string(), "--alloc=glibc", "--out=" + loop.string()});
  EXPECT_EQ(looped.exit_code, 2) << looped.err;
  EXPECT_EQ(testing::flat(looped.err).find("bug"), std::string::npos) << looped.err;
  // A program that cannot start, recorded --raw over an earlier trace: exit 2
  // with its error, the earlier trace not taken for this recording's.
  const fs::path stale = dir_ / "stale.astrace";
  fs::copy_file(raw, stale);
  Result absent = bench({"trace", "record", "--raw", "--trace", stale.string(), "--", (dir_ / "no-such-program").string()});
  EXPECT_EQ(absent.exit_code, 2) << absent.out << absent.err;
  EXPECT_NE(testing::flat(absent.err).find("cannot run"), std::string::npos) << absent.err;
  // The replay program itself refuses it too.
  Result direct = testing::run_command({REPLAY_BINARY, (dir_ / "version.astrace").string()});
  EXPECT_EQ(direct.exit_code, 2) << direct.err;
  EXPECT_NE(testing::flat(direct.err).find("format version 99"), std::string::npos) << direct.err;
}

}  // namespace
}  // namespace allocstamp
