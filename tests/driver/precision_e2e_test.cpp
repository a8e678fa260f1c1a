// precision_e2e_test — `bench --precision P` end to end on the test workloads:
// a time no repetition count makes precise (test-jittery: 5 to 15 ms at
// random) gets rounds added up to --max-reps, all its allocators together, and
// is named as short at the end and in meta.json; --budget stops the rounds; a
// steady time (test-steady) stops early; bad combinations are refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "results/csv.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("precision-e2e-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  return p;
}

testing::CommandResult bench(std::vector<std::string> args) {
  args.insert(args.begin(), BENCH_BINARY);
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
  return testing::run_command(args, options);
}

// Timed runs per allocator, and the repetitions each ran, from runs.csv.
std::map<std::string, std::vector<int>> timed_reps(const fs::path& dir) {
  CsvRow header;
  auto rows = read_csv(dir / "runs.csv", &header);
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < header.size(); ++i) at[header[i]] = i;
  std::map<std::string, std::vector<int>> out;
  for (const CsvRow& row : rows)
    if (row[at["kind"]] == "timed" && row[at["status"]] == "ok") out[row[at["allocator"]]].push_back(std::stoi(row[at["rep"]]));
  return out;
}

nlohmann::json precision_meta(const fs::path& dir) {
  std::ifstream in(dir / "meta.json");
  return nlohmann::json::parse(in).at("precision");
}

