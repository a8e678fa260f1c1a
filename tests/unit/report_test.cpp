// report_test — report.md and report.html: escaping in both formats, and the
// report of the fixture folder: its setup from meta.json, the summary rows with
// failures counted, every figure with its caption and notes, what was skipped.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "figures/figures.h"
#include "run_command.h"
#include "output/report.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using testing::slurp;

TEST(ReportRendering, EscapesMarkdownAndHtml) {
  Document doc;
  Block h;
  h.kind = Block::Kind::heading;
  h.level = 1;
  h.text = "a_b <c> & 'd'";
  doc.push_back(h);
  Block table;
  table.kind = Block::Kind::table;
  table.text_columns = 1;
  table.rows = {{"name", "value"}, {"x|y", "1.5"}};
  doc.push_back(table);
  Block code;
  code.kind = Block::Kind::code;
  code.text = "bench --out='a ``` b'";
  doc.push_back(code);
  Block figure;
  figure.kind = Block::Kind::figure;
  figure.text = "T <1>";
  figure.image = "figures/t";
  figure.caption = "Read *this*.";
  figure.items = {"a note"};
  doc.push_back(figure);

  EXPECT_EQ(render_markdown(doc),
            "# a\\_b \\<c\\> & 'd'\n\n"
            "| name | value |\n|---|---:|\n| x\\|y | 1.5 |\n\n"
            "````sh\nbench --out='a ``` b'\n````\n\n"
            "![T \\<1\\>](figures/t.png)\n\n**T \\<1\\>.** Read \\*this\\*. ([SVG](figures/t.svg))\n\n- a note\n\n");
  std::string html = render_html(doc);
  EXPECT_NE(html.find("<title>a_b &lt;c&gt; &amp; &#39;d&#39;</title>"), std::string::npos);
  EXPECT_NE(html.find("<h1 id=\"a_b-c--d\">a_b &lt;c&gt; &amp; &#39;d&#39;</h1>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><th>name</th><th>value</th></tr>\n<tr><td>x|y</td><td class=\"n\">1.5</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<pre><code>bench --out=&#39;a ``` b&#39;</code></pre>"), std::string::npos);
  EXPECT_NE(html.find("<img src=\"figures/t.png\" alt=\"T &lt;1&gt;\">"), std::string::npos);
  EXPECT_NE(html.find("<figcaption><b>T &lt;1&gt;.</b> Read *this*.</figcaption>"), std::string::npos) << "the title once";
  EXPECT_NE(html.find("<li>a note</li>"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("report-test-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::copy(FIXTURE, dir, fs::copy_options::recursive);
    ResultsView view = load_results(dir);
    auto cells = summarize_cells(view);
    plan = prepare_figures(view, cells);
    write_report(view, cells, plan);
    md = slurp(dir / "report.md");
    html = slurp(dir / "report.html");
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir;
  FigurePlan plan;
  std::string md, html;
};

TEST_F(Report, ListsTheSetupFromMeta) {
  EXPECT_NE(md.find("```sh\nbench --alloc=glibc,jemalloc,tbbmalloc --workload=vacation-low,maps-insert --size=tiny "
                    "--threads=1,2 --reps=3 '--out=/tmp/it'\\''s <here>'\n```"),
            std::string::npos);
  for (const char* row : {"| git commit | 0123456789abcdef |", "| host | fixture-host |",
                          "| CPU | Test CPU \\<model\\> & co, 2 cores |", "| kernel | Linux 6.1.0 |",
                          "| compiler | g++ 12.2.0 |", "| jemalloc | libjemalloc2 | 5.3.0-1 | /usr/lib/x86\\_64-linux-gnu/libjemalloc.so.2 |",
                          "| glibc | libc6 | 2.36-9 | (the C library's malloc) |"})
    EXPECT_NE(md.find(row), std::string::npos) << row;
  EXPECT_NE(html.find("<td>Test CPU &lt;model&gt; &amp; co, 2 cores</td>"), std::string::npos);
  EXPECT_NE(html.find("&#39;--out=/tmp/it&#39;\\&#39;&#39;s &lt;here&gt;&#39;"), std::string::npos);
}

// The machine warnings bench printed (at the start and at each resume) and the
// runs measured on a busy machine, from meta.json, in the setup; none of it
// where the folder has nothing to say.
TEST_F(Report, NamesABusyMachineInTheSetup) {
  EXPECT_EQ(md.find("bench warned about the machine"), std::string::npos) << "the fixture has no warning";
  EXPECT_EQ(md.find("runs measured while other processes"), std::string::npos);
  nlohmann::json meta = nlohmann::json::parse(slurp(dir / "meta.json"));
  meta["machine_warnings"] = {"the machine is busy (load average 2.89): timings will be noisy"};
  meta["resumed"] = {{{"at", "2026-11-26T10:00:00+0000"}, {"machine_warnings", {"CPU frequency scaling is 'powersave'"}}}};
  meta["busy_runs"] = 4;
  meta["runs_with_machine_state"] = 36;
  std::ofstream(dir / "meta.json", std::ios::trunc) << meta.dump(2);
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  write_report(view, cells, prepare_figures(view, cells));
  const std::string setup = slurp(dir / "report.md");
  const std::string section = setup.substr(setup.find("## Setup"), setup.find("## Summary") - setup.find("## Setup"));
  EXPECT_NE(section.find("- the machine is busy (load average 2.89): timings will be noisy"), std::string::npos) << section;
  EXPECT_NE(section.find("- when resumed at 2026-11-26T10:00:00+0000: CPU frequency scaling is 'powersave'"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("4 of 36 runs measured while other processes used more than a quarter of the machine or the "
                         "hypervisor stole more than 10%"),
            std::string::npos)
      << section;
}

// Issue 55, item 13: meta.json's text reaches report.md and report.html with its
// control bytes escaped — a NUL, an escape sequence or a newline in the command
// line (a code block) or in a setup cell never arrives raw.
TEST_F(Report, ShowsControlBytesOfMetaEscaped) {
  nlohmann::json meta = nlohmann::json::parse(slurp(dir / "meta.json"));
  meta["command_line"] = {"bench", std::string("--out=a\0b", 9), "--tm=x\x1b[31my"};
  meta["machine"]["host"] = std::string("h\0st\nforged", 11);
  std::ofstream(dir / "meta.json", std::ios::trunc) << meta.dump(2);
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  write_report(view, cells, prepare_figures(view, cells));
  for (const char* name : {"report.md", "report.html"}) {
    const std::string text = slurp(dir / name);
    for (char c : text)
      ASSERT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
          << name << " holds the control byte " << int(c);
    EXPECT_NE(text.find("--out=a\\x00b"), std::string::npos) << name << ": the command line, escaped";
    EXPECT_NE(text.find("x\\x1b[31my"), std::string::npos) << name;
    // (Markdown shows a backslash of the text as "\\".)
    const std::string host = name == std::string("report.md") ? "h\\\\x00st\\\\nforged" : "h\\x00st\\nforged";
    const bool cell = text.find("| host | " + host + " |") != std::string::npos ||
                      text.find("<td>" + host + "</td>") != std::string::npos;
    EXPECT_TRUE(cell) << name << ": the host's cell, escaped";
  }
}

TEST_F(Report, SummarisesEveryCellWithFailures) {
  EXPECT_NE(md.find("\n### vacation-low\n"), std::string::npos);
  EXPECT_NE(md.find("\n### maps-insert-std\\_map\n"), std::string::npos) << "headings are escaped text";
  // glibc at 1 thread: 10, 11, 12 ms, a geometric mean of 10.97 ms.
  // A folder of schema 1: every run was profiled, so the times are the profiled runs' and the table says so.
  EXPECT_NE(md.find("| 1 | glibc | 0 timed + 3 profiled | 10.97 \\[8.75, 13.76\\] (profiled: no timed run) | 1 | "
                    "reference | - | - | - | 0.00 \\[0.00-0.00\\] | 2.0 | 6.0 |"),
            std::string::npos)
      << md;
  // jemalloc 8, 9, 10 ms against glibc's, rep by rep: 0.8, 0.818, 0.833; the
  // interval at the time family's level (issue 49): 3 of its 4 ratios
  // selected, 1 - 0.05 * 3/4 = 96.25% (t(0.98125, 2) = 4.99 where 95% had 4.30).
  EXPECT_NE(md.find("| 1 | jemalloc | 0 timed + 3 profiled | 8.96 \\[6.79, 11.83\\] (profiled: no timed run) | "
                    "0.817 \\[0.770, 0.867\\] | faster |"),
            std::string::npos);
  // The abort rate of each transactional cell: the median run's, and the lowest and highest.
  EXPECT_NE(md.find("| 2 | jemalloc | 0 timed + 2 profiled, 1 crashed | 5.24 \\[2.86, 9.61\\] (profiled: no timed run) | "
                    "0.808 \\[0.622, 1.051\\] | indistinguishable | - | - | - | 17.50 \\[15.00-20.00\\] |"),
            std::string::npos)
      << md;
  // Rows are in the order of the time estimate, which is the order of the ratios.
  EXPECT_LT(md.find("| 1 | jemalloc |"), md.find("| 1 | glibc |"));
  EXPECT_LT(md.find("| 1 | glibc |"), md.find("| 1 | tbbmalloc |"));
  // A maps folder answers in bytes per element, leanest first.
  EXPECT_NE(md.find("- Bytes per element at 1 thread: leanest maps-insert-absl\\_btree\\_map, 20.0 B requested; then "
                    "maps-insert-std\\_map 48.0."),
            std::string::npos)
      << md;
}

TEST_F(Report, ShowsEveryFigureWithItsCaptionAndWhatWasSkipped) {
  ASSERT_GE(plan.figures.size(), 10u);
  for (const Figure& f : plan.figures) {
    EXPECT_NE(md.find("](figures/" + f.name + ".png)"), std::string::npos) << f.name;
    EXPECT_NE(html.find("<img src=\"figures/" + f.name + ".png\""), std::string::npos) << f.name;
    EXPECT_NE(html.find("<figcaption>"), std::string::npos);
  }
  EXPECT_NE(md.find("- allocator resident not available for glibc, tbbmalloc"), std::string::npos);
  EXPECT_NE(md.find("## Figures not drawn"), std::string::npos);
  for (const auto& why : plan.skipped) EXPECT_NE(html.find("<li>" + why + "</li>"), std::string::npos) << why;
}

// The scopes table comes from ok runs only, as the report says of every
// figure: a crashed run's scope records (run 17, jemalloc at 2 threads,
// listed first) are not shown, the cell's ok run 14 is.
TEST_F(Report, ScopesComeFromOkRunsOnly) {
  std::ofstream(dir / "scopes.csv") << "run_id,name,calls_count,allocs_count,requested_bytes,held_bytes,duration_ns\n"
                                       "17,setup,999,1,1048576,0,1000000\n"
                                       "14,setup,5,1,1048576,0,1000000\n";
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  write_report(view, cells, prepare_figures(view, cells));
  const std::string text = slurp(dir / "report.md");
  EXPECT_NE(text.find("| jemalloc | 2 | setup | 5 |"), std::string::npos) << text.substr(text.find("## Scopes"));
  EXPECT_EQ(text.find("| 999 |"), std::string::npos) << "the crashed run's";
}

// A folder of two sizes names its groups "<workload> <size>", and each
// workload's own figures still go under its heading, not "Across workloads";
// the setup gives each workload's size.
TEST(ReportFigures, GoUnderTheirWorkloadWhenTheGroupNamesASize) {
  fs::path dir = fs::temp_directory_path() / ("report-test-" + std::to_string(::getpid()) + "-sizes");
  fs::remove_all(dir);
  fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  std::string runs = slurp(dir / "runs.csv");
  const std::string tiny = ",insert,tiny,", small = ",insert,small,";  // the map workloads' rows
  for (std::size_t at = runs.find(tiny); at != std::string::npos; at = runs.find(tiny, at)) runs.replace(at, tiny.size(), small);
  std::ofstream(dir / "runs.csv") << runs;
  ResultsView view = load_results(dir);
  ASSERT_NE(std::find(view.cells.groups.begin(), view.cells.groups.end(), "vacation-low tiny"), view.cells.groups.end());
  auto cells = summarize_cells(view);
  FigurePlan plan = prepare_figures(view, cells);
  std::string md = render_markdown(build_report(view, cells, plan));
  fs::remove_all(dir);
  std::size_t figures = md.find("\n## Figures\n");
  ASSERT_NE(figures, std::string::npos);
  std::size_t heading = md.find("\n### vacation-low tiny\n", figures);
  std::size_t across = md.find("\n### Across workloads\n", figures);
  ASSERT_NE(heading, std::string::npos) << md.substr(figures);
  std::size_t speedup = md.find("](figures/speedup-vacation-low_tiny.png)", figures);
  ASSERT_NE(speedup, std::string::npos);
  EXPECT_GT(speedup, heading);
  EXPECT_TRUE(across == std::string::npos || speedup < across) << "vacation-low's speedup under its own heading";
  // The setup names each workload's size, not one the runs did not all use.
  EXPECT_NE(md.find("| size | vacation-low tiny, maps-insert-std\\_map small, "), std::string::npos) << md;
}

}  // namespace
}  // namespace allocstamp
