// figures.cpp — the table of figure kinds, in the order the report shows
// them, and prepare_figures, which runs each kind. A new figure is one file
// here with its function and its .gp beside it (of the same name), plus one
// line of this table.
#include "figures/figures.h"

#include "figures/figure_kit.h"

namespace allocstamp {

namespace figures {
void time_figures(FigureMaker& make);
void speedup_figures(FigureMaker& make);
void abort_figures(FigureMaker& make);
void ladder_figures(FigureMaker& make);
void mechanism_figures(FigureMaker& make);
void series_figures(FigureMaker& make);
void region_figures(FigureMaker& make);
void element_figures(FigureMaker& make);
void micro_figures(FigureMaker& make);
}  // namespace figures

namespace {

struct KindEntry {
  FigureKind kind;
  void (*prepare)(figures::FigureMaker&);
};

const std::vector<KindEntry>& kind_table() {
  static const std::vector<KindEntry> table = {
      {{"time", {"time-t"}, "time", "time relative to the reference allocator, every workload at once, per thread count (a heatmap)"},
       figures::time_figures},
      {{"speedup", {"speedup-"}, "speedup", "each allocator's speedup over its fewest threads, per workload"},
       figures::speedup_figures},
      {{"aborts", {"aborts-t"}, "aborts", "the transactions' abort rate, per thread count"}, figures::abort_figures},
      {{"memory", {"memory-"}, "ladder", "the memory ladder of each workload: requested, usable, heap, RSS, PSS"},
       figures::ladder_figures},
      {{"mechanisms", {"mechanisms-"}, "mechanisms",
        "each allocator's time beside its measured mechanisms (system-time share, faults, switches, transaction attempts), as ratios to the reference"},
       figures::mechanism_figures},
      {{"series", {"series-"}, "series", "memory over time (series.csv)"}, figures::series_figures},
      {{"regions", {"regions-"}, "regions", "allocations and frees by region"}, figures::region_figures},
      {{"bytes-per-element", {"bytes-per-element", "insert-time"}, "elements",
        "the map workloads: bytes and time per element"},
       figures::element_figures},
      {{"micro", {"micro"}, "micro", "the micro-benchmarks' times"},
       figures::micro_figures},
  };
  return table;
}

}  // namespace

const std::vector<FigureKind>& figure_kinds() {
  static const std::vector<FigureKind> kinds = [] {
    std::vector<FigureKind> out;
    for (const KindEntry& e : kind_table()) out.push_back(e.kind);
    return out;
  }();
  return kinds;
}

FigurePlan prepare_figures(const ResultsView& view, const std::vector<CellSummary>& cells) {
  figures::FigureMaker make(view, cells);
  for (const KindEntry& e : kind_table()) {
    make.script = e.kind.file;  // every figure of the kind is drawn by its own script
    e.prepare(make);
  }
  return std::move(make.plan);
}

}  // namespace allocstamp
