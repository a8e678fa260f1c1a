// plot.cpp — runs gnuplot once per figure on its .gp script (beside it) with the
// figure's variables given by -e, as many at once as there are cores, each with
// a time limit in a process group of its own (model/program_output.h);
// gnuplot's own messages go to a log beside the figure's data, kept only when
// it failed to draw.
#include "figures/plot.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "model/errors.h"
#include "figures/figures.h"
#include "model/fields.h"
#include "model/format.h"
#include "model/output_file.h"
#include "model/program_output.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

fs::path find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// A figure gnuplot has not drawn in this long is stopped (its group with it):
// 60 s, or ALLOCSTAMP_FIGURE_SECONDS for a machine slow enough to need more.
constexpr double kGnuplotSeconds = 60;

double figure_seconds() {
  const char* given = std::getenv("ALLOCSTAMP_FIGURE_SECONDS");
  if (!given || !*given) return kGnuplotSeconds;
  const double seconds = field_problem("real", given).empty() ? std::strtod(given, nullptr) : 0;  // no inf, nan or 0x
  if (!(seconds > 0))
    throw UsageError(std::string("ALLOCSTAMP_FIGURE_SECONDS='") + given + "' is not a number of seconds above 0",
                     "unset it (60 s a figure) or give one, e.g. ALLOCSTAMP_FIGURE_SECONDS=120");
  return seconds;
}

// gnuplot's messages, kept for a figure it failed to draw; a log that cannot
// be written leaves the reason in the failure's line alone.
void write_log(const fs::path& log, const std::string& text) {
  try {
    replace_file(log, text);
  } catch (const std::exception&) {
  }
}

bool non_empty(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) && fs::file_size(file, ec) > 0;
}

// Draws one figure; returns why it failed, or "" when both files are there.
std::string draw(const fs::path& gnuplot, const fs::path& scripts, const fs::path& figures, const std::string& stamp,
                 double limit_seconds, const Figure& f) {
  std::string setup = "set loadpath " + gnuplot_string(scripts.string()) +
                      "; out=" + gnuplot_string((figures / f.name).string()) + "; stamp=" + gnuplot_string(stamp);
  for (const auto& [name, value] : f.vars) setup += "; " + name + "=" + value;
  // A picture at least as wide as its title: about 8.4 px a character in the
  // PNG's 11 pt (the SVG's are smaller), and a margin, so that no title is cut
  // (test PlotEndToEnd.NoFigureTitleIsClippedAsRendered checks both as rendered).
  std::size_t characters = 0;
  for (unsigned char c : f.title) characters += (c & 0xC0) != 0x80;
  const int title_width = int(8.4 * double(characters)) + 48;
  setup += "; if (!exists(\"width\")) { width = 960 }; if (width < " + std::to_string(title_width) + ") { width = " +
           std::to_string(title_width) + " }";
  const ProgramOutput run =
      program_output({gnuplot.string(), "-e", setup, (scripts / (f.script + ".gp")).string()}, true,
                     ProgramLimits{limit_seconds, std::nullopt});
  if (!run.started) return "cannot start gnuplot";
  const bool drawn = run.status == 0 && non_empty(figures / (f.name + ".png")) && non_empty(figures / (f.name + ".svg"));
  if (drawn) return "";
  // Half a figure is worse than none: the report lists it as not drawn.
  std::error_code ec;
  fs::remove(figures / (f.name + ".png"), ec);
  fs::remove(figures / (f.name + ".svg"), ec);
  const fs::path log = figures / "data" / (f.name + ".log");
  write_log(log, run.out);
  std::istringstream said_lines(run.out);
  std::string said, line;
  while (std::getline(said_lines, line))
    if (line.find_first_not_of(" ^") != std::string::npos) said = line;  // gnuplot's last line names the error
  if (run.timed_out) said = "stopped after " + number_text("%g", limit_seconds) + " s";
  return "gnuplot failed" + (said.empty() ? std::string() : ": " + said) + " (see " +
         fs::relative(log, figures.parent_path()).string() + ")";
}

}  // namespace

DrawnFigures draw_figures(const ResultsView& view, const std::vector<CellSummary>& cells, const Paths& paths,
                          std::ostream& out) {
  fs::path gnuplot = find_in_path("gnuplot");
  if (gnuplot.empty())
    throw RunError("gnuplot is not installed (bench plot draws with it)",
                   "apt-get install gnuplot-nox (or run scripts/install-deps as root)");
  const double limit_seconds = figure_seconds();
  fs::path scripts = paths.source / "harness" / "driver" / "figures";
  if (!fs::exists(scripts / "common.gp"))
    throw RunError("the gnuplot scripts are not in " + scripts.string(),
                   "run bench from its repository, or set ALLOCSTAMP_SOURCE_DIR to it");

  // figures/ holds only what this command draws: a redraw leaves nothing stale.
  fs::path figures = view.dir / "figures";
  std::error_code ec;
  fs::remove_all(figures, ec);
  fs::create_directories(figures / "data", ec);
  if (ec) throw RunError("cannot create " + (figures / "data").string() + ": " + ec.message(), "check that the results folder is writable");

  for (const auto& note : view.notes) out << "note: " << wrap_words(note, kTerminalWidth - 6, 6) << "\n";
  FigurePlan plan = prepare_figures(view, cells);
  std::string stamp = machine_stamp(view.meta);
  DrawnFigures drawn;
  FigurePlan& done = drawn.plan;
  done.skipped = plan.skipped;
  int& failed = drawn.failed;
  // Each figure is its own gnuplot: as many at once as there are cores, said in the plan's order.
  std::vector<std::string> failures(plan.figures.size());
  std::atomic<std::size_t> next{0};
  const std::size_t workers = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < std::min(workers, plan.figures.size()); ++w)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < plan.figures.size();) try {
          failures[i] = draw(gnuplot, scripts, figures, stamp, limit_seconds, plan.figures[i]);
        } catch (const std::exception& e) {  // out of memory, a path: that figure is not drawn, the others are
          failures[i] = std::string("not drawn: ") + e.what();
        }
    });
  for (std::thread& t : pool) t.join();
  for (std::size_t i = 0; i < plan.figures.size(); ++i) {
    Figure& f = plan.figures[i];
    const std::string& why = failures[i];
    if (!why.empty()) {
      ++failed;
      out << "failed  " << wrap_words(f.name + ": " + why, kTerminalWidth - 8, 8) << "\n";
      done.skipped.push_back(f.name + ": " + why);
      continue;
    }
    // Lines of a terminal's 120 columns, as every table bench prints.
    out << "drew    " << wrap_words("figures/" + f.name + ".png and .svg — " + f.title, kTerminalWidth - 8, 8) << "\n";
    for (const auto& note : f.notes) out << "          note: " << wrap_words(note, kTerminalWidth - 16, 16) << "\n";
    done.figures.push_back(std::move(f));
  }
  for (const auto& why : plan.skipped) out << "skipped " << wrap_words(why, kTerminalWidth - 8, 8) << "\n";
  return drawn;
}

}  // namespace allocstamp
