// figures_test — the data behind `bench plot`, on the fixture folder
// tests/fixtures/plot: exact data files (time normalised to glibc with its
// interval, speedup, abort rate, memory ladder, series, regions, bytes per
// element), the notes and skip messages, and malformed folders refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/mechanisms.h"
#include "model/errors.h"
#include "model/statistics.h"
#include "figures/figure_kit.h"
#include "figures/figures.h"
#include "model/format.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using testing::slurp;

// The line of a data file that starts with `start`, or "" when there is none.
std::string line_of(const fs::path& file, const std::string& start) {
  std::istringstream in(slurp(file));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(start, 0) == 0) return line;
  return "";
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const Figure* find(const FigurePlan& plan, const std::string& name) {
  for (const Figure& f : plan.figures)
    if (f.name == name) return &f;
  return nullptr;
}

class Figures : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("figures-test-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir); }

  FigurePlan prepare() {
    ResultsView view = load_results(dir);
    return prepare_figures(view, summarize_cells(view));
  }
  fs::path data(const std::string& name) const { return dir / "figures" / "data" / (name + ".dat"); }
  // Rewrites runs.csv through `edit`.
  void edit_runs(const std::function<std::string(std::string)>& edit) {
    std::string text = edit(slurp(dir / "runs.csv"));
    std::ofstream(dir / "runs.csv", std::ios::trunc) << text;
  }
  // Rewrites runs.csv line by line: each line (the header too) is replaced by
  // what `lines_for` gives, newlines included ("" drops it).
  void each_run_line(const std::function<std::string(const std::string&)>& lines_for) {
    edit_runs([&](std::string text) {
      std::string out, line;
      std::istringstream in(text);
      while (std::getline(in, line)) out += lines_for(line);
      return out;
    });
  }
  // Adds the column kcall_mmap_count: each jemalloc run `jemalloc` calls, each
  // tbbmalloc run `tbbmalloc`, glibc's empty (its malloc calls the kernel out of memprof's sight).
  void give_mmap_calls(const std::string& jemalloc, const std::string& tbbmalloc) {
    edit_runs([&](std::string text) {
      std::string out, line;
      std::istringstream in(text);
      while (std::getline(in, line)) {
        if (line.rfind("run_id,", 0) == 0) line += ",kcall_mmap_count";
        else if (!line.empty() && line[0] != '#')
          line += "," + (line.find(",jemalloc,") != std::string::npos    ? jemalloc
                         : line.find(",tbbmalloc,") != std::string::npos ? tbbmalloc
                                                                         : std::string());
        out += line + "\n";
      }
      return out;
    });
  }
  // The notes of the figure `name`, one a line ("" when it is not drawn).
  std::string notes_of(const std::string& name) {
    const FigurePlan plan = prepare();
    std::string notes;
    if (const Figure* f = find(plan, name))
      for (const std::string& n : f->notes) notes += n + "\n";
    return notes;
  }
  // The map runs' measured phases 100 times longer (0.1 ms in the fixture,
  // too short to time: no insert-time bar), for the figures that need a time.
  void lengthen_map_phases(const std::string& only_allocator = "") {
    each_run_line([&](const std::string& line) {
      if (line.find(",maps-") == std::string::npos ||
          (!only_allocator.empty() && line.find("," + only_allocator + ",") == std::string::npos))
        return line + "\n";
      std::vector<std::string> fields;
      std::istringstream cells(line);
      for (std::string f; std::getline(cells, f, ',');) fields.push_back(f);
      if (!line.empty() && line.back() == ',') fields.push_back("");
      fields[12] = std::to_string(std::stoll(fields[12]) * 100);  // elapsed_ns
      fields[11] = std::to_string(std::stoll(fields[11]) + std::stoll(fields[12]));  // wall_ns
      std::string out;
      for (const auto& f : fields) out += (out.empty() ? "" : ",") + f;
      return out + "\n";
    });
  }
  // Keeps the lines of runs.csv for which `keep` holds.
  void keep_runs(const std::function<bool(const std::string&)>& keep) {
    edit_runs([&](std::string text) {
      std::string out;
      std::istringstream in(text);
      std::string line;
      while (std::getline(in, line))
        if (keep(line)) out += line + "\n";
      return out;
    });
  }

  fs::path dir;
};

TEST_F(Figures, LoadsTheFolderInItsOwnOrder) {
  ResultsView view = load_results(dir);
  EXPECT_EQ(view.table->rows.size(), 30u);
  EXPECT_EQ(view.cells.groups, (std::vector<std::string>{"vacation-low", "maps-insert-std_map", "maps-insert-absl_btree_map"}));
  EXPECT_EQ(view.cells.allocators, (std::vector<std::string>{"glibc", "jemalloc", "tbbmalloc"}));
  EXPECT_EQ(view.cells.threads, (std::vector<int>{1, 2}));
  EXPECT_EQ(view.cells.reference, "glibc");
  EXPECT_TRUE(view.notes.empty());
  EXPECT_EQ(machine_stamp(view.meta), "fixture-host, Test CPU <model> & co, 2026-11-21");
}

TEST_F(Figures, NumberFallsBackToExtra) {
  ResultsView view = load_results(dir);
  const RunsTable& t = *view.table;
  const CsvRow& map_run = t.rows[18];  // maps-insert-std_map, glibc, rep 1
  ASSERT_EQ(t.text(map_run, "workload"), "maps-insert-std_map");
  EXPECT_EQ(t.number(map_run, "elements_count"), 1000);
  EXPECT_EQ(t.number(map_run, "heap_usable_phase_end_bytes"), 56000);  // not a column of the fixture
  EXPECT_EQ(t.number(map_run, "elapsed_ns"), 100000);
  EXPECT_TRUE(std::isnan(t.number(map_run, "tx_attempts_count")));  // empty
  EXPECT_TRUE(std::isnan(t.number(map_run, "no_such_key")));
}

TEST_F(Figures, CellsCountEveryStatusAndSummariseOkRuns) {
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  ASSERT_EQ(cells.size(), 12u);  // vacation-low 2 thread counts x 3, the two maps x 3
  const CellSummary& crashed = cells[4];
  EXPECT_EQ(crashed.group, "vacation-low");
  EXPECT_EQ(crashed.threads, 2);
  EXPECT_EQ(crashed.allocator, "jemalloc");
  EXPECT_EQ(crashed.cell->statuses, (std::map<std::string, int>{{"crashed", 1}, {"ok", 2}}));
  EXPECT_EQ(crashed.time.n, 2u);
  EXPECT_NEAR(crashed.time.center, std::sqrt(5e6 * 5.5e6), 1e-6);  // elapsed 5 and 5.5 ms: their geometric mean
  EXPECT_DOUBLE_EQ(crashed.rss_kb, 7168);
  const CellSummary& glibc = cells[0];
  EXPECT_NEAR(glibc.time.center, std::cbrt(10e6 * 11e6 * 12e6), 1e-3);
  EXPECT_DOUBLE_EQ(glibc.time_vs_reference.value, 1);
  EXPECT_EQ(glibc.standing, "reference");
  // jemalloc 8, 9, 10 ms against glibc's 10, 11, 12, rep by rep: the ratio of the geometric means.
  EXPECT_NEAR(cells[1].time_vs_reference.value, std::cbrt(8.0 * 9 * 10 / (10.0 * 11 * 12)), 1e-12);
}

