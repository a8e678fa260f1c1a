// plot_e2e_test — `bench plot` through the real binary on a copy of the fixture
// folder: a PNG and an SVG for every figure that applies, report.md and
// report.html naming each; exit 2 for a missing or malformed folder, exit 1
// without gnuplot; `make plots` keeps the build quiet. The drawing tests skip
// when gnuplot is not installed (and fail under CI=true).
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "figures/figures.h"
#include "key_names.h"
#include "results/runs.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using Result = testing::CommandResult;
using testing::slurp;

// The figures the fixture has data for (tests/fixtures/plot).
const std::vector<std::string> kFigures = {
    "time-t1", "time-t2", "speedup-vacation-low", "aborts-t2", "memory-vacation-low", "memory-maps-insert-std_map",
    "memory-maps-insert-absl_btree_map", "mechanisms-vacation-low", "series-vacation-low", "regions-vacation-low", "regions-maps-insert-std_map",
    "regions-maps-insert-absl_btree_map", "bytes-per-element-requested", "bytes-per-element-usable"};

class PlotEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("plot-e2e-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
    dir = root / "results";
    fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(root); }

  // Runs `bench plot <args>`; `path` replaces PATH when given.
  Result plot(std::vector<std::string> args, const char* path = nullptr) {
    args.insert(args.begin(), {BENCH_BINARY, "plot"});
    testing::CommandOptions options;
    if (path) options.env = {std::string("PATH=") + path};
    return testing::run_command(args, options);
  }

  static bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

  fs::path root, dir;
};

TEST_F(PlotEndToEnd, DrawsEveryFigureThatAppliesAndTheReport) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  fs::create_directories(dir / "figures");
  std::ofstream(dir / "figures" / "stale.png") << "from an earlier plot";
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string md = slurp(dir / "report.md"), html = slurp(dir / "report.html");
  // The map cells' times are too short to time and they have no mechanism measured:
  // no bar, and the reason is theirs (it once said no other allocator ran).
  EXPECT_NE(testing::flat(r.out).find("skipped mechanisms-maps-insert-std_map: no bar to draw: no time ratio (too short "
                                      "to time, or unstable) and no mechanism measured for jemalloc (too short), "
                                      "tbbmalloc (too short)"),
            std::string::npos)
      << r.out;
  for (const auto& name : kFigures) {
    std::string png = slurp(dir / "figures" / (name + ".png")), svg = slurp(dir / "figures" / (name + ".svg"));
    EXPECT_EQ(png.substr(0, 4), "\x89PNG") << name;
    EXPECT_NE(svg.find("<svg"), std::string::npos) << name;
    EXPECT_NE(r.out.find("drew    figures/" + name + ".png and .svg"), std::string::npos) << name;
    EXPECT_NE(md.find("](figures/" + name + ".png)"), std::string::npos) << name;
    EXPECT_NE(html.find("<img src=\"figures/" + name + ".png\""), std::string::npos) << name;
  }
  // Figures that do not apply are named with the reason, and leave no file.
  EXPECT_NE(r.out.find("skipped aborts-t1: no transaction attempt aborted at 1 thread"), std::string::npos) << r.out;
  EXPECT_NE(md.find("aborts-t1: no transaction attempt aborted at 1 thread"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "figures" / "aborts-t1.png"));
  EXPECT_FALSE(fs::exists(dir / "figures" / "stale.png"));
  EXPECT_NE(testing::flat(r.out).find("report: " + (dir / "report.md").string()), std::string::npos) << r.out;
  // The fixture's map runs report no RSS before the fill: what the fill added is unknown.
  EXPECT_NE(r.out.find("skipped bytes-per-element-rss: no run reported the RSS before the fill"), std::string::npos) << r.out;
  // (Lines wrap at 120 columns: read as one text.)
  const std::string flat = std::regex_replace(r.out, std::regex("\n +"), " ");
  EXPECT_NE(flat.find("(14 figure(s), 10 not drawn)"), std::string::npos) << r.out;
}

