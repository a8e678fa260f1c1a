// figure.h — one figure as bench plot makes it (its files, the script that
// draws it, its title, caption, gnuplot variables and notes), the plan of
// the figures made and skipped, and gnuplot's string literal: what the
// figure kinds (figure_kit.h), the table of kinds (figures.h) and the drawing
// (plot.h) share.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace allocstamp {

struct Figure {
  std::string name;    // file stem under figures/: name.png and name.svg
  std::string script;  // harness/driver/figures/<script>.gp draws it: its kind's file
  std::string title, caption;
  std::string group;   // the one workload group it shows; empty when it spans several
  std::vector<std::pair<std::string, std::string>> vars;  // gnuplot variable, expression
  std::vector<std::string> notes;                         // bars or lines left out, and why
};

struct FigurePlan {
  std::vector<Figure> figures;
  std::vector<std::string> skipped;  // figures not drawn, and why
};

// A gnuplot string literal; control characters (a NUL, a newline) become spaces.
std::string gnuplot_string(const std::string& text);

}  // namespace allocstamp