// The value of a figure's variable, or "".
std::string var_of(const Figure& f, const std::string& name) {
  for (const auto& [n, value] : f.vars)
    if (n == name) return value;
  return "";
}

// The time heatmap: a column per allocator but the reference (1 by
// definition), a row per workload, first on top; each cell the log2 of the
// ratio of geometric means and its label, '*' where the interval leaves 1 out.
TEST_F(Figures, TimeIsNormalisedToGlibcWithIntervals) {
  FigurePlan plan = prepare();
  const Figure* f = find(plan, "time-t1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->script, "time");
  // The time family of the fixture (issue 49): 3 of its 4 ratios selected, intervals at 1 - 0.05 * 3/4.
  EXPECT_EQ(f->title, "Time relative to glibc, 1 thread (size tiny, ml_wt): geometric mean; * where the 96.2% CI leaves 1 out");
  EXPECT_EQ(var_of(*f, "xticsdef"), "'\"jemalloc\" 0, \"tbbmalloc\" 1'");
  const std::string rows = var_of(*f, "rows");
  ASSERT_FALSE(rows.empty());
  const std::string top = std::to_string(std::stoi(rows) - 1);  // vacation-low, the first workload, on top
  EXPECT_NE(var_of(*f, "yticsdef").find("\"vacation-low\" " + top), std::string::npos) << var_of(*f, "yticsdef");
  // glibc: 10, 11, 12 ms; jemalloc 8, 9, 10; tbbmalloc 11, 12, 13. Ratios of geometric means, their
  // intervals t(2) = 4.3026527 on the logs of the per-rep ratios (jemalloc: 0.8, 0.818, 0.833):
  // jemalloc 0.817058 [0.776596, 0.859628], tbbmalloc 1.09139 [1.07087, 1.11231]: both leave 1 out.
  auto cell = [&](const std::string& column) {
    std::istringstream in(line_of(data("time-t1"), column + " " + top + " "));
    double x = 0, y = 0, log2ratio = NAN;
    std::string label;
    in >> x >> y >> log2ratio >> label;
    return std::pair{log2ratio, label};
  };
  EXPECT_NEAR(cell("0").first, std::log2(0.817058), 1e-5);
  EXPECT_EQ(cell("0").second, "\"0.82*\"");
  EXPECT_NEAR(cell("1").first, std::log2(1.09139), 1e-5);
  EXPECT_EQ(cell("1").second, "\"1.09*\"");
  // At 2 threads only vacation-low ran: one row.
  const Figure* t2 = find(plan, "time-t2");
  ASSERT_TRUE(t2);
  EXPECT_EQ(var_of(*t2, "rows"), "1");
  EXPECT_NE(line_of(data("time-t2"), "0 0 "), "");
}

TEST_F(Figures, WithoutGlibcTheFirstAllocatorIsTheReference) {
  keep_runs([](const std::string& line) { return line.find(",glibc,") == std::string::npos; });
  ResultsView view = load_results(dir);
  EXPECT_EQ(view.cells.reference, "jemalloc");
  FigurePlan plan = prepare();
  const Figure* f = find(plan, "time-t1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->title, "Time relative to jemalloc (no glibc runs), 1 thread (size tiny, ml_wt): geometric mean; * where "
                      "the 95% CI leaves 1 out");
  EXPECT_EQ(var_of(*f, "xticsdef"), "'\"tbbmalloc\" 0'");
}

TEST_F(Figures, SpeedupAgainstEachAllocatorsOneThreadTime) {
  FigurePlan plan = prepare();
  ASSERT_TRUE(find(plan, "speedup-vacation-low"));
  EXPECT_EQ(line_of(data("speedup-vacation-low"), "1 "), "1 1 1 1 1 1 1 1 1 1");
  // glibc 10, 11, 12 / 6, 6.5, 7 ms and tbbmalloc 11, 12, 13 / 7, 8, 9 paired by rep (t(2)); jemalloc
  // 8, 9, 10 / 5, 5.5 (its third run crashed): unpaired, Welch's t with 2.99 degrees of freedom.
  EXPECT_EQ(line_of(data("speedup-vacation-low"), "2 "), "2 1.69097 1.63276 1.75126 1.70914 1.32398 2.20635 1.5044 1.35465 1.67069");
  EXPECT_TRUE(contains(plan.skipped, "speedup-maps-insert-std_map: maps-insert-std_map ran ok at one thread count only: no speedup"));
}

// A figure "for each allocator" names the ones it leaves out for want of an ok
// run at its thread count (every 2-thread run of jemalloc crashed): the
// memory ladder, mechanisms, regions and series figures dropped it unsaid, and
// regions said "every allocator (2)" of a folder of three.
TEST_F(Figures, AnAllocatorWithoutOkRunsAtTheFiguresThreadsIsNamed) {
  edit_runs([](std::string text) {
    return std::regex_replace(text, std::regex(",jemalloc,ml_wt,2,([0-9]+),ok,"), ",jemalloc,ml_wt,2,$1,crashed,");
  });
  for (const char* figure : {"memory-vacation-low", "mechanisms-vacation-low", "regions-vacation-low", "series-vacation-low"}) {
    const std::string notes = notes_of(figure);
    EXPECT_NE(notes.find("no ok run of jemalloc at 2 threads: left out\n"), std::string::npos) << figure << ":\n" << notes;
  }
  const std::string regions = slurp(data("regions-vacation-low"));
  EXPECT_NE(regions.find("\"every allocator that ran (2 of 3)\" "), std::string::npos) << regions;
  // The speedup line that skips a thread count says so (it was a lone point, unsaid).
  const std::string speedup = notes_of("speedup-vacation-low");
  EXPECT_NE(speedup.find("no time of jemalloc at 2 threads (no ok timed run): its line skips them\n"), std::string::npos)
      << speedup;
}

// A caption says which times are memprof's: the map workloads here ran
// profiled only, vacation-low timed (the caption once said "this folder has
// no timed runs" of a figure whose vacation-low row came from them).
TEST_F(Figures, ACaptionNamesTheGroupsTimedUnderMemprof) {
  each_run_line([](const std::string& line) {
    if (line.rfind("run_id,", 0) == 0) return line + ",kind\n";
    if (line.empty() || line[0] == '#') return line + "\n";
    return line + (line.find(",vacation-low,") != std::string::npos ? ",timed\n" : ",profiled\n");
  });
  const FigurePlan plan = prepare();
  const Figure* f = find(plan, "time-t1");
  ASSERT_TRUE(f);
  EXPECT_NE(f->caption.find(" From the timed runs (the allocator alone, no memprof), but for maps-insert-std_map, "
                            "maps-insert-absl_btree_map, which have no ok timed run: from their profiled runs (memprof in "
                            "front, its cost in the times); "),
            std::string::npos)
      << f->caption;
  const Figure* speedup = find(plan, "speedup-vacation-low");
  ASSERT_TRUE(speedup);
  EXPECT_NE(speedup->caption.find(" From the timed runs (the allocator alone, no memprof), 2 to 3 per cell."), std::string::npos)
      << speedup->caption;
}

// The last three fields of a data line: the last allocator's value and interval (tbbmalloc's here).
std::string last_three(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() < 3) return "(short line: " + line + ")";
  return fields[fields.size() - 3] + " " + fields[fields.size() - 2] + " " + fields[fields.size() - 1];
}