// The table of figure kinds (figures.cpp) is what bench plot makes: each kind
// drew a figure from the fixture or said why not, every figure drawn belongs
// to a kind, and every kind's gnuplot scripts are beside its code.
TEST_F(PlotEndToEnd, EveryFigureKindOfTheTableIsDrawnOrExplained) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto starts = [](const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; };
  std::vector<std::string> drawn, skipped;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (starts(line, "drew    figures/")) drawn.push_back(line.substr(16));
    if (starts(line, "skipped ")) skipped.push_back(line.substr(8));
  }
  ASSERT_FALSE(figure_kinds().empty());
  for (const FigureKind& kind : figure_kinds()) {
    bool accounted = false;
    for (const std::string& prefix : kind.prefixes)
      for (const auto* names : {&drawn, &skipped})
        for (const std::string& name : *names) accounted = accounted || starts(name, prefix);
    EXPECT_TRUE(accounted) << "the kind " << kind.name << " neither drew a figure nor said why:\n" << r.out;
    EXPECT_TRUE(fs::exists(fs::path(SOURCE_DIR) / "harness" / "driver" / "figures" / (kind.file + ".gp"))) << kind.file;
  }
  for (const std::string& name : drawn) {
    bool known = false;
    for (const FigureKind& kind : figure_kinds())
      for (const std::string& prefix : kind.prefixes) known = known || starts(name, prefix);
    EXPECT_TRUE(known) << name << " belongs to no kind of the table";
  }
}

// The micro-benchmarks' two figures, both drawn by micro.gp (its size
// ladder as lines, the other benchmarks through bars.gp), from a sweep made
// here: the fixture holds no micro-benchmark.
TEST_F(PlotEndToEnd, TheMicroBenchmarksFiguresAreDrawnByTheirScript) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  const fs::path micro = root / "micro";
  testing::CommandOptions options;
  options.drop_prefixes = {"ALLOCSTAMP_"};
  const Result sweep = testing::run_command({BENCH_BINARY, "--alloc=glibc", "--workload=micro-malloc-free,micro-batch",
                                             "--threads=1", "--reps=2", "--no-profile", "--size=tiny", "--no-plot",
                                             "--out=" + micro.string()},
                                            options);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.out << sweep.err;
  const Result r = plot({micro.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* figure : {"micro-ladder-t1", "micro-others-t1"}) {
    EXPECT_NE(r.out.find(std::string("drew    figures/") + figure + ".png"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::exists(micro / "figures" / (std::string(figure) + ".svg"))) << figure;
  }
}

// `make plots` builds first, quietly: what it prints is the figures' and the
// report's; the build's output is shown only when the build fails.
TEST_F(PlotEndToEnd, MakePlotsKeepsTheBuildQuiet) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  auto make_plots = [&](const std::string& build, const std::string& path = "") {
    testing::CommandOptions options;
    options.timeout_seconds = 280;
    if (!path.empty()) options.env = {"PATH=" + path};
    return testing::run_command({"/usr/bin/make", "-C", SOURCE_DIR, "--no-print-directory", "plots", "BUILD=" + build,
                                 "PRESET_TYPE=" BUILD_TYPE, "JOBS=2", "DIR=" + dir.string()},
                                options);
  };
  // The build is current here: make plots only brings it up to date, without
  // the install check (install-deps asks dpkg-query about every package;
  // this one leaves a mark).
  const fs::path bin = root / "bin", mark = root / "dpkg-query-ran";
  fs::create_directories(bin);
  std::ofstream(bin / "dpkg-query") << "#!/bin/sh\necho ran >> '" << mark.string() << "'\nexec /usr/bin/dpkg-query \"$@\"\n";
  fs::permissions(bin / "dpkg-query", fs::perms::owner_all);
  Result r = make_plots(BUILD_DIR, bin.string() + ":/usr/bin:/bin");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(fs::exists(mark)) << "make plots ran the install check on a current build";
  EXPECT_NE(testing::flat(r.out).find("report: " + (dir / "report.md").string()), std::string::npos) << r.out;
  for (const char* noise : {"Built target", "-- Configuring done", "install-deps:", "cmake -S"}) {
    EXPECT_EQ(r.out.find(noise), std::string::npos) << noise << " in:\n" << r.out;
    EXPECT_EQ(testing::flat(r.err).find(noise), std::string::npos) << noise << " in:\n" << r.err;
  }
  // A build folder under a file cannot be made: cmake's own words, then why.
  std::ofstream(root / "a-file") << "";
  Result failed = make_plots((root / "a-file" / "build").string());
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_NE(testing::flat(failed.err).find("CMake Error"), std::string::npos) << failed.err;
  EXPECT_NE(testing::flat(failed.err).find("error: the build failed (its output is above)"), std::string::npos) << failed.err;
  EXPECT_EQ(failed.out.find("drew"), std::string::npos) << "nothing is drawn after a failed build";
}

