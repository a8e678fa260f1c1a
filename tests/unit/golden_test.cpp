// golden_test — every renderer of the output model against an expected file
// (tests/expected/): the report of the fixture folder (Markdown, HTML), the
// ranking (text), `bench check`'s table (text) and CSV on the fixture against
// a copy with a planted change, --columns (Markdown), and a fixed sweep made
// through a scripted executor: its terminal output, runs.csv, summary.csv and
// report, timed and profiled runs of the current schema. A failing test
// prints the difference's first line; scripts/update-golden rewrites the
// expected files and prints their difference (never under CI=true).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/check.h"
#include "output/check_report.h"
#include "commands/commands.h"
#include "output/document.h"
#include "figures/figures.h"
#include "output/ranking.h"
#include "output/report.h"
#include "results/results_folder.h"
#include "results/results_view.h"
#include "run/executor.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using testing::slurp;

// Compares `actual` with tests/expected/<name>, or rewrites it when asked.
// ALLOCSTAMP_EXPECTED_DIR points elsewhere (golden_update_refused_in_ci: a
// scratch copy it checks is left untouched).
void expect_golden(const std::string& name, const std::string& actual) {
  const char* elsewhere = std::getenv("ALLOCSTAMP_EXPECTED_DIR");
  const fs::path file = fs::path(elsewhere ? elsewhere : EXPECTED_DIR) / name;
  if (std::getenv("ALLOCSTAMP_UPDATE_GOLDEN")) {
    // Never under CI=true: there a changed output must fail, not become the expectation.
    ASSERT_FALSE(testing::in_ci()) << "ALLOCSTAMP_UPDATE_GOLDEN is refused under CI=true";
    std::ofstream(file, std::ios::trunc) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing: scripts/update-golden writes it";
  const std::string expected = slurp(file);
  if (expected == actual) return;
  std::istringstream a(actual), e(expected);
  std::string la, le;
  int line = 1;
  while (std::getline(a, la) && std::getline(e, le) && la == le) ++line;
  ADD_FAILURE() << name << " differs from " << file << " at line " << line << ":\n  expected: " << le
                << "\n  actual:   " << la << "\n(scripts/update-golden rewrites it and shows the difference)";
}

class Golden : public ::testing::Test {
 protected:
  void SetUp() override {
    // The folder's name is in the report's title: the same every time.
    scratch = fs::temp_directory_path() / ("golden-test-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch);
    dir = scratch / "fixture";
    fs::create_directories(scratch);
    fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(scratch); }
  fs::path scratch, dir;
};

TEST_F(Golden, ReportInMarkdownAndHtml) {
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  FigurePlan plan = prepare_figures(view, cells);
  Document doc = build_report(view, cells, plan);
  // The folder's path changes from run to run: the expected files say RESULTS.
  auto stable = [&](std::string text) { return std::regex_replace(text, std::regex(dir.string()), "RESULTS"); };
  expect_golden("report.md", stable(render_markdown(doc)));
  expect_golden("report.html", stable(render_html(doc)));
}

TEST_F(Golden, RankingAsText) {
  std::ostringstream out;
  print_ranking(dir, out);
  // The folder's path (in the failed runs' redo command) changes from run to run.
  expect_golden("ranking.txt", std::regex_replace(out.str(), std::regex(dir.string()), "RESULTS"));
}

TEST_F(Golden, CheckTableAndCsv) {
  // The current side: vacation-low's jemalloc runs 30% slower and allocating
  // 10% more; one baseline cell gone.
  fs::path current = dir / "current";
  fs::create_directories(current);
  std::string runs = slurp(dir / "runs.csv");
  std::ostringstream edited;
  std::istringstream lines(runs);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("maps-insert-absl_btree_map") != std::string::npos) continue;
    edited << line << '\n';
  }
  std::ofstream(current / "runs.csv") << edited.str();
  RunsTable base = load_runs(dir / "runs.csv", "baseline"), cur = load_runs(current / "runs.csv", "current");
  for (CsvRow& row : cur.rows) {
    if (cur.text(row, "workload") != "vacation-low" || cur.text(row, "allocator") != "jemalloc") continue;
    for (const char* name : {"elapsed_ns", "allocs_seq_count"}) {
      std::size_t i = cur.column(name);
      double v = std::strtod(row[i].c_str(), nullptr) * (std::string(name) == "elapsed_ns" ? 1.3 : 1.1);
      row[i] = std::to_string(static_cast<long long>(v));
    }
  }
  CheckConfig config;
  CheckResult result = compare_runs(base, cur, config);
  std::ostringstream table, csv;
  print_check_table(result, false, table);
  table << check_verdict_line(result, config) << '\n';
  write_check_csv(result, csv);
  expect_golden("check.txt", table.str());
  expect_golden("check.csv", csv.str());
}

TEST_F(Golden, ColumnsAsMarkdown) {
  std::ostringstream md;
  command_columns(md);
  expect_golden("columns.md", md.str());
  const Block columns = columns_table();
  expect_golden("columns.html", render_html({heading(1, "runs.csv"), columns}));
  expect_golden("columns.txt", render_text({columns}));
}