// Every line is scaled from the group's fewest threads, as the title, the axis
// and the ideal line say: tbbmalloc, whose every 1-thread run failed, has no
// line and a note. (It was scaled from its own 2 threads: 1 there, beside the
// others' 1.7, its perfect scaling drawn as half the ideal.)
TEST_F(Figures, SpeedupLinesAllStartAtTheFewestThreads) {
  edit_runs([](std::string text) {
    for (const char* id : {"\n3,", "\n6,", "\n9,"}) {  // tbbmalloc's vacation-low runs at one thread
      const std::size_t at = text.find(id);
      const std::size_t ok = text.find(",ok,", at);
      text.replace(ok, 4, ",failed,");
    }
    return text;
  });
  FigurePlan plan = prepare();
  const Figure* f = find(plan, "speedup-vacation-low");
  ASSERT_TRUE(f);
  EXPECT_EQ(last_three(line_of(data("speedup-vacation-low"), "1 ")), "NaN NaN NaN");
  EXPECT_EQ(last_three(line_of(data("speedup-vacation-low"), "2 ")), "NaN NaN NaN");
  EXPECT_EQ(f->notes, (std::vector<std::string>{"no time of tbbmalloc at 1 thread, every line's base: line left out"}));
}

// One timed run is enough for a point (no interval: the whiskers at the point).
TEST_F(Figures, SpeedupFromOneTimedRunHasAPointWithoutAnInterval) {
  edit_runs([](std::string text) {
    for (const char* id : {"\n15,", "\n18,"}) {  // tbbmalloc's second and third runs at two threads
      const std::size_t at = text.find(id);
      const std::size_t ok = text.find(",ok,", at);
      text.replace(ok, 4, ",failed,");
    }
    return text;
  });
  FigurePlan plan = prepare();
  // Its measured phases: 11, 12, 13 ms at one thread, 7 ms at two.
  const std::string point = data_number(std::cbrt(11.0 * 12.0 * 13.0) / 7.0);
  EXPECT_EQ(last_three(line_of(data("speedup-vacation-low"), "2 ")), point + " " + point + " " + point);
}

// A workload whose every thread does the whole work (meta.json's workloads,
// from the registry's "work": "per-thread") gets a flat ideal, not a linear one.
TEST_F(Figures, SpeedupIdealIsFlatWhenEveryThreadDoesTheWholeWork) {
  auto ideal_of = [&](const FigurePlan& plan) {
    const Figure* f = find(plan, "speedup-vacation-low");
    if (!f) return std::string("(no figure)");
    for (const auto& [name, value] : f->vars)
      if (name == "ideal") return value;
    return std::string("(no ideal)");
  };
  EXPECT_EQ(ideal_of(prepare()), "'linear'");
  nlohmann::json meta = nlohmann::json::parse(slurp(dir / "meta.json"));
  meta["workloads"]["vacation-low"] = {{"family", "stamp"}, {"work", "per-thread"}};
  std::ofstream(dir / "meta.json") << meta.dump(2);
  FigurePlan plan = prepare();
  EXPECT_EQ(ideal_of(plan), "'flat'");
  EXPECT_NE(find(plan, "speedup-vacation-low")->caption.find("the same time at every thread count"), std::string::npos);
}

// The ideal is the workload's, whatever its group is called: with two sizes
// in the folder the group is "vacation-low tiny", and meta.json names the
// workload. (Looked up by the group's name, a mixed-size folder, as the
// default and stamp presets make, drew every per-thread workload linear.)
TEST_F(Figures, SpeedupIdealIsTheWorkloadsWhateverItsGroupIsCalled) {
  edit_runs([](std::string text) {
    for (std::size_t at; (at = text.find(",insert,tiny,")) != std::string::npos;) text.replace(at, 13, ",insert,small,");
    return text;
  });
  nlohmann::json meta = nlohmann::json::parse(slurp(dir / "meta.json"));
  meta["workloads"]["vacation-low"] = {{"family", "stamp"}, {"work", "per-thread"}};
  std::ofstream(dir / "meta.json") << meta.dump(2);
  const FigurePlan plan = prepare();
  const Figure* speedup = nullptr;
  for (const Figure& f : plan.figures)
    if (f.name.rfind("speedup-vacation-low", 0) == 0) speedup = &f;
  ASSERT_NE(speedup, nullptr);
  EXPECT_NE(speedup->name, "speedup-vacation-low") << "the group is named with its size";
  std::string ideal;
  for (const auto& [name, value] : speedup->vars)
    if (name == "ideal") ideal = value;
  EXPECT_EQ(ideal, "'flat'") << speedup->name;
}

TEST_F(Figures, AbortRateIsTheMedianOverRepsOfTransactionalRuns) {
  FigurePlan plan = prepare();
  ASSERT_TRUE(find(plan, "aborts-t2"));
  // The median run and whiskers at the lowest and highest: glibc 10, 8, 6%; jemalloc 20, 15%; tbbmalloc 0.
  EXPECT_EQ(slurp(data("aborts-t2")),
            "\"group\" \"glibc\" \"glibc low\" \"glibc high\" \"jemalloc\" \"jemalloc low\" \"jemalloc high\" "
            "\"tbbmalloc\" \"tbbmalloc low\" \"tbbmalloc high\"\n"
            "\"vacation-low\" 8 6 10 17.5 15 20 0 0 0\n");  // maps rows have no attempts: not a row
  const Figure* f = find(plan, "aborts-t2");
  EXPECT_EQ(f->caption.find("false conflict"), std::string::npos) << "the figure does not measure why";
  EXPECT_NE(f->caption.find("lowest to the highest run"), std::string::npos);
  EXPECT_TRUE(contains(plan.skipped, "aborts-t1: no transaction attempt aborted at 1 thread"));
  EXPECT_FALSE(fs::exists(data("aborts-t1")));
}