TEST(PrecisionEndToEnd, ATimeThatStaysImpreciseGrowsToMaxRepsAndIsNamed) {
  fs::path dir = scratch("jittery");
  auto r = bench({"--alloc=glibc,jemalloc", "--workload=test-jittery", "--size=tiny", "--reps=2", "--no-profile",
                  "--precision=0.01", "--max-reps=4", "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto reps = timed_reps(dir);
  // Rounds 3 and 4 added, every allocator of the group in each.
  EXPECT_EQ(reps.at("glibc"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(reps.at("jemalloc"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_NE(r.err.find("precision: 1 cell group(s) of test-jittery wider than ±0.01%: one more repetition for 1 of them, 2 runs\n"
                       "  widest: test-jittery t1: ±"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("precision: 1 cell group(s) of test-jittery short of ±0.01% when --max-reps 4 stopped it:\n  test-jittery t1: ±"),
            std::string::npos)
      << r.err;
  const auto meta = precision_meta(dir);
  EXPECT_EQ(meta["rounds_added"], 2);
  EXPECT_EQ(meta["stopped_by"], "max_reps");
  ASSERT_EQ(meta["short"].size(), 1u);
  EXPECT_EQ(meta["short"][0]["workload"], "test-jittery");
  EXPECT_EQ(meta["short"][0]["reps"], 4);
  EXPECT_GT(meta["short"][0]["half_width_pct"].get<double>(), 0.01);
  fs::remove_all(dir);
}

// Every run id in runs.csv, in order.
std::vector<int> run_ids(const fs::path& dir) {
  CsvRow header;
  auto rows = read_csv(dir / "runs.csv", &header);
  const std::size_t at = std::find(header.begin(), header.end(), "run_id") - header.begin();
  std::vector<int> out;
  for (const CsvRow& row : rows) out.push_back(std::stoi(row.at(at)));
  return out;
}

bool all_distinct(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  return std::adjacent_find(ids.begin(), ids.end()) == ids.end();
}

// The runs --precision adds take ids no other run of the folder has: a
// resumed sweep's rounds come after the rounds its first session added, and
// two shards' rounds interleave (plan + K, plan + K + N, ...), so the parts
// merge. (Both started at the plan's size: a resumed or merged folder held
// run 9 twice, and every reader refused it as damaged.)
TEST(PrecisionEndToEnd, AddedRoundsTakeIdsOfTheirOwnAcrossResumesAndShards) {
  const std::vector<std::string> sweep = {"--alloc=glibc,jemalloc", "--workload=test-jittery", "--threads=1,2",
                                          "--size=tiny", "--reps=2", "--no-profile", "--precision=0.01", "--max-reps=3"};
  fs::path dir = scratch("resume-ids");
  std::vector<std::string> args = sweep;
  args.push_back("--out=" + dir.string());
  auto first = bench(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(run_ids(dir).size(), 12u) << "8 planned, a third repetition for both thread counts";
  ASSERT_EQ(precision_meta(dir)["rounds_added"], 1);
  {
    // The sweep as if stopped before its 2-thread runs: those rows taken out.
    CsvRow header;
    const std::vector<CsvRow> rows = read_csv(dir / "runs.csv", &header);
    const std::size_t threads_at = std::find(header.begin(), header.end(), "threads") - header.begin();
    std::ifstream in(dir / "runs.csv");
    std::string schema;
    std::getline(in, schema);
    in.close();
    std::ofstream out(dir / "runs.csv", std::ios::trunc);
    out << schema << "\n";
    write_row(out, header);
    for (const CsvRow& row : rows)
      if (row.at(threads_at) == "1") write_row(out, row);
  }
  ASSERT_EQ(run_ids(dir).size(), 6u);
  auto resumed = bench({"--resume=" + dir.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::vector<int> ids = run_ids(dir);
  EXPECT_EQ(ids.size(), 12u);
  EXPECT_TRUE(all_distinct(ids)) << testing::slurp(dir / "runs.csv");
  EXPECT_EQ(precision_meta(dir)["rounds_added"], 2) << "one round in each session";
  auto summarized = bench({"summarize", dir.string()});
  EXPECT_EQ(summarized.exit_code, 0) << summarized.err;

  std::vector<fs::path> parts;
  for (const char* shard : {"1/2", "2/2"}) {
    parts.push_back(scratch(std::string("shard-ids-") + shard[0]));
    args = sweep;
    args.push_back("--shard=" + std::string(shard));
    args.push_back("--out=" + parts.back().string());
    auto part = bench(args);
    ASSERT_EQ(part.exit_code, 0) << part.err;
    ASSERT_EQ(run_ids(parts.back()).size(), 6u) << shard;
  }
  const fs::path merged = scratch("merged-ids");
  auto merge = bench({"merge", merged.string(), parts[0].string(), parts[1].string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  // The plan's runs counted apart from the rounds (it said "12 of 8 runs").
  EXPECT_NE(merge.out.find(": 8 of 8 planned runs and 4 added by --precision from"), std::string::npos) << merge.out;
  EXPECT_EQ(merge.out.find("missing"), std::string::npos) << merge.out;
  EXPECT_TRUE(all_distinct(run_ids(merged)));
  EXPECT_EQ(run_ids(merged).size(), 12u);
  // meta.json's record of the rounds is both parts': their rounds summed, their short groups joined.
  const nlohmann::json one = precision_meta(parts[0]), two = precision_meta(parts[1]), both = precision_meta(merged);
  EXPECT_EQ(both["rounds_added"], one["rounds_added"].get<int>() + two["rounds_added"].get<int>());
  EXPECT_EQ(both["short"].size(), one["short"].size() + two["short"].size()) << both.dump();
  for (const fs::path& p : parts) fs::remove_all(p);
  fs::remove_all(merged);
  fs::remove_all(dir);
}

TEST(PrecisionEndToEnd, TheBudgetStopsTheRounds) {
  fs::path dir = scratch("budget");
  auto r = bench({"--alloc=glibc,jemalloc", "--workload=test-jittery", "--size=tiny", "--reps=2", "--no-profile",
                  "--precision=0.01", "--budget=0.0001", "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(timed_reps(dir).at("glibc").size(), 2u) << "the planned repetitions only";
  EXPECT_EQ(precision_meta(dir)["stopped_by"], "budget");
  EXPECT_NE(testing::flat(r.err).find("when its share of --budget 0.0001 min stopped it"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(PrecisionEndToEnd, ASteadyTimeStopsWhenPrecise) {
  fs::path dir = scratch("steady");
  // 100 ms sleeps agree to a few percent; ±50% is reached in a few repetitions
  // however loaded the machine (an interval from two repetitions is 9x their spread).
  auto r = bench({"--alloc=glibc,jemalloc", "--workload=test-steady", "--size=tiny", "--reps=2", "--no-profile",
                  "--precision=50", "--max-reps=10", "--out=" + dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto meta = precision_meta(dir);
  EXPECT_EQ(meta["stopped_by"], "precise") << r.err;
  EXPECT_TRUE(meta["short"].empty());
  EXPECT_LT(timed_reps(dir).at("glibc").size(), 10u);
  EXPECT_NE(testing::flat(r.err).find("precision: every cell group of test-steady within ±50% (time ratios, 95% interval)"), std::string::npos)
      << r.err;
  fs::remove_all(dir);
}

TEST(PrecisionEndToEnd, BadCombinationsAreRefused) {
  auto alone = bench({"--workload=test-steady", "--alloc=glibc", "--precision=0", "--max-reps=5", "--dry-run"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(testing::flat(alone.err).find("error: --max-reps and --budget bound --precision, which is not set — add --precision P"),
            std::string::npos)
      << alone.err;
  auto below = bench({"--workload=test-steady", "--alloc=glibc", "--reps=5", "--precision=5", "--max-reps=3", "--dry-run"});
  EXPECT_EQ(below.exit_code, 2);
  EXPECT_NE(testing::flat(below.err).find("--max-reps 3 is below --reps 5"), std::string::npos) << below.err;
  auto negative = bench({"--workload=test-steady", "--alloc=glibc", "--precision=-1", "--dry-run"});
  EXPECT_EQ(negative.exit_code, 2);
  // 0 turns a preset's precision off; the default job's applies unless --reps is typed.
  auto off = bench({"--workload=test-steady", "--alloc=glibc", "--precision=0", "--dry-run"});
  EXPECT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.out.find("with --precision"), std::string::npos) << off.out;
  auto preset = bench({"--workload=test-steady", "--alloc=glibc", "--dry-run"});
  EXPECT_NE(preset.out.find("then, with --precision 20, more timed rounds for the groups still wider (up to --max-reps 10)"),
            std::string::npos)
      << preset.out;
  auto typed = bench({"--workload=test-steady", "--alloc=glibc", "--reps=3", "--dry-run"});
  EXPECT_EQ(typed.out.find("with --precision"), std::string::npos) << "--reps 3 means three: " << typed.out;
  auto plan = bench({"--workload=test-steady", "--alloc=glibc", "--precision=5", "--dry-run"});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("then, with --precision 5, more timed rounds for the groups still wider (up to --max-reps 10)"),
            std::string::npos)
      << plan.out;
}

}  // namespace
}  // namespace allocstamp