// A NUL in meta.json's machine (issue 46, N8) reaches every figure's stamp:
// the figures are still drawn, the character shown as a space.
TEST_F(PlotEndToEnd, AControlCharacterInMetaStillDraws) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  std::string meta = slurp(dir / "meta.json");
  const auto at = meta.find("\"cpu\": \"Test CPU");
  ASSERT_NE(at, std::string::npos);
  meta.insert(at + std::string("\"cpu\": \"Test").size(), "\\u0000");
  std::ofstream(dir / "meta.json", std::ios::trunc) << meta;
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("failed"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(dir / "figures" / "time-t1.png").substr(0, 4), "\x89PNG");
}

TEST_F(PlotEndToEnd, AMissingOrMalformedFolderExits2) {
  Result missing = plot({(root / "absent").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(testing::flat(missing.err).rfind("error: " + (root / "absent").string() + " is not a folder — ", 0), 0u) << missing.err;

  fs::create_directories(root / "not-results");
  Result empty = plot({(root / "not-results").string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(testing::flat(empty.err).find("has no runs.csv — give a folder that bench wrote"), std::string::npos) << empty.err;
  EXPECT_FALSE(fs::exists(root / "not-results" / "figures"));

  std::ofstream(dir / "runs.csv", std::ios::trunc) << "# allocstamp runs.csv schema 1\nrun_id,workload\n1,churn\n";
  Result malformed = plot({dir.string()});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(testing::flat(malformed.err).find("runs.csv lacks the column 'app'"), std::string::npos) << malformed.err;
  EXPECT_FALSE(fs::exists(dir / "report.md"));
}

// A gnuplot that hangs on a figure is stopped at the figure's limit
// (ALLOCSTAMP_FIGURE_SECONDS, 60 s unless given), its process group with it;
// that figure is reported failed with the limit, the others are drawn. A
// limit that is not a number of seconds is refused before anything is drawn.
TEST_F(PlotEndToEnd, AGnuplotThatHangsIsStoppedAtTheFiguresLimit) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  const fs::path bin = root / "bin", pids = root / "sleeper-pids";
  fs::create_directories(bin);
  // The time figures' gnuplot hangs on a child of its own; every other is the real one.
  std::ofstream(bin / "gnuplot") << "#!/bin/sh\ncase \"$*\" in *time.gp*) sleep 15 & echo $! >> '" << pids.string()
                                 << "'; wait; exit 0 ;; esac\nexec /usr/bin/gnuplot \"$@\"\n";
  fs::permissions(bin / "gnuplot", fs::perms::owner_all);
  testing::CommandOptions options;
  options.env = {"PATH=" + bin.string() + ":/usr/bin:/bin", "ALLOCSTAMP_FIGURE_SECONDS=2"};
  options.timeout_seconds = 120;
  const auto started = std::chrono::steady_clock::now();
  Result r = testing::run_command({BENCH_BINARY, "plot", dir.string()}, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_LT(seconds, 12.0) << "stopped at the limit, not when the hanging child ends (15 s)";
  EXPECT_NE(r.out.find("failed  time-t1: gnuplot failed: stopped after 2 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("drew    figures/memory-vacation-low.png and .svg"), std::string::npos) << r.out;
  std::ifstream pid_file(pids);
  int sleepers = 0;
  for (pid_t pid; pid_file >> pid; ++sleepers) EXPECT_FALSE(testing::still_running(pid)) << "gnuplot's child " << pid;
  EXPECT_GE(sleepers, 1);

  std::ofstream(dir / "figures" / "kept.png") << "drawn before";
  options.env = {"ALLOCSTAMP_FIGURE_SECONDS=soon"};
  Result refused = testing::run_command({BENCH_BINARY, "plot", dir.string()}, options);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(testing::flat(refused.err).find("error: ALLOCSTAMP_FIGURE_SECONDS='soon' is not a number of seconds above 0"),
            std::string::npos)
      << refused.err;
  EXPECT_TRUE(fs::exists(dir / "figures" / "kept.png")) << "nothing is drawn over";
}

TEST_F(PlotEndToEnd, WithoutGnuplotExits1AndSaysHowToInstallIt) {
  Result r = plot({dir.string()}, (root / "empty-path").c_str());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(testing::flat(r.err).find("error: gnuplot is not installed"), std::string::npos) << r.err;
  EXPECT_NE(testing::flat(r.err).find("apt-get install gnuplot-nox"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "figures"));
}

// How each series of an SVG figure is drawn: per plot of gnuplot's (a
// `gnuplot_plot_N` group) the first filled shape's colour or hatch and the
// first line's colour and dashes (a point's shape alone, drawn only where the
// data are, is not enough to tell two lines apart); "" for a plot that draws
// neither (its labels, a title-less helper).
// Each plot of gnuplot's in an SVG figure (its `gnuplot_plot_N` group), in order.
std::vector<std::string> plot_groups(const std::string& svg) {
  std::vector<std::string> plots;
  const std::string mark = "<g id=\"gnuplot_plot_";
  for (std::size_t at = svg.find(mark); at != std::string::npos;) {
    const std::size_t next = svg.find(mark, at + 1);
    plots.push_back(svg.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return plots;
}

std::vector<std::string> series_styles(const std::string& svg) {
  std::vector<std::string> styles;
  for (const std::string& plot : plot_groups(svg)) {
    std::string style;
    std::smatch m;
    if (std::regex_search(plot, m, std::regex(R"(<pattern [^>]*>\s*<path style='([^']*)' d='([^']*)')")))
      style += "hatch " + m.str(1) + " " + m.str(2) + "; ";
    else if (std::regex_search(plot, m, std::regex(R"(<polygon fill = '([^']*)')")))
      style += "fill " + m.str(1) + "; ";
    if (std::regex_search(plot, m, std::regex(R"(<path stroke='([^']*)'( stroke-dasharray='([^']*)')?)")))
      style += "line " + m.str(1) + " dashes " + m.str(3) + "; ";
    styles.push_back(style);
  }
  return styles;
}

// Many series in one figure (--alloc=variants draws 13): each is its own,
// told apart by colour and dashes (or hatch, or point shape), never two alike
// (issue 58: past 8 the colours came round again, every line solid). The
// fixture's runs again under 12 more names make 15 allocators.
// An allocator keeps its colour in every figure, whichever allocators a figure
// leaves out: with no abort rate for jemalloc at 2 threads, tbbmalloc's bar is
// still tbbmalloc's green (#009E73), not jemalloc's orange (#E69F00), which it
// took when the colours went by position.
TEST_F(PlotEndToEnd, AnAllocatorKeepsItsColourWhereAnotherIsLeftOut) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  std::ofstream(dir / "runs.csv.new")
      << std::regex_replace(slurp(dir / "runs.csv"), std::regex(",jemalloc,ml_wt,2,([0-9]+),ok,"),
                            ",jemalloc,ml_wt,2,$1,crashed,");
  fs::rename(dir / "runs.csv.new", dir / "runs.csv");
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string svg = slurp(dir / "figures" / "aborts-t2.svg");
  ASSERT_NE(svg.find("<svg"), std::string::npos) << r.out;
  EXPECT_NE(svg.find("rgb(  0, 158, 115)"), std::string::npos) << "tbbmalloc's green";
  EXPECT_EQ(svg.find("rgb(230, 159,   0)"), std::string::npos) << "jemalloc's orange, on tbbmalloc's bar";
  EXPECT_NE(svg.find("rgb(  0, 114, 178)"), std::string::npos) << "glibc's blue";
}

// The bars of a cluster, and the "0" labels over bars that are exactly 0,
// sit evenly about the cluster's tick: fewer than nine series once drew an
// empty hatched slot at each cluster's end, the bars off centre and the
// zero labels beside theirs (aborts-t2: glibc, jemalloc, and tbbmalloc's 0).
TEST_F(PlotEndToEnd, BarsAndZeroLabelsAreCentredOnTheirCluster) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string svg = slurp(dir / "figures" / "aborts-t2.svg");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex(R"(translate\(([0-9.]+),[0-9.]+\)[^>]*text-anchor="middle">\s*<text>vacation-low</text>)")))
      << svg;
  const double tick = std::stod(m.str(1));
  // Bars stand on the baseline (their lowest edge the lowest of all); the legend's keys do not.
  std::vector<std::pair<double, double>> bars;  // (centre, bottom)
  const std::regex polygon(R"(<polygon fill = '[^']*' fill-opacity = '[^']*' points = '([0-9.]+),([0-9.]+) ([0-9.]+),[0-9.]+ )");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polygon); it != std::sregex_iterator(); ++it)
    bars.push_back({(std::stod((*it)[1]) + std::stod((*it)[3])) / 2, std::stod((*it)[2])});
  double baseline = 0;
  for (const auto& [x, bottom] : bars) baseline = std::max(baseline, bottom);
  std::vector<double> centres;
  for (const auto& [x, bottom] : bars)
    if (bottom == baseline) centres.push_back(x);
  const std::regex zero(R"(translate\(([0-9.]+),[0-9.]+\)[^>]*font-size="8.00"  text-anchor="middle">\s*<text>0</text>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), zero); it != std::sregex_iterator(); ++it)
    centres.push_back(std::stod((*it)[1]));
  ASSERT_EQ(centres.size(), 3u) << "glibc's and jemalloc's bars, tbbmalloc's 0";
  std::sort(centres.begin(), centres.end());
  EXPECT_NEAR((centres[0] + centres[2]) / 2, tick, 1.0) << "the cluster about its tick";
  EXPECT_NEAR(centres[1] - centres[0], centres[2] - centres[1], 1.0) << "the 0 label in its bar's slot";
}

TEST_F(PlotEndToEnd, EverySeriesOfAFigureOfFifteenIsDrawnItsOwnWay) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  for (const char* table : {"runs.csv", "series.csv"}) {
    std::istringstream lines(slurp(dir / table));
    std::string text, line, copies;
    while (std::getline(lines, line)) {
      text += line + "\n";
      if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
      for (int copy = 1; copy <= 4; ++copy) {
        std::string again = std::to_string(copy) + "000" + line;  // run_id 1000N...: its own
        if (std::string(table) == "runs.csv")
          again = std::regex_replace(again, std::regex(",(glibc|jemalloc|tbbmalloc),"), ",$1-" + std::to_string(copy) + ",",
                                     std::regex_constants::format_first_only);  // the allocator column
        copies += again + "\n";
      }
    }
    std::ofstream(dir / table, std::ios::trunc) << text << copies;
  }
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Lines (speedup: 15 and the linear one; series: RSS and heap of the 10 with points), bars (bytes per
  // element, aborts beside its zero labels).
  for (const auto& [figure, least] : std::vector<std::pair<std::string, std::size_t>>{
           {"speedup-vacation-low", 16}, {"series-vacation-low", 20}, {"bytes-per-element-requested", 15}, {"aborts-t2", 15}}) {
    std::vector<std::string> styles = series_styles(slurp(dir / "figures" / (figure + ".svg")));
    styles.erase(std::remove(styles.begin(), styles.end(), ""), styles.end());
    EXPECT_GE(styles.size(), least) << figure;
    std::set<std::string> distinct(styles.begin(), styles.end());
    EXPECT_EQ(distinct.size(), styles.size()) << figure << ": two series drawn alike among\n"
                                              << ::testing::PrintToString(styles);
  }
  // Past the eighth, a bar is hatched by its allocator's place in the folder,
  // as its colour is: one left out before it (jemalloc, with no abort rate at
  // 2 threads) changes nothing (the next one drew solid, in glibc's blue).
  auto hatched = [](const std::string& svg) {
    std::set<std::string> names;
    for (const std::string& plot : plot_groups(svg)) {
      std::smatch m;
      if (plot.find("<pattern") != std::string::npos && std::regex_search(plot, m, std::regex(R"(<text>([^<]+)</text>)")))
        names.insert(m.str(1));
    }
    return names;
  };
  const std::set<std::string> before = hatched(slurp(dir / "figures" / "aborts-t2.svg"));
  EXPECT_GE(before.size(), 6u) << "15 allocators: 7 past the eighth";
  std::ofstream(dir / "runs.csv.new") << std::regex_replace(slurp(dir / "runs.csv"), std::regex(",jemalloc,ml_wt,2,([0-9]+),ok,"),
                                                            ",jemalloc,ml_wt,2,$1,crashed,");
  fs::rename(dir / "runs.csv.new", dir / "runs.csv");
  Result again = plot({dir.string()});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(hatched(slurp(dir / "figures" / "aborts-t2.svg")), before);
}

// Memory over time: the line titled RSS is the RSS (the fixture's 6 MiB at
// its highest), the dashed steps titled heap the live requested heap (2 MiB):
// each allocator's RSS line reaches higher on the page than its heap line.
TEST_F(PlotEndToEnd, TheSeriesRssLineIsTheRssAndTheHeapLineTheHeap) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  Result r = plot({dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Title -> the smallest y (the highest point) of its line's data, the legend's sample left out.
  std::map<std::string, double> top;
  for (const std::string& plot : plot_groups(slurp(dir / "figures" / "series-vacation-low.svg"))) {
    std::smatch title, path;
    if (!std::regex_search(plot, title, std::regex(R"(<text>([^<]+)</text>)")) ||
        !std::regex_search(plot, path, std::regex(R"(<path stroke='[^']*'[^>]* d='M[^M]*M([^']*)')")))
      continue;
    double y_min = 1e9;
    const std::string points = path.str(1);
    const std::regex point(R"([0-9.]+,([0-9.]+))");
    for (std::sregex_iterator it(points.begin(), points.end(), point), end; it != end; ++it)
      y_min = std::min(y_min, std::stod((*it)[1].str()));
    top[title.str(1)] = y_min;
  }
  for (const char* allocator : {"glibc", "jemalloc"}) {
    const std::string name = allocator;
    ASSERT_TRUE(top.count(name + " RSS") && top.count(name + " heap")) << "lines of " << name;
    EXPECT_LT(top[name + " RSS"], top[name + " heap"]) << name << "'s RSS line should reach above its heap line";
  }
}

// The data behind a figure, measured: the sorted vector of u32 pairs holds 8
// bytes an element, and its RSS bar (what the fill added) says so within 20%
// at medium (1,024,000 elements) under glibc. The whole process's RSS would
// say 12 or more.
TEST_F(PlotEndToEnd, TheSortedVectorsRssPerElementIsItsEightBytes) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  const fs::path out = root / "vector";
  testing::CommandOptions options;
  Result sweep = testing::run_command({BENCH_BINARY, "--workload=maps-insert-std_vector_sorted", "--alloc=glibc",
                                       "--size=medium", "--threads=1", "--reps=1", "--no-plot", "--out=" + out.string()},
                                      options);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.out << sweep.err;
  // The divisor and the RSS before the fill are columns of their own (schema
  // 9), in the timed and the profiled run alike; not keys of extra.
  const RunsTable runs = load_runs(out, "the sweep");
  ASSERT_EQ(runs.rows.size(), 2u);
  for (const CsvRow& row : runs.rows) {
    EXPECT_EQ(runs.text(row, keys::elements_count), "1024000") << runs.text(row, keys::kind);
    EXPECT_GT(std::stod("0" + runs.text(row, keys::rss_baseline_kb)), 1000.0) << runs.text(row, keys::kind);
    EXPECT_EQ(runs.text(row, keys::extra).find("elements_count"), std::string::npos) << runs.text(row, keys::extra);
  }
  Result r = plot({out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::istringstream data(slurp(out / "figures" / "data" / "bytes-per-element.dat"));
  std::string header, row, name;
  std::getline(data, header);
  std::getline(data, row);
  EXPECT_NE(header.find("\"RSS added by the fill\""), std::string::npos) << header;
  double requested = 0, usable = 0, rss = 0;
  std::istringstream(row) >> name >> requested >> usable >> rss;
  EXPECT_EQ(name, "\"maps-insert-std_vector_sorted\"");
  EXPECT_NEAR(rss, 8.0, 0.2 * 8.0) << row;
}

// The report as a colleague opens it: headless Chromium renders report.html,
// and the page leads with its findings (before the setup), has a table of
// contents, and folds the summary tables.
// The report leads with its answer: its first section, before the contents,
// holds the across-workloads figure, the bottom-line table and one finding
// per workload and thread count; with few workloads the summary tables are open.
TEST_F(PlotEndToEnd, TheReportRendersInABrowserLeadingWithTheBottomLine) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  SKIP_UNLESS_INSTALLED(std::system("command -v chromium >/dev/null 2>&1") == 0, "chromium");
  ASSERT_EQ(plot({dir.string()}).exit_code, 0);
  testing::CommandOptions options;
  options.timeout_seconds = 90;
  Result dom = testing::run_command({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                                     "file://" + (dir / "report.html").string()},
                                    options);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const std::string& html = dom.out;
  const std::size_t first = html.find("<h2 id=\"bottom-line\">Bottom line</h2>"), contents = html.find("<nav>"),
                    setup = html.find("<h2 id=\"setup\">");
  ASSERT_NE(first, std::string::npos) << html.substr(0, 2000);
  EXPECT_EQ(html.find("<h2", 0), first) << "the bottom line is the first section";
  ASSERT_NE(contents, std::string::npos);
  EXPECT_LT(contents, setup);
  const std::string section = html.substr(first, contents - first);
  EXPECT_NE(section.find("figures/time-t1.png"), std::string::npos) << "the across-workloads figure: " << section;
  EXPECT_NE(section.find("<th>workload</th>"), std::string::npos) << "the bottom-line table: " << section;
  EXPECT_NE(section.find("vacation-low at 1 thread: "), std::string::npos) << "a finding per workload: " << section;
  EXPECT_NE(html.find("<a href=\"#bottom-line\">Bottom line</a>"), std::string::npos);
  // Three workloads: their tables open, none folded.
  EXPECT_EQ(html.find("<details><summary>vacation-low: every cell"), std::string::npos);
  EXPECT_NE(html.find(">vacation-low</h3>"), std::string::npos);
}

// No figure's title is clipped, checked as drawn: every SVG laid out by a
// browser, each text's box inside the picture (the heatmap of two allocators
// is narrower than its title at 11 pt unless the width follows the title).
TEST_F(PlotEndToEnd, NoFigureTitleIsClippedAsRendered) {
  SKIP_UNLESS_INSTALLED(have_gnuplot(), "gnuplot (gnuplot-nox)");
  SKIP_UNLESS_INSTALLED(std::system("command -v chromium >/dev/null 2>&1") == 0, "chromium");
  // Without glibc's runs: jemalloc is the reference ("(no glibc runs)" in every
  // title) and the time heatmap has one column, the narrowest figure there is.
  std::string kept;
  std::istringstream runs(slurp(dir / "runs.csv"));
  for (std::string line; std::getline(runs, line);)
    if (line.find(",glibc,") == std::string::npos) kept += line + "\n";
  std::ofstream(dir / "runs.csv", std::ios::trunc) << kept;
  ASSERT_EQ(plot({dir.string()}).exit_code, 0);
  std::string page = "<html><body>\n";
  int figures = 0;
  for (const auto& entry : fs::directory_iterator(dir / "figures"))
    if (entry.path().extension() == ".svg") {
      std::string svg = slurp(entry.path());
      svg = svg.substr(svg.find("<svg"));
      page += "<div data-name=\"" + entry.path().filename().string() + "\">" + svg + "</div>\n";
      ++figures;
    }
  ASSERT_GE(figures, 5) << "the fixture draws the time heatmaps, speedup, memory, series, regions";
  // The PNGs as the report shows them (their font is larger than the SVGs'):
  // a title cut by the edge leaves dark pixels in the picture's outermost columns.
  int pngs = 0;
  for (const auto& entry : fs::directory_iterator(dir / "figures"))
    if (entry.path().extension() == ".png") {
      page += "<img data-png=\"" + entry.path().filename().string() + "\" src=\"figures/" +
              entry.path().filename().string() + "\">\n";
      ++pngs;
    }
  page += R"(<pre id="clipped"></pre><script>
  window.addEventListener('load', () => { try {
    const out = [];
    for (const div of document.querySelectorAll('div[data-name]')) {
      const svg = div.querySelector('svg');
      const width = svg.width.baseVal.value, height = svg.height.baseVal.value;
      for (const text of svg.querySelectorAll('text')) {
        const content = text.textContent.trim();
        if (!content) continue;
        const box = text.getBBox();
        const m = text.getCTM(), x0 = m.a * box.x + m.c * box.y + m.e, x1 = m.a * (box.x + box.width) + m.c * box.y + m.e;
        const left = Math.min(x0, x1), right = Math.max(x0, x1);
        if (left < -0.5 || right > width + 0.5) out.push(div.dataset.name + ': "' + content + '" spans ' +
                                                         left.toFixed(0) + ' to ' + right.toFixed(0) + ' of ' + width);
      }
    }
    let pngs = 0;
    for (const img of document.querySelectorAll('img[data-png]')) {
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
      const g = canvas.getContext('2d');
      g.drawImage(img, 0, 0);
      const band = Math.round(img.naturalHeight * 0.3);  // the title and the stamp above the plot
      for (const x of [0, 1, img.naturalWidth - 2, img.naturalWidth - 1]) {
        const px = g.getImageData(x, 0, 1, band).data;
        for (let i = 0; i < px.length; i += 4)
          if (px[i] + px[i + 1] + px[i + 2] < 384) { out.push(img.dataset.png + ': dark pixels at the edge, x = ' + x); break; }
      }
      ++pngs;
    }
    document.getElementById('clipped').textContent = 'checked ' + document.querySelectorAll('div[data-name]').length +
        ' figures and ' + pngs + ' pictures\n' + out.join('\n');
  } catch (e) { document.getElementById('clipped').textContent = 'error: ' + e; } });
  </script></body></html>)";
  std::ofstream(dir / "svgs.html") << page;
  testing::CommandOptions options;
  options.timeout_seconds = 90;
  Result dom = testing::run_command({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                     "--allow-file-access-from-files", "--dump-dom", "file://" + (dir / "svgs.html").string()},
                                    options);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const auto at = dom.out.find("<pre id=\"clipped\">");
  ASSERT_NE(at, std::string::npos);
  const std::string report = dom.out.substr(at, dom.out.find("</pre>", at) - at);
  EXPECT_NE(report.find("checked " + std::to_string(figures) + " figures and " + std::to_string(pngs) + " pictures"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find(".svg: "), std::string::npos) << "clipped text:\n" << report;
  EXPECT_EQ(report.find(".png: "), std::string::npos) << "clipped text:\n" << report;
}

}  // namespace
}  // namespace allocstamp