TEST_F(Figures, MemoryLadderInMiBWithWhatEachAllocatorTells) {
  FigurePlan plan = prepare();
  const Figure* f = find(plan, "memory-vacation-low");
  ASSERT_TRUE(f);
  EXPECT_EQ(slurp(data("memory-vacation-low")),
            "\"group\" \"requested peak\" \"requested peak low\" \"requested peak high\" \"usable peak\" "
            "\"usable peak low\" \"usable peak high\" \"allocator resident (end)\" \"allocator resident (end) low\" "
            "\"allocator resident (end) high\" \"RSS (end)\" \"RSS (end) low\" \"RSS (end) high\" \"PSS (end)\" "
            "\"PSS (end) low\" \"PSS (end) high\"\n"
            "\"glibc\" 2 2 2 2.25 2.25 2.25 NaN NaN NaN 6 6 6 5 5 5\n"
            "\"jemalloc\" 2 2 2 2.5 2.5 2.5 3 3 3 7 7 7 6 6 6\n"
            "\"tbbmalloc\" 2 2 2 2.375 2.375 2.375 NaN NaN NaN 8 8 8 7 7 7\n");
  // A folder from before memprof measured the allocators' mappings: jemalloc's
  // own figure, and none for glibc (only mapped bytes, never a resident bar) or tbbmalloc.
  EXPECT_EQ(f->notes, (std::vector<std::string>{
                          "allocator resident as the allocator reports it (glibc: the resident pages of its heaps and "
                          "mmapped chunks), not measured by memprof: jemalloc",
                          "allocator resident not available for glibc, tbbmalloc (neither it nor memprof measured it: "
                          "profiled with an older memprof?): bar left out"}))
      << "mapped bytes (glibc) never share a bar with resident ones (jemalloc)";
}

// The series figure's legend names each line by its allocator, a name with a
// space included ("jemalloc #2" is the same allocator with another library):
// gnuplot's word() takes each quoted name whole. (Joined with spaces, the
// second line was labelled "jemalloc" and the third "#2".)
TEST_F(Figures, SeriesLegendTakesEachAllocatorsWholeName) {
  edit_runs([](std::string text) {
    // An alloc_env column: jemalloc's run 11 ran with a variable of its own.
    std::istringstream in(text);
    std::string out, line;
    for (int n = 0; std::getline(in, line); ++n)
      out += line + (n == 0 ? "" : n == 1 ? ",alloc_env" : line.rfind("11,", 0) == 0 ? ",MALLOC_CONF=narenas:1" : ",") + "\n";
    return out;
  });
  FigurePlan plan = prepare();
  const Figure* f = find(plan, "series-vacation-low");
  ASSERT_TRUE(f);
  std::string names;
  for (const auto& [name, value] : f->vars)
    if (name == "names") names = value;
  EXPECT_EQ(names, "'\"glibc\" \"jemalloc #2\"'");
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/gnuplot"), "gnuplot");
  const testing::CommandResult said =
      testing::run_command({"/usr/bin/gnuplot", "-e", "names=" + names + "; print words(names); print word(names, 2)"});
  EXPECT_EQ(said.err + said.out, "2\njemalloc #2\n");
}

TEST_F(Figures, SeriesUsesRepOneAtTheMostThreads) {
  FigurePlan plan = prepare();
  const Figure* f = find(plan, "series-vacation-low");
  ASSERT_TRUE(f);
  std::string text = slurp(data("series-vacation-low"));
  // Run 1 (1 thread) has points too, but runs 10 and 11 are rep 1 at 2 threads.
  EXPECT_NE(text.find("# glibc, run 10:"), std::string::npos);
  EXPECT_NE(text.find("\n\n\n# jemalloc, run 11:"), std::string::npos);
  EXPECT_EQ(text.find("run 1:"), std::string::npos);
  EXPECT_NE(text.find("\n0.01 2 6\n0.02 1 NaN\n"), std::string::npos);  // MiB; an empty rss_kb is NaN
  EXPECT_EQ(f->notes, (std::vector<std::string>{"no series points for tbbmalloc: line left out"}));
  EXPECT_TRUE(contains(plan.skipped, "series-maps-insert-std_map: no ok run of maps-insert-std_map has series points"));
}

TEST_F(Figures, RegionsStackAllocationsAndFrees) {
  FigurePlan plan = prepare();
  // Every allocator saw the same calls: one bar group, not one per allocator.
  // Thousands; then the lowest and highest run's totals (1.5 allocations, 1.2 frees: every run alike).
  EXPECT_EQ(line_of(data("regions-vacation-low"), "\"every"), "\"every allocator (3)\" 1 0.2 0.3 0.9 0.2 0.1 1.5 1.5 1.2 1.2");
  EXPECT_EQ(line_of(data("regions-vacation-low"), "\"glibc\""), "");
  EXPECT_NE(find(plan, "regions-vacation-low")->caption.find("the same under every allocator"), std::string::npos);
  EXPECT_EQ(line_of(data("regions-vacation-low"), "#"),
            "# allocs_seq_count allocs_par_count allocs_tx_count frees_seq_count frees_par_count frees_tx_count "
            "allocs_low allocs_high frees_low frees_high (thousands; the last four: the lowest and highest run's totals)");
  // Counts that differ by allocator keep a bar group each.
  edit_runs([](std::string text) { return std::regex_replace(text, std::regex("(,jemalloc,ml_wt,2,[0-9]+,ok,0,,[0-9]+,[0-9]+,)([0-9]+),"), "$011500,"); });
  prepare();
  EXPECT_NE(line_of(data("regions-vacation-low"), "\"jemalloc\""), "");
}

