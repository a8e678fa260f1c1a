// plot.cpp — runs gnuplot once per figure on its .gp script (beside it) with the
// figure's variables given by -e; gnuplot's own messages go to a log beside the
// figure's data, shown only when it failed to draw.
#include "figures/plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/errors.h"
#include "figures/figures.h"
#include "model/format.h"

extern char** environ;

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

bool non_empty(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) && fs::file_size(file, ec) > 0;
}

// Draws one figure; returns why it failed, or "" when both files are there.
std::string draw(const fs::path& gnuplot, const fs::path& scripts, const fs::path& figures, const std::string& stamp,
                 const Figure& f) {
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
  std::vector<std::string> args = {gnuplot.string(), "-e", setup, (scripts / (f.script + ".gp")).string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  fs::path log = figures / "data" / (f.name + ".log");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return std::string("cannot start gnuplot: ") + std::strerror(spawned);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  bool drawn = WIFEXITED(status) && WEXITSTATUS(status) == 0 && non_empty(figures / (f.name + ".png")) &&
               non_empty(figures / (f.name + ".svg"));
  std::error_code ec;
  if (drawn) {
    fs::remove(log, ec);
    return "";
  }
  // Half a figure is worse than none: the report lists it as not drawn.
  fs::remove(figures / (f.name + ".png"), ec);
  fs::remove(figures / (f.name + ".svg"), ec);
  std::ifstream in(log);
  std::string said, line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" ^") != std::string::npos) said = line;  // gnuplot's last line names the error
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
  for (Figure& f : plan.figures) {
    std::string why = draw(gnuplot, scripts, figures, stamp, f);
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
