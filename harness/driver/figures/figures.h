// figures.h — the data behind `bench plot`: reads a results folder, does every
// statistic here (none in gnuplot), and writes one tidy whitespace-separated
// file per figure under figures/data/ for the gnuplot scripts beside this file;
// one file per figure kind (figures.cpp has their table).
#pragma once
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/cell_summary.h"
#include "figures/figure.h"
#include "results/results_view.h"

namespace allocstamp {

// A kind of figure, one file in harness/driver/figures/ (the table is in
// figures.cpp): the names its figures start with, its file and script, and
// what it shows.
struct FigureKind {
  std::string name;
  std::vector<std::string> prefixes;
  // The kind's file here, <file>.cpp, and the gnuplot script that draws every
  // figure of the kind, <file>.gp beside it (which may load the shared
  // bars.gp and common.gp).
  std::string file;
  std::string what;
};
// Every kind, in the order prepare_figures makes them (and the report shows them).
const std::vector<FigureKind>& figure_kinds();

// Writes view.dir/figures/data/<figure>.dat for each figure that has data.
FigurePlan prepare_figures(const ResultsView& view, const std::vector<CellSummary>& cells);

}  // namespace allocstamp