TEST_F(Figures, BytesAndTimePerElementPerContainer) {
  lengthen_map_phases();
  FigurePlan plan = prepare();
  const std::string header = "\"group\" \"glibc\" \"glibc low\" \"glibc high\" \"jemalloc\" \"jemalloc low\" "
                             "\"jemalloc high\" \"tbbmalloc\" \"tbbmalloc low\" \"tbbmalloc high\"\n";
  EXPECT_EQ(slurp(data("bytes-per-element-requested")), header +
            "\"maps-insert-std_map\" 48 48 48 48 48 48 48 48 48\n"
            "\"maps-insert-absl_btree_map\" 20 20 20 20 20 20 20 20 20\n");
  // The fixture has no heap_usable_phase_end_bytes column: glibc's runs carry it in extra. The
  // others have none at all: their bars are left out, not drawn as empty slots, the note says why.
  EXPECT_EQ(slurp(data("bytes-per-element-usable")),
            "\"group\" \"glibc\" \"glibc low\" \"glibc high\"\n"
            "\"maps-insert-std_map\" 56 56 56\n"
            "\"maps-insert-absl_btree_map\" 24 24 24\n");
  const Figure* usable = find(plan, "bytes-per-element-usable");
  ASSERT_TRUE(usable);
  EXPECT_EQ(usable->notes,
            (std::vector<std::string>{"no heap_usable_phase_end_bytes under jemalloc, tbbmalloc: bars left out"}));
  // The fixture's runs report no RSS before the fill: what the fill added is unknown, no RSS figure.
  EXPECT_TRUE(contains(plan.skipped, "bytes-per-element-rss: no run reported the RSS before the fill (rss_baseline_kb): what the fill added is unknown"));
  // glibc 10000 and 12000 ns per element: the median and both runs; jemalloc 9000 and 9000, tbbmalloc 8000 and 10000.
  EXPECT_EQ(line_of(data("insert-time"), "\"maps-insert-std_map\""),
            "\"maps-insert-std_map\" 11000 10000 12000 9000 9000 9000 9000 8000 10000");
  EXPECT_EQ(find(plan, "insert-time")->title, "Time per inserted element, 1 thread (size tiny): median, ns");
}

// Per-element figures come from the fewest threads (one container, not shards), and
// a churn workload's time is not a time per insert.
TEST_F(Figures, PerElementFiguresUseOneThreadAndLeaveChurnOutOfInsertTime) {
  lengthen_map_phases();
  edit_runs([](std::string text) {
    std::string out, line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
      out += line + "\n";
      if (line.find(",maps-insert-std_map,insert,") == std::string::npos) continue;
      std::string churn = "8" + line;  // another run (run_id 8...)
      churn.replace(churn.find(",maps-insert-std_map,insert,"), 28, ",maps-churn-std_map,churn,");
      out += churn + "\n";
      // The same run at 2 threads (run_id 9..., threads 2), 100 times slower.
      std::vector<std::string> fields;
      std::istringstream cells(line);
      for (std::string f; std::getline(cells, f, ',');) fields.push_back(f);
      fields[0] = "9" + fields[0];
      fields[6] = "2";
      fields[12] = std::to_string(std::stoll(fields[12]) * 100);  // elapsed_ns
      std::string two;
      for (const auto& f : fields) two += (two.empty() ? "" : ",") + f;
      out += two + "\n";
    }
    return out;
  });
  FigurePlan plan = prepare();
  EXPECT_EQ(line_of(data("insert-time"), "\"maps-insert-std_map\""),
            "\"maps-insert-std_map\" 11000 10000 12000 9000 9000 9000 9000 8000 10000");
  EXPECT_EQ(line_of(data("insert-time"), "\"maps-churn-std_map\""), "");
  EXPECT_NE(line_of(data("bytes-per-element-requested"), "\"maps-churn-std_map\""), "");
}

// The caption counts the runs the figure draws: at each container's fewest
// threads (2 per cell), not the 4 per cell the same containers ran at 2
// threads ("2 to 4 per cell" once, with whiskers from 2 runs).
TEST_F(Figures, PerElementCaptionsCountTheRunsDrawn) {
  lengthen_map_phases();
  each_run_line([](const std::string& line) {
    std::string out = line + "\n";
    if (line.find(",maps-insert-") == std::string::npos) return out;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string f; std::getline(cells, f, ',');) fields.push_back(f);
    fields[6] = "2";
    for (const char* prefix : {"8", "9"}) {  // two runs at 2 threads for each at 1
      std::string two = prefix;
      two += fields[0];
      for (std::size_t i = 1; i < fields.size(); ++i) two += "," + fields[i];
      out += two + "\n";
    }
    return out;
  });
  const FigurePlan plan = prepare();
  for (const char* name : {"bytes-per-element-requested", "insert-time"}) {
    const Figure* f = find(plan, name);
    ASSERT_TRUE(f) << name;
    EXPECT_NE(f->caption.find(", 2 per cell."), std::string::npos) << name << ": " << f->caption;
  }
}

// An allocator with no run at all of a workload (an interrupted sweep's last
// ones) leaves its heatmap cell blank, named in a note; a workload only the
// reference ran leaves its row out, named too (both were silent).
TEST_F(Figures, TheTimeHeatmapNamesWhatItLeavesBlankOrOut) {
  keep_runs([](const std::string& line) {
    return line.find(",vacation-low,") == std::string::npos || line.find(",ml_wt,1,") == std::string::npos ||
           line.find(",glibc,") != std::string::npos || line.find(",tbbmalloc,") != std::string::npos;
  });
  EXPECT_NE(notes_of("time-t1").find("for jemalloc on vacation-low: cells left blank\n"), std::string::npos)
      << notes_of("time-t1");
  lengthen_map_phases();  // the maps' cells drawn beside the row left out
  keep_runs([](const std::string& line) {
    return line.find(",vacation-low,") == std::string::npos || line.find(",ml_wt,1,") == std::string::npos ||
           line.find(",glibc,") != std::string::npos;
  });
  EXPECT_NE(notes_of("time-t1").find("only glibc ran vacation-low at 1 thread: nothing to compare, row left out\n"),
            std::string::npos)
      << notes_of("time-t1");
}

// A map run's phase too short to time has no insert-time bar: the fixture's
// 0.1 ms phases give no figure (said, with the reason), and where only
// glibc's are long enough the others' bars are left out and named (they were
// ranked, as if jemalloc ran faster, beside tables that call them too short).
TEST_F(Figures, InsertTimeLeavesOutPhasesTooShortToTime) {
  FigurePlan all_short = prepare();
  EXPECT_FALSE(find(all_short, "insert-time"));
  EXPECT_TRUE(contains(all_short.skipped, "insert-time: every measured phase of the map runs is under 2 ms, too short to time: "
                                          "no time-per-insert figure (use a larger --size)"))
      << ::testing::PrintToString(all_short.skipped);
  lengthen_map_phases("glibc");
  const std::string notes = notes_of("insert-time");
  EXPECT_NE(notes.find("too short to time (a measured phase under 2 ms: use a larger --size): jemalloc "
                       "(maps-insert-std_map), tbbmalloc (maps-insert-std_map), jemalloc (maps-insert-absl_btree_map), "
                       "tbbmalloc (maps-insert-absl_btree_map): bar left out"),
            std::string::npos)
      << notes;
  EXPECT_EQ(slurp(data("insert-time")).find("\"jemalloc\""), std::string::npos) << slurp(data("insert-time"));
}

