// cluster_e2e_test — sharded sweeps: parts merged by `bench merge` equal a
// one-machine run in every deterministic column; merge refuses parts of other
// plans, overlapping parts, folders that are not parts and parts that ran other
// allocator versions, tunings, workload arguments or allocator settings (exit
// 2, saying which); a missing part is resumable; and a
// real one-node Slurm (scripts/local-slurm) runs `bench slurm --submit` as a
// 3-task array whose merge job writes the folder. Without root or Slurm's
// daemons, that last test is skipped with the reason.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "results/csv.h"
#include "results/meta.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

class Cluster : public ::testing::Test {
 protected:
  Result bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    // The test workloads, one thread and no figures unless a test says otherwise
    // (the default job these flags narrow runs 1 and 2 threads and draws figures).
    options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
    options.env.insert(options.env.end(), env.begin(), env.end());
    options.timeout_seconds = 300;
    return testing::run_command(args, options);
  }

  // The matrix every test splits: two workloads x two allocators x 1 and 2 threads.
  std::vector<std::string> matrix(const std::string& out, const std::string& shard = "") {
    std::vector<std::string> a = {"--workload=test-alloc,churn", "--alloc=glibc,jemalloc", "--size=tiny",
                                  "--threads=1,2", "--reps=1", "--no-series", "--out=" + out};
    if (!shard.empty()) a.push_back("--shard=" + shard);
    return a;
  }

  testing::ScratchDir scratch_{"cluster-e2e"};
  const fs::path& dir_ = scratch_.path();
};