// Answers each launch with figures fixed by what it is: the allocator (its
// preload), profiled or timed (memprof preloaded), the thread count and the
// repetition (the launch's number): the same sweep gives the same files.
class ScriptedExecutor : public Executor {
 public:
  int launches = 0;
  Finished run(const Launch& launch) override {
    ++launches;
    std::string preload;
    for (const std::string& e : launch.env)
      if (e.rfind("LD_PRELOAD=", 0) == 0) preload = e;
    const bool fast = preload.find("libfast.so") != std::string::npos;
    const bool profiled = preload.find("libmemprof.so") != std::string::npos;
    const bool two = std::find(launch.args.begin(), launch.args.end(), "2") != launch.args.end();
    const long spread[] = {0, 3, -2, 5, -4};  // a repetition's share, per thousand
    const long base = (fast ? 7'000'000 : 10'000'000) / (two ? 2 : 1);
    const long elapsed = base + base * spread[launches % 5] / 1000;
    Finished f;
    f.exit_code = 0;
    f.wall_ns = uint64_t(elapsed + 2'000'000);
    f.maxrss_kb = fast ? 9000 : 8000;
    // Each figure of its own size, so that one taken for another shows.
    f.user_ns = uint64_t(elapsed * (two ? 2 : 1) * 9 / 10);
    f.sys_ns = uint64_t(elapsed / (fast ? 20 : 10));
    f.minor_faults = uint64_t((fast ? 2100 : 1500) + launches % 3);
    f.major_faults = 0;
    f.voluntary_switches = uint64_t((two ? 40 : 4) + launches % 2);
    f.involuntary_switches = uint64_t(fast ? 3 : 7);
    if (profiled)
      f.records = "@memprof pid=1 format=1 allocs_seq_count=1000 allocs_par_count=" + std::string(two ? "600" : "0") +
                  " frees_seq_count=990 heap_requested_peak_bytes=65536 heap_usable_peak_bytes=" +
                  std::string(fast ? "69632" : "73728") + "\n";
    f.records += "@metric elapsed_ns=" + std::to_string(elapsed) + "\n";
    return f;
  }
};

TEST(GoldenSweep, TerminalRunsSummaryAndReport) {
  const fs::path root = fs::temp_directory_path() / ("golden-sweep-" + std::to_string(::getpid()));
  fs::remove_all(root);
  Paths paths;
  paths.source = root / "src";
  paths.build = root / "build";
  paths.memprof = paths.build / "lib" / "libmemprof.so";
  for (const fs::path& d : {paths.source / "allocators", paths.source / "workloads", paths.build / "bin", paths.build / "lib"})
    fs::create_directories(d);
  std::ofstream(paths.memprof) << "";
  std::ofstream(paths.build / "bin" / "work") << "";
  std::ofstream(root / "libfast.so") << "";
  std::ofstream(paths.source / "allocators" / "allocators.json")
      << R"({"schema": 1, "allocators": [{"name": "glibc", "package": "libc6", "libraries": []},
             {"name": "fast", "libraries": [")" << (root / "libfast.so").string() << R"("]}]})";
  std::ofstream(paths.source / "workloads" / "workloads.json")
      << R"({"schema": 1, "workloads": [{"name": "plain", "binary": "bin/work", "app": "plain", "args": []}]})";
  Options options;
  options.out = (root / "out").string();
  options.command_line = {"bench", "--alloc=glibc,fast", "--workload=plain", "--threads=1,2", "--reps=5"};
  options.allocators = {"glibc", "fast"};
  options.workloads = {"plain"};
  options.threads = {1, 2};
  options.reps = 5;
  options.profile_reps = 1;
  options.no_plot = true;
  ScriptedExecutor executor;
  std::ostringstream terminal;
  ASSERT_EQ(run_sweep(options, paths, executor, terminal), 0);
  ASSERT_EQ(executor.launches, 24);
  const fs::path dir = root / "out";
  // What the machine and the moment put in: the same in every file.
  auto stable = [&](std::string text) {
    text = std::regex_replace(text, std::regex(root.string()), "ROOT");
    text = std::regex_replace(text, std::regex("glibc [0-9.]+"), "glibc VERSION");
    text = std::regex_replace(text, std::regex("\\| libc6 \\| [^|]* \\|"), "| libc6 | VERSION |");
    return text;
  };
  expect_golden("sweep-terminal.txt", stable(terminal.str()));
  expect_golden("sweep-runs.csv", stable(slurp(dir / "runs.csv")));
  expect_golden("sweep-summary.csv", stable(slurp(dir / "summary.csv")));
  // The report names the machine and the day: those of the plot fixture.
  nlohmann::json meta = nlohmann::json::parse(slurp(dir / "meta.json"));
  const nlohmann::json fixture = nlohmann::json::parse(slurp(fs::path(FIXTURE) / "meta.json"));
  for (const char* key : {"machine", "started", "finished", "machine_warnings"})
    if (fixture.contains(key)) meta[key] = fixture[key];
    else meta.erase(key);
  std::ofstream(dir / "meta.json", std::ios::trunc) << meta.dump(2);
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  Document doc = build_report(view, cells, prepare_figures(view, cells));
  expect_golden("sweep-report.md", stable(render_markdown(doc)));
  fs::remove_all(root);
}

}  // namespace
}  // namespace allocstamp