// A churn container reports no RSS before its fill: in the RSS figure it has
// no bar under any allocator, and is left out rather than drawn as an empty
// cluster (issue 58: the map workloads' 8 churn containers were 8 empty slots),
// with the note that says why.
TEST_F(Figures, AContainerWithoutAnyRssBarLeavesNoEmptyCluster) {
  edit_runs([](std::string text) {
    std::string out, line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
      if (line.find(",maps-insert-std_map,insert,") == std::string::npos) {
        out += line + "\n";
        continue;
      }
      out += std::regex_replace(line, std::regex("elements_count=1000"), "elements_count=1000;rss_baseline_kb=1950") + "\n";
      std::string churn = "8" + line;  // the same run of a churn container (run_id 8...), no RSS before its fill
      churn.replace(churn.find(",maps-insert-std_map,insert,"), 28, ",maps-churn-std_map,churn,");
      out += churn + "\n";
    }
    return out;
  });
  FigurePlan plan = prepare();
  const Figure* rss = find(plan, "bytes-per-element-rss");
  ASSERT_TRUE(rss);
  EXPECT_NE(line_of(data("bytes-per-element-rss"), "\"maps-insert-std_map\""), "");
  EXPECT_EQ(line_of(data("bytes-per-element-rss"), "\"maps-churn-std_map\""), "") << slurp(data("bytes-per-element-rss"));
  EXPECT_EQ(line_of(data("bytes-per-element-rss"), "\"maps-insert-absl_btree_map\""), "")
      << "absl_btree_map's runs report no RSS before the fill either";
  EXPECT_TRUE(contains(rss->notes, "no RSS before the fill (rss_baseline_kb) for maps-churn-std_map, "
                                   "maps-insert-absl_btree_map: what the fill added is unknown, its RSS bar left out"))
      << ::testing::PrintToString(rss->notes);
  EXPECT_EQ(rss->notes.size(), 1u) << "said once: " << ::testing::PrintToString(rss->notes);
  EXPECT_NE(line_of(data("bytes-per-element-requested"), "\"maps-churn-std_map\""), "") << "it has requested bytes";
}