TEST_F(Cluster, MergedPartsEqualOneMachineAndBadPartsAreRefused) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  for (int k = 1; k <= 3; ++k) {
    // Not "p" + std::to_string(k): GCC 12 warns a false -Wrestrict there.
    const std::string part = std::string("p").append(std::to_string(k));
    Result r = bench(matrix((dir_ / part).string(), std::to_string(k).append("/3")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  Result one = bench(matrix((dir_ / "one").string()));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string p1 = (dir_ / "p1").string(), p2 = (dir_ / "p2").string(), p3 = (dir_ / "p3").string();

  {
    // Part 2 measured on a busy machine (planted: this one may be quiet).
    Meta m = read_meta(p2);
    m.doc["machine_warnings"].push_back("planted: the machine is busy");
    m.doc["busy_runs"] = m.busy_runs().busy + 5;
    m.doc["runs_with_machine_state"] = m.busy_runs().of + 5;
    // ... and interrupted once (planted: the merged folder says so).
    m.doc["interrupted"] = true;
    std::ofstream(fs::path(p2) / "meta.json", std::ios::trunc) << m.doc.dump(2);
  }
  Result merged = bench({"merge", (dir_ / "merged").string(), p1, p2, p3});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("merged 3 of 3 part(s)"), std::string::npos) << merged.out;
  const std::size_t planned = read_meta(p1).doc.at("plan").size();
  EXPECT_NE(merged.out.find(": " + std::to_string(planned) + " of " + std::to_string(planned) + " planned runs from"),
            std::string::npos)
      << merged.out;
  EXPECT_EQ(read_meta(dir_ / "merged").doc.value("interrupted", false), true) << "part 2 was interrupted";
  Result check = bench({"check", "--baseline", (dir_ / "one").string(), "--current", (dir_ / "merged").string(),
                        "--deterministic-only", "--fail-on-missing"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_TRUE(fs::exists(dir_ / "merged" / "summary.csv"));
  // The machine's state is every part's: busy runs summed, warnings named by part.
  int busy = 0, measured = 0;
  std::size_t warnings = 0;
  for (const std::string& part : {p1, p2, p3}) {
    const Meta m = read_meta(part);
    busy += m.busy_runs().busy;
    measured += m.busy_runs().of;
    warnings += m.machine_warnings().size();
  }
  const Meta merged_meta = read_meta(dir_ / "merged");
  EXPECT_EQ(merged_meta.busy_runs().busy, busy);
  EXPECT_EQ(merged_meta.busy_runs().of, measured);
  EXPECT_EQ(merged_meta.machine_warnings().size(), warnings);
  for (const std::string& w : merged_meta.machine_warnings()) EXPECT_EQ(w.rfind("part ", 0), 0u) << w;
  const auto all = merged_meta.machine_warnings();
  EXPECT_NE(std::find(all.begin(), all.end(), "part 2/3: planted: the machine is busy"), all.end());

  // Bad inputs, each exit 2 with what is wrong.
  std::vector<std::string> other_args = {"--workload=test-alloc,churn", "--alloc=glibc", "--size=tiny", "--threads=1,2",
                                         "--reps=1", "--no-series", "--shard=2/3", "--out=" + (dir_ / "other").string()};
  ASSERT_EQ(bench(other_args).exit_code, 0);
  // The same plan with another seed: other numbers, not a part of this sweep.
  std::vector<std::string> seeded = matrix((dir_ / "p2-seed").string(), "2/3");
  seeded.push_back("--seed=7");
  ASSERT_EQ(bench(seeded).exit_code, 0);
  fs::copy(dir_ / "p2", dir_ / "p2-versions", fs::copy_options::recursive);
  {
    nlohmann::json meta = nlohmann::json::parse(std::ifstream(dir_ / "p2-versions" / "meta.json"));
    meta["allocators"][0]["version"] = "0.0-other";
    std::ofstream(dir_ / "p2-versions" / "meta.json") << meta.dump(2);
  }
  // Part 2 made from a shell with an allocator tuning the others lacked.
  fs::copy(dir_ / "p2", dir_ / "p2-tuned", fs::copy_options::recursive);
  {
    nlohmann::json meta = nlohmann::json::parse(std::ifstream(dir_ / "p2-tuned" / "meta.json"));
    meta["inherited_environment"] = {"MALLOC_CONF=narenas:1"};
    std::ofstream(dir_ / "p2-tuned" / "meta.json") << meta.dump(2);
  }
  // Part 2 made from edited workload and registry files: the same plan, other
  // arguments or allocator settings in its rows.
  auto edited_part = [&](const std::string& name, const std::string& pattern, const std::string& replacement) {
    fs::copy(dir_ / "p2", dir_ / name, fs::copy_options::recursive);
    std::ifstream in(dir_ / name / "runs.csv");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string edited = std::regex_replace(text, std::regex(pattern), replacement);
    EXPECT_NE(edited, text) << name;
    std::ofstream(dir_ / name / "runs.csv", std::ios::trunc) << edited;
    return (dir_ / name).string();
  };
  const std::string p2_args = edited_part("p2-args", "--size tiny", "--size tiny --planted 9");
  const std::string p2_env = edited_part("p2-env", ",jemalloc,([^,]*),,", ",jemalloc,$1,MALLOC_CONF=narenas:1,");
  const std::pair<std::vector<std::string>, std::string> refused[] = {
      {{p1, p2_args, p3}, "'s arguments as '"},
      {{p1, p2_env, p3}, p2_env + " ran jemalloc's settings as 'MALLOC_CONF=narenas:1', "},
      {{p1, (dir_ / "p2-tuned").string(), "--allow-mixed-hosts"},
       (dir_ / "p2-tuned").string() + " ran with the allocator tunings MALLOC_CONF=narenas:1 in bench's environment, " +
           p1 + " with none: its runs were made under another setup"},
      {{p1, p1}, "overlapping parts"},
      {{p1, (dir_ / "other").string()}, "ran another plan"},
      {{p1, (dir_ / "one").string()}, "is not the folder of one shard"},
      {{p1, (dir_ / "p2-versions").string()}, "other allocator versions"},
      {{p1, (dir_ / "p2-seed").string()}, "ran with other options than " + p1 + " (seed)"},
  };
  int n = 0;
  for (const auto& [parts, says] : refused) {
    std::vector<std::string> args = {"merge", (dir_ / ("bad" + std::to_string(++n))).string()};
    args.insert(args.end(), parts.begin(), parts.end());
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
  }
  Result mixed = bench({"merge", (dir_ / "mixed").string(), p1, (dir_ / "p2-versions").string(), "--allow-mixed-hosts"});
  EXPECT_EQ(mixed.exit_code, 0) << mixed.err;
  // A part made with --no-plot and one without: whether a sweep draws its
  // figures is no part of what it measured (nor of meta.json's seal).
  fs::copy(dir_ / "p2", dir_ / "p2-plot", fs::copy_options::recursive);
  {
    nlohmann::json meta = nlohmann::json::parse(std::ifstream(dir_ / "p2-plot" / "meta.json"));
    meta["options"]["no_plot"] = !meta["options"].value("no_plot", false);
    std::ofstream(dir_ / "p2-plot" / "meta.json", std::ios::trunc) << meta.dump(2);
  }
  Result plotted = bench({"merge", (dir_ / "plotted").string(), p1, (dir_ / "p2-plot").string(), p3});
  EXPECT_EQ(plotted.exit_code, 0) << plotted.err;
  // A merged folder or scripts where nothing can be written: said, exit 2
  // (a raw "filesystem error" before).
  Result nowhere = bench({"merge", "/proc/allocstamp-merge-test/out", p1, p2, p3});
  EXPECT_EQ(nowhere.exit_code, 2) << nowhere.err;
  EXPECT_NE(testing::flat(nowhere.err).find("cannot create /proc/allocstamp-merge-test"), std::string::npos) << nowhere.err;
  std::vector<std::string> scripts = matrix("/proc/allocstamp-slurm-test");
  scripts.insert(scripts.begin(), {"slurm", "--shards", "2"});
  Result unwritable = bench(scripts);
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.err;
  EXPECT_NE(testing::flat(unwritable.err).find("cannot create /proc/allocstamp-slurm-test/slurm"), std::string::npos)
      << unwritable.err;

  // A missing part: its runs are missing, and --resume makes them.
  Result partial = bench({"merge", (dir_ / "partial").string(), p1, p3});
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.out.find("bench --resume"), std::string::npos) << partial.out;
  EXPECT_NE(partial.out.find("missing: "), std::string::npos) << partial.out;
  EXPECT_NE(partial.out.find(" planned run(s)"), std::string::npos) << partial.out;
  Result resumed = bench({"--resume", (dir_ / "partial").string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  Result whole = bench({"check", "--baseline", (dir_ / "one").string(), "--current", (dir_ / "partial").string(),
                        "--deterministic-only", "--fail-on-missing"});
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
}

// More parts than cell groups (issue 46, N13): a part would be an empty sweep
// that merge cannot take; every part is refused with the count to use.
TEST_F(Cluster, MorePartsThanCellGroupsAreRefused) {
  Result r = bench(matrix((dir_ / "p").string(), "1/5"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(testing::flat(r.err).find("--shard 1/5: the sweep has 4 cell group(s) (workload, size, TM method, threads), fewer than its "
                       "5 parts — cut it into 4 part(s) or fewer"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "p" / "runs.csv"));
  // bench slurm makes the plan its tasks will cut, and refuses the same when it
  // writes the scripts (the attack's re-run: it wrote --array=1-5, and every task
  // would have failed after queueing).
  std::vector<std::string> slurm = matrix((dir_ / "s").string());
  slurm.insert(slurm.begin(), {"slurm", "--shards", "5"});
  Result s = bench(slurm);
  EXPECT_EQ(s.exit_code, 2) << s.out << s.err;
  EXPECT_NE(testing::flat(s.err).find("the sweep has 4 cell group(s)"), std::string::npos) << s.err;
  EXPECT_FALSE(fs::exists(dir_ / "s" / "slurm")) << "no script written";
  slurm[2] = "4";
  Result fits = bench(slurm);
  EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;
  EXPECT_NE(testing::slurp(dir_ / "s" / "slurm" / "array.sbatch").find("#SBATCH --array=1-4\n"), std::string::npos);
}

// A merged sharded sweep keeps the parts' micro-benchmarks: micro.csv holds
// every part's rows, and bench check compares them (without it no
// ns_per_op row was ever made, and the gate passed their regressions unseen).
TEST_F(Cluster, MergedPartsKeepTheirMicroBenchmarks) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  std::size_t rows = 0;
  CsvRow header;
  for (int k = 1; k <= 2; ++k) {
    const std::string part = std::string("m").append(std::to_string(k));
    Result r = bench({"--workload=micro-batch,test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1", "--reps=2",
                      "--no-profile", "--no-series", "--out=" + (dir_ / part).string(),
                      "--shard=" + std::to_string(k) + "/2"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    if (fs::exists(dir_ / part / "micro.csv")) rows += read_csv(dir_ / part / "micro.csv", &header).size();
  }
  ASSERT_GT(rows, 0u) << "micro-batch's part wrote its benchmarks";
  Result merged = bench({"merge", (dir_ / "merged").string(), (dir_ / "m1").string(), (dir_ / "m2").string()});
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  ASSERT_TRUE(fs::exists(dir_ / "merged" / "micro.csv"));
  EXPECT_EQ(read_csv(dir_ / "merged" / "micro.csv", &header).size(), rows);
  Result check = bench({"check", (dir_ / "merged").string(), (dir_ / "merged").string(), "--all"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ns_per_op:batch_in_order/64"), std::string::npos) << check.out;
}

// The scripts run the sweep bench slurm checked: the ALLOCSTAMP_* variables
// it ran with are exported in them (the workloads file named absolutely, a
// name no shell takes left out), and the merge job draws figures only when
// the sweep would (not with --no-plot), as it would (--per-comparison).
// (They held no variable, and the merge job always ran bench plot.)
TEST_F(Cluster, TheScriptsCarryTheSweepsVariablesAndFigures) {
  std::vector<std::string> args = matrix((dir_ / "v").string());
  args.insert(args.begin(), {"slurm", "--shards", "2", "--per-comparison"});
  Result drawn = bench(args, {"ALLOCSTAMP_REPS=7", "ALLOCSTAMP_X;touch /tmp/pwn=1"});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.out << drawn.err;
  const std::string array = testing::slurp(dir_ / "v" / "slurm" / "array.sbatch");
  EXPECT_NE(array.find("\nexport ALLOCSTAMP_REPS=7\n"), std::string::npos) << array;
  EXPECT_NE(array.find("\nexport ALLOCSTAMP_WORKLOADS=" + fs::absolute(TEST_WORKLOADS).string() + "\n"), std::string::npos)
      << array;
  EXPECT_EQ(array.find("pwn"), std::string::npos) << array;
  // ALLOCSTAMP_NO_PLOT=1 (the fixture's): no figures at the end.
  EXPECT_EQ(testing::slurp(dir_ / "v" / "slurm" / "merge.sbatch").find(" plot "), std::string::npos);
  args = matrix((dir_ / "w").string());
  args.insert(args.begin(), {"slurm", "--shards", "2", "--per-comparison"});
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1"};
  options.drop_prefixes = {"ALLOCSTAMP_NO_PLOT"};
  args.insert(args.begin(), BENCH_BINARY);
  Result plotted = testing::run_command(args, options);
  ASSERT_EQ(plotted.exit_code, 0) << plotted.out << plotted.err;
  const std::string merge = testing::slurp(dir_ / "w" / "slurm" / "merge.sbatch");
  EXPECT_NE(merge.find(" plot " + (dir_ / "w" / "merged").string() + " --per-comparison || true\n"), std::string::npos) << merge;
}

// The scripts run from the repository: an allocator library named relative
// to where bench slurm ran is named absolutely, in the flags and in
// ALLOCSTAMP_ALLOC (relative, every task failed: "no allocator library at
// <repository>/...").
TEST_F(Cluster, ARelativeAllocatorLibraryIsNamedAbsolutely) {
  const fs::path lib = dir_ / "libmine.so";
  fs::copy_file("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", lib);
  const std::string relative = fs::relative(lib).string();
  ASSERT_NE(relative.front(), '/');
  std::vector<std::string> args = matrix((dir_ / "rel").string());
  for (std::string& a : args)
    if (a.rfind("--alloc=", 0) == 0) a = "--alloc=glibc," + relative + ",jemalloc:MALLOC_CONF=narenas:1";
  args.insert(args.begin(), {"slurm", "--shards", "2"});
  Result r = bench(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string array = testing::slurp(dir_ / "rel" / "slurm" / "array.sbatch");
  EXPECT_NE(array.find("--alloc=glibc," + lib.string() + ",jemalloc:MALLOC_CONF=narenas:1"), std::string::npos) << array;
  // A space after the comma, which the sweep takes: no part of the path.
  std::vector<std::string> spaced = matrix((dir_ / "rel-spaced").string());
  for (std::string& a : spaced)
    if (a.rfind("--alloc=", 0) == 0) a = "--alloc=glibc, " + relative;
  spaced.insert(spaced.begin(), {"slurm", "--shards", "2"});
  Result with_space = bench(spaced);
  ASSERT_EQ(with_space.exit_code, 0) << with_space.out << with_space.err;
  EXPECT_NE(testing::slurp(dir_ / "rel-spaced" / "slurm" / "array.sbatch").find("--alloc=glibc," + lib.string() + " "),
            std::string::npos)
      << testing::slurp(dir_ / "rel-spaced" / "slurm" / "array.sbatch");
  std::vector<std::string> by_variable = matrix((dir_ / "rel-env").string());
  by_variable.erase(std::remove_if(by_variable.begin(), by_variable.end(),
                                   [](const std::string& a) { return a.rfind("--alloc=", 0) == 0; }),
                    by_variable.end());
  by_variable.insert(by_variable.begin(), {"slurm", "--shards", "2"});
  Result env = bench(by_variable, {"ALLOCSTAMP_ALLOC=glibc," + relative});
  ASSERT_EQ(env.exit_code, 0) << env.out << env.err;
  EXPECT_NE(testing::slurp(dir_ / "rel-env" / "slurm" / "array.sbatch").find("\nexport ALLOCSTAMP_ALLOC=glibc," + lib.string() + "\n"),
            std::string::npos);
}

// The scripts give each task its own --shard and make the sweep: a typed
// --shard (every task failed on two) or --dry-run (every task ran nothing) is
// refused. A task asks for as many CPUs as the sweep's most threads, the
// preset's too (1 where the preset ran 2-thread cells).
// What is not a sweep's flag is refused (every task would list, print the
// columns or refuse its own flags, and the merge job find no part); a merge
// job sbatch refuses leaves the queued array job's id said and kept, so it is
// not submitted twice.
TEST_F(Cluster, SlurmRefusesWhatIsNotASweepAndKeepsAQueuedArraysId) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--list"}, {"--columns"}, {"--resume", dir_.string()}}) {
    std::vector<std::string> args = matrix((dir_ / "refused").string());
    args.insert(args.begin(), {"slurm", "--shards", "2"});
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(extra[0] + " does not go with bench slurm"), std::string::npos) << r.err;
  }
  // An sbatch that queues the array (id 4242) and refuses the merge job.
  const fs::path bin = dir_ / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "sbatch") << "#!/bin/sh\nif [ -e \"$0.once\" ]; then echo 'sbatch: error: invalid partition' >&2; exit 1; fi\n"
                                   ": > \"$0.once\"\necho 4242\n";
  fs::permissions(bin / "sbatch", fs::perms::owner_all);
  std::vector<std::string> args = matrix((dir_ / "queued").string());
  args.insert(args.begin(), {"slurm", "--shards", "2", "--submit"});
  Result r = bench(args, {"PATH=" + bin.string() + ":" + std::getenv("PATH")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("submitted: array job 4242"), std::string::npos) << r.out;
  EXPECT_NE(testing::flat(r.err).find("the array job 4242 is queued"), std::string::npos) << r.err;
  EXPECT_NE(testing::flat(r.err).find("sbatch --dependency=afterany:4242 "), std::string::npos) << r.err;
  EXPECT_EQ(testing::slurp(dir_ / "queued" / "slurm" / "jobs"), "4242\n");
}

TEST_F(Cluster, TheScriptsTakeTheSweepsOwnShardsAndThreads) {
  std::vector<std::string> args = matrix((dir_ / "s").string());
  args.insert(args.begin(), {"slurm", "--shards", "2", "--shard=1/2"});
  Result shard = bench(args);
  EXPECT_EQ(shard.exit_code, 2) << shard.err;
  EXPECT_NE(testing::flat(shard.err).find("--shard does not go with bench slurm"), std::string::npos) << shard.err;
  args = matrix((dir_ / "d").string());
  args.insert(args.begin(), {"slurm", "--shards", "2", "--dry-run"});
  Result dry = bench(args);
  EXPECT_EQ(dry.exit_code, 2) << dry.err;
  EXPECT_FALSE(fs::exists(dir_ / "d" / "slurm"));
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_NO_PLOT=1"};
  options.drop_prefixes = {"ALLOCSTAMP_THREADS"};
  Result preset = testing::run_command({BENCH_BINARY, "slurm", "--shards", "2", "--no-exclusive", "--workload=test-alloc,churn",
                                        "--alloc=glibc,jemalloc", "--size=tiny", "--out=" + (dir_ / "p").string()},
                                       options);
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  EXPECT_NE(testing::slurp(dir_ / "p" / "slurm" / "array.sbatch").find("--cpus-per-task=2\n"), std::string::npos)
      << "the default job's 1 and 2 threads";
}

TEST_F(Cluster, ALocalSlurmRunsTheSweepAsAJobArray) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  // CI runs as root (install-deps needs it): there a missing daemon or a
  // local Slurm that does not start fails the test instead of skipping it.
  if (getuid() != 0) {
    if (testing::in_ci()) FAIL() << "CI=true but not root: Slurm's daemons need root";
    GTEST_SKIP() << "Slurm's daemons need root: not run";
  }
  for (const char* tool : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch"})
    SKIP_UNLESS_INSTALLED(fs::exists(tool), std::string(tool) + " (slurm-wlm, munge)");
  const std::string slurm_dir = (dir_ / "slurm-cluster").string();
  testing::CommandOptions daemon_env;
  daemon_env.env = {"ALLOCSTAMP_SLURM_DIR=" + slurm_dir};
  daemon_env.timeout_seconds = 120;
  Result up = testing::run_command({LOCAL_SLURM, "start"}, daemon_env);
  if (up.exit_code != 0) {
    if (testing::in_ci()) FAIL() << "scripts/local-slurm start failed under CI=true: " << up.out << up.err;
    GTEST_SKIP() << "the local Slurm did not start: " << up.err;
  }
  struct Stop {
    testing::CommandOptions env;
    ~Stop() { testing::run_command({LOCAL_SLURM, "stop"}, env); }
  } stop{daemon_env};
  const std::string conf = "SLURM_CONF=" + slurm_dir + "/slurm.conf";

  std::vector<std::string> args = matrix((dir_ / "sharded").string());
  args.insert(args.begin(), {"slurm", "--shards", "3", "--submit"});
  Result submitted = bench(args, {conf});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  EXPECT_NE(submitted.out.find("submitted: array job"), std::string::npos) << submitted.out;
  const fs::path merged = dir_ / "sharded" / "merged";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  while (!fs::exists(merged / "summary.csv") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(fs::exists(merged / "summary.csv")) << "the merge job wrote no folder: "
                                                  << testing::slurp(dir_ / "sharded" / "slurm" / "merge.out")
                                                  << "\npart 1 said: " << testing::slurp(dir_ / "sharded" / "slurm" / "part-1.out");
  for (int k = 1; k <= 3; ++k) EXPECT_TRUE(fs::exists(dir_ / "sharded" / "parts" / std::to_string(k) / "meta.json"));
  Result one = bench(matrix((dir_ / "one").string()));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  Result check = bench({"check", "--baseline", (dir_ / "one").string(), "--current", merged.string(),
                        "--deterministic-only", "--fail-on-missing"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace allocstamp
