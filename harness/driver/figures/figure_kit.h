// figure_kit.h — what every figure kind (figures/*.cpp, listed in figures.cpp's figure_kinds())
// is made with: the index of the cells, the data-file helpers, the clustered
// bar chart, and FigureMaker, which names, writes and registers a figure or
// says why it was not drawn. A figure kind is a function of a FigureMaker.
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "model/errors.h"
#include "analysis/cell_summary.h"
#include "figures/figure.h"
#include "model/format.h"
#include "model/output_file.h"
#include "results/meta.h"
#include "results/micro_results.h"
#include "results/results_view.h"
#include "results/results_folder.h"
#include "results/runs.h"
#include "results/side_tables.h"

namespace allocstamp::figures {

namespace fs = std::filesystem;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kMiB = 1024.0 * 1024.0;

// Numbers in data files: six significant digits, NaN for "no value" (gnuplot leaves the bar out).
inline std::string num(double v) { return data_number(v); }

// A label column: always quoted, so names with spaces stay one column.
inline std::string label(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

inline std::string file_stem(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') c = '_';
  return text;
}

inline std::string threads_text(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }


// What every figure asks of the cells (cells.h): their ok runs, the runs that
// measure a key, and the thread counts and allocators a group ran with.
class Index {
 public:
  explicit Index(const ResultsView& view) : view_(view), cells_(view.cells) {}
  const std::vector<const CsvRow*>& rows(const std::string& group, int threads, const std::string& allocator) const {
    static const std::vector<const CsvRow*> none;
    const Cell* c = cells_.find(group, threads, allocator);
    return c ? c->ok : none;
  }
  // The fewest threads the group ran with successfully, timed or profiled (0
  // when it has no such ok run): simulated runs alone (--simulate-threads
  // beyond --threads) have no time, memory or counts to draw.
  int bottom_threads(const std::string& group) const {
    int bottom = 0;
    for (const Cell& c : cells_.cells)
      if (c.group == group && measured(c) && (bottom == 0 || c.id.threads < bottom)) bottom = c.id.threads;
    return bottom;
  }
  // The most threads the group ran with successfully, timed or profiled (0: none).
  int top_threads(const std::string& group) const {
    int top = 0;
    for (const Cell& c : cells_.cells)
      if (c.group == group && measured(c)) top = std::max(top, c.id.threads);
    return top;
  }
  // Allocators with ok runs of the group at that thread count, in the folder's order.
  std::vector<std::string> allocators(const std::string& group, int threads) const {
    std::vector<std::string> out;
    for (const auto& a : cells_.allocators)
      if (!rows(group, threads, a).empty()) out.push_back(a);
    return out;
  }
  // f(row) over the ok runs that measure `key`, NaN values left out.
  template <typename F>
  std::vector<double> values_by(const std::string& group, int threads, const std::string& allocator,
                                const std::string& key, F f) const {
    std::vector<double> values;
    const Cell* c = cells_.find(group, threads, allocator);
    if (!c) return values;
    for (const CsvRow* r : cells_.serving(*c, key))
      if (double v = f(*r); !std::isnan(v)) values.push_back(v);
    return values;
  }
  std::vector<double> values_of(const std::string& group, int threads, const std::string& allocator,
                                const std::string& key) const {
    return values_by(group, threads, allocator, key, [&](const CsvRow& r) { return cells_.value(r, key); });
  }
  double median_of(const std::string& group, int threads, const std::string& allocator, const std::string& key) const {
    return stats::median(values_of(group, threads, allocator, key));
  }
  const RunsTable& table() const { return *view_.table; }

 private:
  // An ok run of the cell ran the program itself (timed or profiled).
  bool measured(const Cell& c) const {
    return std::any_of(c.ok.begin(), c.ok.end(), [&](const CsvRow* r) { return view_.table->kind(*r) != RunKind::simulated; });
  }
  const ResultsView& view_;
  const Cells& cells_;
};

// Calls `each` with every data row of series.csv of the header's width, in
// turn (its rows never all in memory: a long sweep's series is large), and
// returns its header.
inline CsvRow scan_series(const fs::path& file, const std::function<void(const CsvRow&)>& each) {
  if (!fs::exists(file)) return CsvRow{""};  // a folder from before series.csv, or one it was removed from
  std::vector<std::size_t> at;
  CsvRow header = scan_side_table(file, "series", at, each);  // a damaged row is refused, not skipped
  if (header.empty()) header.emplace_back();
  return header;
}

// Through a fresh file renamed into place (replace_file): never through a link.
inline void write_data(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  replace_file(file, text);
}

inline void set_text(Figure& f, const std::string& name, const std::string& value) {
  f.vars.emplace_back(name, gnuplot_string(value));
}
inline void set_number(Figure& f, const std::string& name, double value) { f.vars.emplace_back(name, num(value)); }

struct Value {
  double value = kNaN, low = kNaN, high = kNaN;
  // Whiskers at the value for want of runs (one on a side), not because it is
  // exact: add_bars says so in a note.
  bool too_few_runs = false;
};

// A ratio's bar: the value and its interval (the value itself where there is none).
inline Value ratio_bar(const stats::Ratio& r) {
  const bool no_interval = std::isnan(r.ci_low) || std::isnan(r.ci_high);
  return {r.value, std::isnan(r.ci_low) ? r.value : r.ci_low, std::isnan(r.ci_high) ? r.value : r.ci_high,
          no_interval && std::isfinite(r.value)};
}

// A bar of runs' values: their median, the whiskers at the lowest and the
// highest run (both at the median when there is one run).
inline Value spread_bar(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {stats::median(values), *lo, *hi, values.size() == 1};
}

// A clustered bar chart: one cluster per row, one bar per series (bars.gp).
struct Bars {
  std::vector<std::string> series, rows;
  std::vector<std::vector<Value>> values;  // [row][series]
  bool errorbars = false;
  double refline = kNaN;  // a dashed horizontal line, e.g. at 1 for ratios
  // Rows or series that a note of the figure already says are left out (and why).
  std::set<std::string> explained;
};

// A note naming the bars drawn without whiskers for want of runs ("jemalloc's
// time"), which would otherwise read as exact; "" when there is none.
inline std::string too_few_runs_note(const Bars& bars) {
  if (!bars.errorbars) return "";
  std::vector<std::string> bare;
  for (size_t r = 0; r < bars.rows.size(); ++r)
    for (size_t s = 0; s < bars.values[r].size(); ++s)
      if (bars.values[r][s].too_few_runs && std::isfinite(bars.values[r][s].value))
        bare.push_back(bars.series.size() > 1 ? bars.rows[r] + "'s " + bars.series[s] : bars.rows[r]);
  if (bare.empty()) return "";
  return "without whiskers for want of runs (one on a side: no interval, no spread), not because they are exact: " +
         joined(bare);
}

inline bool has_values(const Bars& bars) {
  for (const auto& row : bars.values)
    for (const Value& v : row)
      if (std::isfinite(v.value)) return true;
  return false;
}

// A row without a value in any series, or a series without one in any row,
// would be drawn as an empty slot (a cluster, or a bar in every cluster):
// left out, and said in a note unless one of the figure's own says why.
inline void leave_out_empty_slots(Bars& bars, std::vector<std::string>& notes) {
  auto finite = [](const Value& v) { return std::isfinite(v.value); };
  std::vector<std::string> left_out;
  for (size_t r = bars.rows.size(); r-- > 0;)
    if (std::none_of(bars.values[r].begin(), bars.values[r].end(), finite)) {
      if (!bars.explained.count(bars.rows[r])) left_out.insert(left_out.begin(), bars.rows[r]);
      bars.rows.erase(bars.rows.begin() + std::ptrdiff_t(r));
      bars.values.erase(bars.values.begin() + std::ptrdiff_t(r));
    }
  std::vector<std::string> series_out;
  for (size_t s = bars.series.size(); s-- > 0;)
    if (std::none_of(bars.values.begin(), bars.values.end(), [&](const std::vector<Value>& row) { return finite(row[s]); })) {
      if (!bars.explained.count(bars.series[s])) series_out.insert(series_out.begin(), bars.series[s]);
      bars.series.erase(bars.series.begin() + std::ptrdiff_t(s));
      for (auto& row : bars.values) row.erase(row.begin() + std::ptrdiff_t(s));
    }
  left_out.insert(left_out.end(), series_out.begin(), series_out.end());
  if (!left_out.empty()) notes.push_back("no value at all for " + joined(left_out) + ": left out, not drawn as an empty slot");
}

// The width grows with the bars; x labels wider than their slot (about 7.5 px a
// character at 11 pt, in a plot area that the y axis and the legend narrow) are rotated,
// and then the first one, which hangs left of its slot, sets the left margin ("lead").
inline void set_size(Figure& f, double width, double plot_width, size_t slots, size_t longest_label, size_t first_label) {
  set_number(f, "width", width);
  set_number(f, "rotate", 7.5 * static_cast<double>(longest_label) > plot_width / static_cast<double>(slots) ? 1 : 0);
  set_number(f, "lead", static_cast<double>(first_label));
}

inline size_t longest(const std::vector<std::string>& labels) {
  size_t n = 0;
  for (const auto& l : labels) n = std::max(n, l.size());
  return n;
}

// The state every figure kind shares: the results, their cells' summaries and
// index, where data files go, what the runs have in common (for titles), and
// the plan of figures made and figures left out.
struct FigureMaker {
  FigureMaker(const ResultsView& results, const std::vector<CellSummary>& summaries)
      : view(results), cells(summaries), index(results), data_dir(results.dir / "figures" / "data") {
    std::set<std::string> sizes;
    for (const Cell& c : results.cells.cells) {
      sizes.insert(c.id.size);
      if (!c.id.tm.empty()) tms.insert(c.id.tm);
      group_tms[c.group].insert(c.id.tm);
    }
    if (sizes.size() == 1 && !sizes.begin()->empty()) size = "size " + *sizes.begin();
  }


  // A figure of the kind being made, drawn by its script.
  Figure figure(const std::string& name, const std::string& title, const std::string& caption) {
    Figure f;
    f.name = file_stem(name);
    f.script = script;
    f.title = title;
    f.caption = caption;
    set_text(f, "datafile", (data_dir / (f.name + ".dat")).string());
    set_text(f, "figtitle", title);
    return f;
  }

  void add(Figure f, const std::string& text) {
    write_data(data_dir / (f.name + ".dat"), text);
    plan.figures.push_back(std::move(f));
  }

  void skip(const std::string& name, const std::string& why) { plan.skipped.push_back(name + ": " + why); }

  // Where a figure's series are allocators: each one's place in the folder's
  // order (common.gp's `slots`), so that its colour is the same in every
  // figure, whichever allocators a figure leaves out. Nothing for other series.
  void set_slots(Figure& f, const std::vector<std::string>& series) const {
    std::string slots;
    for (const std::string& name : series) {
      const auto& all = view.cells.allocators;
      const auto at = std::find(all.begin(), all.end(), name);
      if (at == all.end()) return;
      if (!slots.empty()) slots += ' ';
      slots += std::to_string(at - all.begin());
    }
    set_text(f, "slots", slots);
  }

  // The folder's allocators a figure of `group` at `threads` leaves out for
  // want of an ok run there, as a note ("" when none is): a figure "for each
  // allocator" must not drop one unsaid.
  std::string left_out_note(const std::string& group, int threads) const {
    const std::vector<std::string> drawn = index.allocators(group, threads);
    std::vector<std::string> absent;
    for (const std::string& a : view.cells.allocators)
      if (std::find(drawn.begin(), drawn.end(), a) == drawn.end()) absent.push_back(a);
    return absent.empty() ? "" : "no ok run of " + joined(absent) + " at " + threads_text(threads) + ": left out";
  }
  void note_left_out(Figure& f, const std::string& group, int threads) const {
    if (const std::string note = left_out_note(group, threads); !note.empty()) f.notes.push_back(note);
  }

  // Writes a Bars figure through bars.gp, or a message when it has no value at all.
  void add_bars(Figure f, Bars bars, const std::string& ylabel, const std::string& nothing) {
    if (!has_values(bars)) return skip(f.name, nothing);
    leave_out_empty_slots(bars, f.notes);
    if (const std::string bare = too_few_runs_note(bars); !bare.empty()) f.notes.push_back(bare);
    std::ostringstream text;
    text << label("group");
    for (const auto& s : bars.series) {
      text << ' ' << label(s);
      if (bars.errorbars) text << ' ' << label(s + " low") << ' ' << label(s + " high");
    }
    text << '\n';
    for (size_t r = 0; r < bars.rows.size(); ++r) {
      text << label(bars.rows[r]);
      for (const Value& v : bars.values[r]) {
        text << ' ' << num(v.value);
        if (bars.errorbars) text << ' ' << num(v.low) << ' ' << num(v.high);
      }
      text << '\n';
    }
    set_text(f, "ylab", ylabel);
    set_slots(f, bars.series);
    set_number(f, "n", static_cast<double>(bars.series.size()));
    set_number(f, "rows", static_cast<double>(bars.rows.size()));
    set_number(f, "errorbars", bars.errorbars ? 1 : 0);
    set_number(f, "refline", bars.refline);
    double width = std::clamp<double>(560.0 + 18.0 * static_cast<double>(bars.rows.size() * bars.series.size()), 800, 1600);
    set_size(f, width, width - 260, bars.rows.size(), longest(bars.rows), bars.rows.empty() ? 0 : bars.rows[0].size());
    add(std::move(f), text.str());
  }

  // A grid of ratios for time.gp: rows (top to bottom) by columns,
  // each cell's ratio and whether its interval leaves 1 out; NaN leaves a
  // cell blank.
  void add_heatmap(Figure f, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                   const std::vector<std::vector<std::pair<double, bool>>>& ratios, const std::string& cblabel,
                   const std::string& nothing) {
    std::ostringstream text, xtics, ytics;
    bool any = false;
    for (size_t r = 0; r < rows.size(); ++r) {
      const size_t y = rows.size() - 1 - r;  // the first row on top
      ytics << (r ? ", " : "") << label(rows[r]) << ' ' << y;
      for (size_t c = 0; c < cols.size(); ++c) {
        const auto [ratio, separated] = ratios[r][c];
        if (!std::isfinite(ratio) || ratio <= 0) continue;
        any = true;
        text << c << ' ' << y << ' ' << num(std::log2(ratio)) << ' '
             << label(number_text("%.2f", ratio) + (separated ? "*" : "")) << '\n';
      }
    }
    for (size_t c = 0; c < cols.size(); ++c) xtics << (c ? ", " : "") << label(cols[c]) << ' ' << c;
    if (!any) return skip(f.name, nothing);
    set_text(f, "xticsdef", xtics.str());
    set_text(f, "yticsdef", ytics.str());
    set_text(f, "cblab", cblabel);
    set_number(f, "cols", static_cast<double>(cols.size()));
    set_number(f, "rows", static_cast<double>(rows.size()));
    set_number(f, "width", std::clamp<double>(420.0 + 95.0 * static_cast<double>(cols.size()) +
                                                  7.5 * static_cast<double>(longest(rows)),
                                              700, 1600));
    set_number(f, "height", std::clamp<double>(200.0 + 22.0 * static_cast<double>(rows.size()), 300, 1400));
    add(std::move(f), text.str());
  }

  // What the runs of these groups share, for their titles: the size, and the TM method when
  // one of them is transactional (when either varies in the folder, the group names carry it).
  std::string context(const std::vector<std::string>& groups) const {
    std::vector<std::string> items;
    if (!size.empty()) items.push_back(size);
    bool transactional = false;
    for (const auto& g : groups) transactional = transactional || (tms.size() == 1 && group_tms.at(g).count(*tms.begin()));
    if (transactional) items.push_back(*tms.begin());
    return items.empty() ? std::string() : " (" + joined(items) + ")";
  }

  const CellSummary* cell(const std::string& group, int threads, const std::string& allocator) const {
    for (const CellSummary& c : cells)
      if (c.group == group && c.threads == threads && c.allocator == allocator) return &c;
    return nullptr;
  }

  // Which runs a figure's numbers come from, and how many per cell (over the
  // cells of `groups` at `threads`; 0 threads: every thread count;
  // kFewestThreads: each group's fewest, where a figure draws each group).
  static constexpr int kFewestThreads = -1;
  std::string runs_text(bool timed, const std::vector<std::string>& groups, int threads) const {
    int low = 0, high = 0;
    // Times: the groups timed under memprof (none of their cells has an ok
    // timed run) and those timed alone; a caption says which are which.
    std::vector<std::string> under_memprof, alone;
    for (const CellSummary& c : cells) {
      if (std::find(groups.begin(), groups.end(), c.group) == groups.end()) continue;
      const int drawn = threads == kFewestThreads ? index.bottom_threads(c.group) : threads;
      if (drawn && c.threads != drawn) continue;
      int n = timed ? int(c.time.n) : c.profiled_runs;
      if (n == 0) continue;
      low = low == 0 ? n : std::min(low, n);
      high = std::max(high, n);
      std::vector<std::string>& kind = c.time_under_memprof ? under_memprof : alone;
      if (timed && std::find(kind.begin(), kind.end(), c.group) == kind.end()) kind.push_back(c.group);
    }
    std::string count = low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high);
    if (timed && !under_memprof.empty() && alone.empty())
      return " From the profiled runs (memprof in front: no cell drawn has an ok timed run), " + count + " per cell.";
    if (timed && !under_memprof.empty())
      return " From the timed runs (the allocator alone, no memprof), but for " + joined(under_memprof) +
             (under_memprof.size() == 1 ? ", which has no ok timed run: from its" : ", which have no ok timed run: from their") +
             " profiled runs (memprof in front, its cost in the times); " + count + " per cell.";
    return timed ? " From the timed runs (the allocator alone, no memprof), " + count + " per cell."
                 : " From the profiled runs (memprof in front), " + count + " per cell.";
  }

  std::string reference_text() const {
    return view.cells.reference == "glibc" ? "glibc" : view.cells.reference + " (no glibc runs)";
  }

  const ResultsView& view;
  const std::vector<CellSummary>& cells;
  Index index;
  fs::path data_dir;
  std::string script;  // the kind being made: its file's stem, whose .gp draws its figures (figures.cpp sets it)
  std::string size;
  std::set<std::string> tms;
  std::map<std::string, std::set<std::string>> group_tms;
  FigurePlan plan;
};

}  // namespace allocstamp::figures