// Any bar chart: a row (a cluster) with no value in any series, or a series
// with no value in any row, is left out, and named in a note unless the
// figure's own notes already say why.
TEST(FigureKit, EmptyClustersAndSeriesAreLeftOutAndSaid) {
  figures::Bars bars;
  bars.series = {"glibc", "jemalloc", "mimalloc"};
  bars.rows = {"a", "b", "c", "d"};
  const figures::Value none, some{2, 1, 3};
  bars.values = {{some, none, some}, {none, none, none}, {some, none, none}, {none, none, none}};
  bars.explained = {"d"};
  std::vector<std::string> notes;
  figures::leave_out_empty_slots(bars, notes);
  EXPECT_EQ(bars.rows, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(bars.series, (std::vector<std::string>{"glibc", "mimalloc"}));
  ASSERT_EQ(bars.values.size(), 2u);
  EXPECT_EQ(bars.values[1].size(), 2u);
  EXPECT_TRUE(std::isnan(bars.values[1][1].value)) << "c has no mimalloc bar: a bar left out inside its cluster";
  EXPECT_EQ(notes, (std::vector<std::string>{"no value at all for b, jemalloc: left out, not drawn as an empty slot"}));
}

TEST_F(Figures, OneAllocatorGivesOneBytesPerElementFigureWithAllMeasures) {
  keep_runs([](const std::string& line) {
    return line.find("maps-insert") == std::string::npos || line.find(",glibc,") != std::string::npos;
  });
  FigurePlan plan = prepare();
  ASSERT_TRUE(find(plan, "bytes-per-element"));
  EXPECT_FALSE(find(plan, "bytes-per-element-requested"));
  // No container has an RSS bar: that series is left out (no empty slot in every cluster), the note says why.
  EXPECT_EQ(slurp(data("bytes-per-element")),
            "\"group\" \"requested\" \"requested low\" \"requested high\" \"usable\" \"usable low\" \"usable high\"\n"
            "\"maps-insert-std_map\" 48 48 48 56 56 56\n"
            "\"maps-insert-absl_btree_map\" 20 20 20 24 24 24\n");
  EXPECT_EQ(find(plan, "bytes-per-element")->notes,
            (std::vector<std::string>{"no RSS before the fill (rss_baseline_kb) for maps-insert-absl_btree_map, "
                                      "maps-insert-std_map: what the fill added is unknown, its RSS bar left out"}));
}

// RSS per element is what the fill added: the RSS before it (rss_baseline_kb)
// is taken off. std_map's runs end at 2000 and 2100 KiB, 1950 before each:
// a median of 100 KiB over 1000 elements, 102.4 bytes each (the whole RSS
// would say 2099.2).
TEST_F(Figures, RssPerElementLeavesOutTheRssBeforeTheFill) {
  keep_runs([](const std::string& line) {
    return line.find("maps-insert") == std::string::npos || line.find(",glibc,") != std::string::npos;
  });
  edit_runs([](std::string text) {
    return std::regex_replace(text, std::regex("elements_count=1000"), "elements_count=1000;rss_baseline_kb=1950");
  });
  FigurePlan plan = prepare();
  // The median of 50 and 150 KiB added is 100 KiB (102.4 B each); the whiskers 51.2 and 153.6.
  EXPECT_EQ(line_of(data("bytes-per-element"), "\"maps-insert-std_map\""),
            "\"maps-insert-std_map\" 48 48 48 56 56 56 102.4 51.2 153.6");
  EXPECT_TRUE(find(plan, "bytes-per-element")->notes.empty());
}

TEST_F(Figures, AMissingMetricGivesAMessageAndNoFile) {
  edit_runs([](std::string text) { return std::regex_replace(text, std::regex("heap_usable_phase_end_bytes="), "other="); });
  fs::remove(dir / "series.csv");
  FigurePlan plan = prepare();
  EXPECT_FALSE(find(plan, "bytes-per-element-usable"));
  EXPECT_FALSE(fs::exists(data("bytes-per-element-usable")));
  EXPECT_TRUE(contains(plan.skipped, "bytes-per-element-usable: no run reported heap_usable_phase_end_bytes (as a column or a key in extra)"));
  EXPECT_TRUE(contains(plan.skipped, "series: series.csv has no points (the sweep ran with --no-series): no memory-over-time figures"));
  EXPECT_FALSE(fs::exists(data("series-vacation-low")));
  EXPECT_TRUE(find(plan, "bytes-per-element-requested"));  // the others are still drawn
}

TEST_F(Figures, NoMapRunsNoBytesPerElement) {
  edit_runs([](std::string text) { return std::regex_replace(text, std::regex("elements_count=1000;?"), ""); });
  FigurePlan plan = prepare();
  EXPECT_TRUE(contains(plan.skipped, "bytes-per-element: no ok run reported elements_count (the map workloads do): no bytes-per-element figures"));
  EXPECT_FALSE(find(plan, "insert-time"));
}

TEST_F(Figures, MalformedFoldersAreRefused) {
  EXPECT_THROW(load_results(dir / "absent"), UsageError);
  fs::create_directories(dir / "empty");
  EXPECT_THROW(load_results(dir / "empty"), UsageError);
  std::ofstream(dir / "meta.json", std::ios::trunc) << "{ not json";
  EXPECT_THROW(load_results(dir), UsageError);
  fs::remove(dir / "meta.json");
  EXPECT_EQ(load_results(dir).notes,
            (std::vector<std::string>{"the folder has no meta.json: the setup and the figures' machine stamp are unknown"}));
  edit_runs([](std::string text) { return std::regex_replace(text, std::regex(",status,"), ",state,"); });
  try {
    load_results(dir);
    FAIL() << "a runs.csv without status was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("runs.csv lacks the column 'status'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace allocstamp

namespace allocstamp {
namespace {

// The mechanism figure: each allocator's time ratio beside its mechanisms'
// ratios to the reference, from the same estimates as the summary; a figure
// no allocator has (page faults in a folder older than schema 5) has no bar.
TEST_F(Figures, MechanismsAreRatiosToTheReferenceBesideTheTime) {
  // Transaction attempts that vary from run to run at 2 threads (the fixture's are all 1000): intervals with a width.
  each_run_line([](const std::string& line) {
    if (line.find(",vacation-low,vacation-low,tiny,") == std::string::npos || line.find(",ml_wt,2,") == std::string::npos ||
        line.find(",ok,") == std::string::npos)
      return line + "\n";
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string f; std::getline(cells, f, ',');) fields.push_back(f);
    fields[27] = std::to_string(1000 + std::stoi(fields[0]) * 37 % 101);  // tx_attempts_count
    std::string out;
    for (const auto& f : fields) out += (out.empty() ? "" : ",") + f;
    return out + "\n";
  });
  ResultsView view = load_results(dir);
  std::vector<CellSummary> cells = summarize_cells(view);
  FigurePlan plan = prepare_figures(view, cells);
  const Figure* f = find(plan, "mechanisms-vacation-low");
  ASSERT_TRUE(f);
  const std::string data = slurp(this->data("mechanisms-vacation-low"));
  EXPECT_EQ(data.substr(0, data.find('\n')),
            "\"group\" \"time\" \"time low\" \"time high\" \"transaction attempts\" \"transaction attempts low\" "
            "\"transaction attempts high\"")
      << "the fixture (schema 1) has no faults or switches: no bar for them";
  for (const CellSummary& c : cells) {
    if (c.group == "vacation-low" && c.threads == 2 && c.allocator == "jemalloc") {
      EXPECT_NE(data.find("\"jemalloc\" " + data_number(c.time_vs_reference.value)), std::string::npos)
          << "the time bar is the summary's ratio: " << data;
    }
  }
  EXPECT_EQ(data.find("\"glibc\""), std::string::npos) << "the reference is the line at 1, not a bar";
  // A mechanism's whiskers are at its family's level, as the title says, not the ratio's own 95%.
  const stats::FamilyCorrection family = mechanism_family(view.cells);
  ASSERT_GT(family.level, 0.95) << "a family of one would not tell the two apart";
  const Cell* je = view.cells.find("vacation-low", 2, "jemalloc");
  const Cell* ref = view.cells.find("vacation-low", 2, "glibc");
  ASSERT_TRUE(je && ref);
  const stats::Ratio own = view.cells.ratio(*je, *ref, "tx_attempts_count");
  const stats::Ratio shown = stats::at_level(own, family.level);
  std::istringstream row(data.substr(data.find("\"jemalloc\"")));
  std::string name;
  double time = 0, time_low = 0, time_high = 0, attempts = 0, low = 0, high = 0;
  row >> name >> time >> time_low >> time_high >> attempts >> low >> high;
  EXPECT_NEAR(attempts, own.value, 1e-6);
  EXPECT_NEAR(low, shown.ci_low, 1e-6);
  EXPECT_NEAR(high, shown.ci_high, 1e-6);
  EXPECT_LT(low, own.ci_low) << "wider than the ratio's own 95% interval";
}

// The micro-benchmarks other than the size ladder are drawn as each
// allocator's time over the reference's: jemalloc at half glibc's ns per
// operation is a bar at 0.5, below the line at 1 ("lower is faster").
TEST_F(Figures, MicroBenchmarksAreTheAllocatorsTimeOverTheReferences) {
  std::map<std::string, std::vector<std::string>> run_ids;  // allocator -> its vacation-low runs at 1 thread
  for (const std::string& line : std::vector<std::string>{[&] {
         std::vector<std::string> lines;
         std::istringstream in(slurp(dir / "runs.csv"));
         for (std::string l; std::getline(in, l);) lines.push_back(l);
         return lines;
       }()})
    for (const char* a : {"glibc", "jemalloc"})
      if (line.find(std::string(",vacation-low,vacation-low,tiny,") + a + ",ml_wt,1,") != std::string::npos)
        run_ids[a].push_back(line.substr(0, line.find(',')));
  ASSERT_EQ(run_ids["glibc"].size(), 3u);
  ASSERT_EQ(run_ids["jemalloc"].size(), 3u);
  std::ofstream micro(dir / "micro.csv");
  micro << "# allocstamp micro.csv schema 9\n"
           "run_id,kind,benchmark,size_bytes,threads,repetition,iterations,real_ns_per_op,cpu_ns_per_op,items_per_s\n";
  for (int i = 0; i < 3; ++i)
    for (int rep = 1; rep <= 2; ++rep) {
      const double ns = 100 + 10 * i + rep;
      micro << run_ids["glibc"][i] << ",timed,batch/64,64,1," << rep << ",1000," << ns << "," << ns << ",0\n";
      micro << run_ids["jemalloc"][i] << ",timed,batch/64,64,1," << rep << ",1000," << ns / 2 << "," << ns / 2 << ",0\n";
    }
  micro.close();
  const FigurePlan plan = prepare();
  ASSERT_TRUE(find(plan, "micro-others-t1"));
  const std::string line = line_of(data("micro-others-t1"), "\"batch/64\"");
  ASSERT_FALSE(line.empty()) << slurp(data("micro-others-t1"));
  std::istringstream row(line);
  std::string name;
  double glibc = 0, glibc_low = 0, glibc_high = 0, jemalloc = 0;
  row >> name >> glibc >> glibc_low >> glibc_high >> jemalloc;
  EXPECT_NEAR(glibc, 1, 1e-12) << line;
  EXPECT_NEAR(jemalloc, 0.5, 1e-9) << line;
}

// A mechanism some runs of a side counted 0 has no ratio of geometric means:
// no bar, and a note says why (the caption promises it). jemalloc's system-time
// share is 0 in its first repetition and 20 in the others against glibc's 10:
// its bar was once 2.0 from the others alone, with no sign of the zero.
TEST_F(Figures, AMechanismSomeRunsCountedZeroHasNoBar) {
  each_run_line([](const std::string& line) {
    if (line.rfind("run_id,", 0) == 0) return line + ",sys_share_pct\n";
    if (line.empty() || line[0] == '#') return line + "\n";
    if (line.find(",jemalloc,") == std::string::npos) return line + ",10\n";
    return line + (line.find(",tiny,jemalloc,ml_wt,2,1,") != std::string::npos ? ",0\n" : ",20\n");
  });
  const std::string notes = notes_of("mechanisms-vacation-low");
  EXPECT_NE(notes.find("no bar where a run of either side counted 0 (no ratio of geometric means): jemalloc's "
                       "system-time share"),
            std::string::npos)
      << notes;
  const std::string data = slurp(this->data("mechanisms-vacation-low"));
  const std::string jemalloc = data.substr(data.find("\"jemalloc\""));
  EXPECT_EQ(jemalloc.find(" 2 "), std::string::npos) << "no bar of 2 from the runs that were not 0: " << data;
}

// A ratio from one run of a side has no interval: its bar is drawn without
// whiskers, which reads as exact unless a note says why (jemalloc keeps one of
// its three runs at 2 threads; tbbmalloc, with all three, is not named).
TEST_F(Figures, BarsWithoutWhiskersForWantOfRunsAreNamed) {
  EXPECT_EQ(notes_of("mechanisms-vacation-low").find("without whiskers"), std::string::npos) << "three runs a side";
  keep_runs([](const std::string& line) {
    return line.find(",tiny,jemalloc,ml_wt,2,") == std::string::npos || line.find(",tiny,jemalloc,ml_wt,2,1,") != std::string::npos;
  });
  const std::string notes = notes_of("mechanisms-vacation-low");
  EXPECT_NE(notes.find("without whiskers for want of runs (one on a side: no interval, no spread), not because they "
                       "are exact: jemalloc's time, jemalloc's transaction attempts\n"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("tbbmalloc's time"), std::string::npos) << notes;
}

// The mechanism figure's note on kernel calls and the findings never
// disagree: where the reference's calls are measured (every allocator but
// glibc) the note gives them too, and says "not measurable" only for glibc.
TEST_F(Figures, KernelCallsNoteNamesTheReferencesOwnWhereMeasured) {
  give_mmap_calls("8", "4");
  const std::string with_glibc = notes_of("mechanisms-vacation-low");
  EXPECT_NE(with_glibc.find("(glibc's are not measurable"), std::string::npos) << with_glibc;
  keep_runs([](const std::string& line) { return line.find(",glibc,") == std::string::npos; });
  const std::string jemalloc_reference = notes_of("mechanisms-vacation-low");
  EXPECT_NE(jemalloc_reference.find("profiled runs' medians: jemalloc 5.33, tbbmalloc 2.67"), std::string::npos)
      << jemalloc_reference;
  EXPECT_EQ(jemalloc_reference.find("not measurable"), std::string::npos) << jemalloc_reference;
}

// A kernel-call count of 0 is said as the count, as the findings say it
// ("its mmap calls 0 against 8"), never as a rate of "0.00" (issue 58).
TEST_F(Figures, AZeroKernelCallCountReadsAsTheCountsNotARate) {
  give_mmap_calls("8", "0");
  const std::string with_glibc = notes_of("mechanisms-vacation-low");
  EXPECT_NE(with_glibc.find("profiled runs' medians: jemalloc 5.33, tbbmalloc 0 calls (glibc's are not measurable"),
            std::string::npos)
      << with_glibc;
  keep_runs([](const std::string& line) { return line.find(",glibc,") == std::string::npos; });
  const std::string jemalloc_reference = notes_of("mechanisms-vacation-low");
  EXPECT_NE(jemalloc_reference.find("profiled runs' medians: jemalloc 5.33, tbbmalloc 0 calls against jemalloc's 8"),
            std::string::npos)
      << jemalloc_reference;
  EXPECT_EQ(jemalloc_reference.find("0.00"), std::string::npos) << jemalloc_reference;
}

// Each kind's file and its script pair by name (time.cpp and time.gp), every
// figure a kind makes is drawn by its kind's script, every script here is a
// kind's or one that kinds' scripts load, and figures/README.md names every
// kind with its file (issue 48).
TEST(FigureKinds, EachFilePairsWithItsScriptAndTheReadmeNamesIt) {
  const fs::path folder = fs::path(SOURCE_DIR) / "harness" / "driver" / "figures";
  std::ifstream readme_file(folder / "README.md");
  std::stringstream readme;
  readme << readme_file.rdbuf();
  std::set<std::string> scripts_of_kinds;
  for (const FigureKind& kind : figure_kinds()) {
    EXPECT_TRUE(fs::exists(folder / (kind.file + ".cpp"))) << kind.name << ": no " << kind.file << ".cpp";
    EXPECT_TRUE(fs::exists(folder / (kind.file + ".gp"))) << kind.name << ": no " << kind.file << ".gp beside " << kind.file << ".cpp";
    EXPECT_NE(readme.str().find("`" + kind.file + ".cpp` (" + kind.name), std::string::npos)
        << "figures/README.md does not name the kind " << kind.name << " as `" << kind.file << ".cpp` (" << kind.name << " ...)";
    scripts_of_kinds.insert(kind.file + ".gp");
  }
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".gp" || scripts_of_kinds.count(name)) continue;
    bool loaded = false;  // a shared script: some kind's script loads it
    for (const std::string& script : scripts_of_kinds) {
      std::ifstream in(folder / script);
      std::stringstream text;
      text << in.rdbuf();
      loaded = loaded || text.str().find("load '" + name + "'") != std::string::npos;
    }
    EXPECT_TRUE(loaded) << name << " is no kind's script, and no kind's script loads it";
  }
}

}  // namespace
}  // namespace allocstamp
