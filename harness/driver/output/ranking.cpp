// ranking.cpp — the tables printed by a sweep (each workload's as soon as its
// runs are done, the rest at the end) and by `bench summarize`: per workload
// the summary table the report shows too
// (summary_table.h: the same cells, statistics and names; 120 columns unless
// wide), then the bottom line across workloads and its sentences
// (bottom_line.h), and the warnings, one line per kind with a count (each
// cell named under --wide).
#include "output/ranking.h"

#include <map>
#include <set>
#include <sstream>

#include "output/bottom_line.h"
#include "output/document.h"
#include "model/format.h"
#include "model/statistics.h"
#include "output/summary_table.h"
#include "output/variants_table.h"
#include "results/failures.h"

namespace allocstamp {

namespace {

// What the tables leave to the lines after them: warnings by kind (the cells or
// workloads each names), and whether some time was measured under memprof.
struct TableNotes {
  std::map<std::string, std::vector<std::string>> by_kind;
  bool under_memprof = false;
};

bool of_workload(const std::vector<CellSummary>& cells, const std::string& group, const std::set<std::string>& workloads) {
  for (const CellSummary& c : cells)
    if (c.group == group && workloads.count(c.cell->id.workload)) return true;
  return false;
}

// The table of each group whose workload is in `print` (every group's
// warnings go into `notes`).
void group_tables(const ResultsView& view, const std::vector<CellSummary>& cells, const std::set<std::string>& print,
                  std::ostream& out, bool wide, TableNotes& notes, bool provisional = false) {
  auto& by_kind = notes.by_kind;
  bool& under_memprof = notes.under_memprof;
  for (const std::string& group : view.cells.groups) {
    std::set<std::string> context;  // "size small", "ml_wt", the arguments
    std::vector<std::string> warnings;
    bool few = false;
    for (const CellSummary& c : cells) {
      if (c.group != group) continue;
      context.insert("size " + c.cell->id.size);
      if (!c.cell->id.tm.empty()) context.insert(c.cell->id.tm);
      few = few || (c.time.n > 0 && c.time.n < 3);
      under_memprof = under_memprof || c.time_under_memprof;
      // Outliers among the timed runs, judged from five runs up (with fewer the MAD says little).
      const std::vector<double> times = view.cells.values(*c.cell, "time");
      const std::string cell = group + " " + c.allocator + " t" + std::to_string(c.threads);
      if (times.size() >= 5)
        if (std::size_t n = stats::mad_outliers(times).size()) {
          warnings.push_back("warning: " + std::to_string(n) + " outlier run(s) for " + c.allocator + " at " +
                             std::to_string(c.threads) + " thread(s) (modified Z-score > 3.5): noisy");
          by_kind["cell(s) with outlier runs (modified Z-score > 3.5): noisy"].push_back(cell);
        }
      if (c.standing == "too short") {
        // What would make the phase long enough: a replay is as long as its
        // recording unless its idle gaps are slept; another program, a size up.
        const std::string& size = c.cell->id.size;
        const std::string next = size == "tiny" ? "small" : size == "small" ? "medium" : "large";
        const std::string fix = c.cell->id.workload == "replay"
                                    ? "replay with --timing recorded (another size changes nothing)"
                                    : size == "large" ? "give it more work (its own arguments)" : "use --size " + next;
        by_kind["cell(s) too short to time (a measured phase under " + number_text("%g", kShortestTimedPhaseNs / 1e6) +
                " ms, the shorter phase shown): no faster/slower verdict; " + fix]
            .push_back(cell + " (" + number_text("%.2g", c.short_phase_ns / 1e6) + " ms)");
      }
      if (c.time_modes.found) {
        const stats::TwoModes& m = c.time_modes;
        auto ms = [](double ns) { return number_text(ns < 1e8 ? "%.3g" : "%.0f", ns / 1e6); };
        warnings.push_back("warning: the timed runs of " + c.allocator + " at " + std::to_string(c.threads) +
                           " thread(s) fall in two modes (" + ms(m.low_min) + "-" + ms(m.low_max) + " ms, " +
                           ms(m.high_min) + "-" + ms(m.high_max) + " ms): unstable");
        by_kind["cell(s) whose timed runs fall in two modes (each with the runs in it): unstable, no faster/slower "
                "verdict for them or against them — run again, or on a quieter machine"]
            .push_back(cell + " (" + ms(m.low_min) + "-" + ms(m.low_max) + " ms ×" + std::to_string(m.n_low) + ", " +
                       ms(m.high_min) + "-" + ms(m.high_max) + " ms ×" + std::to_string(m.n_high) + ")");
      }
      if (c.busy_runs) {
        warnings.push_back("warning: " + std::to_string(c.busy_runs) + " run(s) of " + c.allocator + " at " +
                           std::to_string(c.threads) + " thread(s) ran while the machine was busy: their times are suspect");
        by_kind["cell(s) with runs on a busy machine: their times are suspect"].push_back(cell);
      }
    }
    std::string title = group;
    for (const std::string& c : context) title += (title == group ? " (" : ", ") + c;
    Document doc{heading(2, title + (title == group ? "" : ")"))};
    std::set<std::string> args;
    for (const CellSummary& c : cells)
      if (c.group == group && !c.cell->id.args.empty()) args.insert(c.cell->id.args);
    for (const std::string& a : args) doc.push_back(list({"arguments (each row with its --threads): " + a}, 2));
    Block table = summary_table(view, cells, group, wide, provisional);
    table.indent = 2;
    doc.push_back(table);
    if (few) {
      warnings.push_back("warning: fewer than 3 ok timed runs in some cells: intervals are missing or very wide "
                         "(use --reps 3 or more)");
      by_kind["workload(s) with fewer than 3 ok timed runs in some cells: intervals missing or very wide (use --reps "
              "3 or more)"]
          .push_back(group);
    }
    if (wide && !warnings.empty()) doc.push_back(list(warnings, 4));
    if (provisional)
      doc.push_back(list({"ratios final; which stand out (*): the bottom line, once every comparison is in; "
                          "intervals: report.md"},
                         2));
    if (of_workload(cells, group, print)) out << "\n" << render_text(doc, wide ? 0 : kTerminalWidth);
  }
}

// The terminal's legend in two lines: what a ratio and its marks mean, at
// which level the intervals are (the family's, corrected), the abbreviations;
// the rest is in report.md and under --wide.
std::string short_legend(const ResultsView& view, const std::vector<CellSummary>& cells) {
  std::string level;
  if (!cells.empty()) {
    const stats::FamilyCorrection& time = cells.front().time_family;
    const stats::FamilyCorrection& memory = cells.front().memory_family;
    if (time.per_comparison) level = " (95%, uncorrected)";
    else if (time.m > 1 || memory.m > 1)
      level = " (at " + (time.m ? "time " + level_text(time) : std::string()) + (time.m && memory.m ? ", " : "") +
              (memory.m ? "memory " + level_text(memory) : std::string()) + ": corrected for the comparisons)";
  }
  return "Ratios over " + view.cells.reference + "'s (below 1: faster / leaner; timed runs, no memprof): * the interval" +
         level + " leaves 1 out, ~ it holds 1; short: a phase under " +
         number_text("%g", kShortestTimedPhaseNs / 1e6) +
         " ms.\nRSS peak RSS, ref the reference, (p) measured under memprof, sim. simulated cycles, B/elem bytes per "
         "element; the whole legend: report.md, or --wide.";
}

std::set<std::string> workloads_of(const std::vector<CellSummary>& cells) {
  std::set<std::string> names;
  for (const CellSummary& c : cells) names.insert(c.cell->id.workload);
  return names;
}

}  // namespace

void print_workload_tables(const ResultsView& view, const std::vector<CellSummary>& cells, const std::string& workload,
                           std::ostream& out, bool wide) {
  TableNotes notes;
  group_tables(view, cells, {workload}, out, wide, notes, true);
  out.flush();
}

void print_ranking(const std::filesystem::path& dir, std::ostream& out, bool wide, const std::set<std::string>& printed,
                   bool per_comparison) {
  const ResultsView view = load_results(dir);
  print_ranking(view, summarize_cells(view, per_comparison), out, wide, printed);
}

void print_ranking(const ResultsView& view, const std::vector<CellSummary>& cells, std::ostream& out, bool wide,
                   const std::set<std::string>& printed) {
  const RunsTable& t = *view.table;
  TableNotes notes;
  std::set<std::string> print = workloads_of(cells);
  for (const std::string& w : printed) print.erase(w);
  group_tables(view, cells, print, out, wide, notes);
  const auto& by_kind = notes.by_kind;
  const bool under_memprof = notes.under_memprof;
  Block variants = variants_table(view, cells);
  const bool any_variant = variants.rows.size() > 1;  // more than the header
  if (any_variant) {
    variants.indent = 2;
    out << "\n" << render_text(Document{heading(2, "variants against their base"), variants}, wide ? 0 : kTerminalWidth);
  }
  // The bottom line: every workload at once, then a sentence for each row.
  if (view.cells.groups.size() > 1 || cells.size() > 2) {
    Block bottom = bottom_line_table(view, cells);
    bottom.indent = 2;
    out << "\n" << render_text(Document{heading(2, "bottom line: time / peak RSS over " + view.cells.reference), bottom},
                              wide ? 0 : kTerminalWidth);
  }
  // The legends, wrapped for a terminal: under --wide the whole ones, else
  // two lines (the whole ones are in the report), so the sentences follow the
  // bottom line closely.
  auto wrapped = [&out](const std::string& text, bool blank_before = true) {
    if (blank_before) out << "\n";
    out << wrap_words(text, 118) << "\n";
  };
  if (wide) {
    wrapped(summary_table_legend(view, cells));
    if (any_variant) wrapped(variants_table_legend(cells));
    wrapped(bottom_line_legend(view));
  } else {
    const std::string legend = short_legend(view, cells);
    const std::size_t cut = legend.find('\n');
    wrapped(legend.substr(0, cut));
    wrapped(legend.substr(cut + 1), false);
  }
  const std::vector<std::string> answers = bottom_line_answers(view, cells);
  if (!answers.empty()) out << "\n";
  for (const std::string& answer : answers) wrapped(answer, false);
  if (!by_kind.empty()) out << "\n";
  for (const auto& [kind, names] : by_kind)
    wrapped("warning: " + std::to_string(names.size()) + " " + kind + (wide ? "" : " (bench summarize --wide names them)"),
            false);
  if (under_memprof)
    wrapped("A time or peak RSS marked \"profiled\" or (p) (a folder older than timed runs, or --reps 0) comes "
            "from the profiled runs, measured under memprof.",
            false);
  // Every run that did not end ok, with why (the first ten), then the skipped ones counted.
  const std::vector<RunNotOk> failures = runs_not_ok(t);
  if (!failures.empty()) {
    out << "\n" << failures.size() << " run(s) did not end ok:\n";
    for (std::size_t i = 0; i < failures.size() && i < 10; ++i)
      out << "  " << wrap_words(failures[i].run + ": " + failures[i].status + " — " + failures[i].why, 116, 4) << "\n";
    if (failures.size() > 10) out << "  and " << failures.size() - 10 << " more (runs.csv's status and extra)\n";
    out << "Their logs are in the folder's logs/; to make them again:\n  bench --resume " << view.dir.string()
        << " --redo-failed\n";
  }
  int skipped = 0;
  for (const CsvRow& r : t.rows) skipped += t.status(r) == Status::skipped ? 1 : 0;
  if (skipped) out << "\n" << skipped << " run(s) skipped (runs.csv's extra says why)\n";
}

}  // namespace allocstamp
