// figures.cpp — one function per figure kind: each picks its runs, computes
// medians, ratios and intervals with statistics.h and writes its data file; a
// metric that no run reported gives a message instead of a file.
#include "figures/figures.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "errors.h"
#include "output/format.h"
#include "results/results_folder.h"
#include "results/meta.h"
#include "results/micro_results.h"
#include "results/runs.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMiB = 1024.0 * 1024.0;

// Numbers in data files: six significant digits, NaN for "no value" (gnuplot leaves the bar out).
std::string num(double v) { return data_number(v); }

// A label column: always quoted, so names with spaces stay one column.
std::string label(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

std::string file_stem(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') c = '_';
  return text;
}

std::string threads_text(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

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
  // The fewest threads the group ran with successfully (0 when it has no ok run).
  int bottom_threads(const std::string& group) const {
    int bottom = 0;
    for (const Cell& c : cells_.cells)
      if (c.group == group && !c.ok.empty() && (bottom == 0 || c.id.threads < bottom)) bottom = c.id.threads;
    return bottom;
  }
  // The most threads the group ran with successfully (0: no ok run).
  int top_threads(const std::string& group) const {
    int top = 0;
    for (const Cell& c : cells_.cells)
      if (c.group == group && !c.ok.empty()) top = std::max(top, c.id.threads);
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
    return allocstamp::median_of(values_of(group, threads, allocator, key));
  }
  const RunsTable& table() const { return *view_.table; }

 private:
  const ResultsView& view_;
  const Cells& cells_;
};

// Calls `each` with every data row of series.csv of the header's width, in
// turn (its rows never all in memory: a long sweep's series is large), and
// returns its header.
CsvRow scan_series(const fs::path& file, const std::function<void(const CsvRow&)>& each) {
  if (!fs::exists(file)) return CsvRow{""};  // a folder from before series.csv, or one it was removed from
  CsvRow header = scan_csv(file, [&each](const CsvRow& head, const CsvRow& row) {
    if (row.size() == head.size()) each(row);
  });
  if (header.empty()) header.emplace_back();
  return header;
}

void write_data(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw RunError("cannot write " + file.string(), "check that the results folder is writable");
}

void set_text(Figure& f, const std::string& name, const std::string& value) {
  f.vars.emplace_back(name, gnuplot_string(value));
}
void set_number(Figure& f, const std::string& name, double value) { f.vars.emplace_back(name, num(value)); }

struct Value {
  double value = kNaN, low = kNaN, high = kNaN;
};

// A ratio's bar: the value and its interval (the value itself where there is none).
Value ratio_bar(const stats::Ratio& r) {
  return {r.value, std::isnan(r.ci_low) ? r.value : r.ci_low, std::isnan(r.ci_high) ? r.value : r.ci_high};
}

// A bar of runs' values: their median, the whiskers at the lowest and the
// highest run (both at the median when there is one run).
Value spread_bar(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {median_of(values), *lo, *hi};
}

// An estimate's bar: the geometric mean and its 95% interval.
Value estimate_bar(const stats::LogEstimate& e, double scale) {
  if (e.n == 0) return {};
  const double v = e.center / scale;
  return {v, std::isnan(e.low) ? v : e.low / scale, std::isnan(e.high) ? v : e.high / scale};
}

// A clustered bar chart: one cluster per row, one bar per series (bars.gp).
struct Bars {
  std::vector<std::string> series, rows;
  std::vector<std::vector<Value>> values;  // [row][series]
  bool errorbars = false;
  double refline = kNaN;  // a dashed horizontal line, e.g. at 1 for ratios
};

bool has_values(const Bars& bars) {
  for (const auto& row : bars.values)
    for (const Value& v : row)
      if (std::isfinite(v.value)) return true;
  return false;
}

// The width grows with the bars; x labels wider than their slot (about 7.5 px a
// character at 11 pt, in a plot area that the y axis and the legend narrow) are rotated,
// and then the first one, which hangs left of its slot, sets the left margin ("lead").
void set_size(Figure& f, double width, double plot_width, size_t slots, size_t longest_label, size_t first_label) {
  set_number(f, "width", width);
  set_number(f, "rotate", 7.5 * static_cast<double>(longest_label) > plot_width / static_cast<double>(slots) ? 1 : 0);
  set_number(f, "lead", static_cast<double>(first_label));
}

size_t longest(const std::vector<std::string>& labels) {
  size_t n = 0;
  for (const auto& l : labels) n = std::max(n, l.size());
  return n;
}

class Preparer {
 public:
  Preparer(const ResultsView& view, const std::vector<CellSummary>& cells)
      : view_(view), cells_(cells), index_(view), data_(view.dir / "figures" / "data") {
    std::set<std::string> sizes;
    for (const Cell& c : view.cells.cells) {
      sizes.insert(c.id.size);
      if (!c.id.tm.empty()) tms_.insert(c.id.tm);
      group_tms_[c.group].insert(c.id.tm);
    }
    if (sizes.size() == 1 && !sizes.begin()->empty()) size_ = "size " + *sizes.begin();
  }

  FigurePlan run() {
    time_figures();
    speedup_figures();
    abort_figures();
    ladder_figures();
    series_figures();
    region_figures();
    element_figures();
    micro_figures();
    return std::move(plan_);
  }

 private:
  Figure figure(const std::string& name, const std::string& script, const std::string& title,
                const std::string& caption) {
    Figure f;
    f.name = file_stem(name);
    f.script = script;
    f.title = title;
    f.caption = caption;
    set_text(f, "datafile", (data_ / (f.name + ".dat")).string());
    set_text(f, "figtitle", title);
    return f;
  }

  void add(Figure f, const std::string& text) {
    write_data(data_ / (f.name + ".dat"), text);
    plan_.figures.push_back(std::move(f));
  }

  void skip(const std::string& name, const std::string& why) { plan_.skipped.push_back(name + ": " + why); }

  // Writes a Bars figure through bars.gp, or a message when it has no value at all.
  void add_bars(Figure f, const Bars& bars, const std::string& ylabel, const std::string& nothing) {
    if (!has_values(bars)) return skip(f.name, nothing);
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
    set_number(f, "n", static_cast<double>(bars.series.size()));
    set_number(f, "rows", static_cast<double>(bars.rows.size()));
    set_number(f, "errorbars", bars.errorbars ? 1 : 0);
    set_number(f, "refline", bars.refline);
    double width = std::clamp<double>(560.0 + 18.0 * static_cast<double>(bars.rows.size() * bars.series.size()), 800, 1600);
    set_size(f, width, width - 260, bars.rows.size(), longest(bars.rows), bars.rows.empty() ? 0 : bars.rows[0].size());
    add(std::move(f), text.str());
  }

  // What the runs of these groups share, for their titles: the size, and the TM method when
  // one of them is transactional (when either varies in the folder, the group names carry it).
  std::string context(const std::vector<std::string>& groups) const {
    std::vector<std::string> items;
    if (!size_.empty()) items.push_back(size_);
    bool transactional = false;
    for (const auto& g : groups) transactional = transactional || (tms_.size() == 1 && group_tms_.at(g).count(*tms_.begin()));
    if (transactional) items.push_back(*tms_.begin());
    return items.empty() ? std::string() : " (" + joined(items) + ")";
  }

  const CellSummary* cell(const std::string& group, int threads, const std::string& allocator) const {
    for (const CellSummary& c : cells_)
      if (c.group == group && c.threads == threads && c.allocator == allocator) return &c;
    return nullptr;
  }

  // Which runs a figure's numbers come from, and how many per cell (over the
  // cells of `groups` at `threads`; 0 threads: every thread count).
  std::string runs_text(bool timed, const std::vector<std::string>& groups, int threads) const {
    int low = 0, high = 0;
    bool memprof_time = false;
    for (const CellSummary& c : cells_) {
      if ((threads && c.threads != threads) || std::find(groups.begin(), groups.end(), c.group) == groups.end()) continue;
      int n = timed ? int(c.time.n) : c.profiled_runs;
      if (n == 0) continue;
      low = low == 0 ? n : std::min(low, n);
      high = std::max(high, n);
      memprof_time = memprof_time || (timed && c.time_under_memprof);
    }
    std::string count = low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high);
    if (timed && memprof_time)
      return " From the profiled runs (memprof in front; this folder has no timed runs), " + count + " per cell.";
    return timed ? " From the timed runs (the allocator alone, no memprof), " + count + " per cell."
                 : " From the profiled runs (memprof in front), " + count + " per cell.";
  }

  std::string reference_text() const {
    return view_.cells.reference == "glibc" ? "glibc" : view_.cells.reference + " (no glibc runs)";
  }

  void time_figures() {
    if (view_.cells.allocators.size() < 2)
      return skip("time", "only " + view_.cells.allocators.front() + " ran: no other allocator to compare (the summary table has its times)");
    for (int t : view_.cells.threads) {
      Bars bars;
      bars.series = view_.cells.allocators;
      bars.errorbars = true;
      bars.refline = 1;
      std::vector<std::string> missing;
      for (const auto& group : view_.cells.groups) {
        std::vector<Value> row;
        bool any = false;
        for (const auto& a : view_.cells.allocators) {
          const CellSummary* c = cell(group, t, a);
          Value v;
          if (c && c->time.n > 0 && std::isfinite(c->time_vs_reference.value)) {
            v = ratio_bar(c->time_vs_reference);
          } else if (c) {
            missing.push_back(a + " on " + group);
          }
          any = any || c;
          row.push_back(v);
        }
        if (!any) continue;
        bars.rows.push_back(group);
        bars.values.push_back(row);
      }
      if (bars.rows.empty()) continue;
      std::string ref = reference_text();
      Figure f = figure("time-t" + std::to_string(t), "bars",
                        "Time relative to " + ref + ", " + threads_text(t) + context(bars.rows) + ": geometric mean, 95% CI",
                        "Each bar is an allocator's geometric-mean time for the workload at " + threads_text(t) +
                            " divided by " + view_.cells.reference + "'s, with a 95% confidence interval (logs paired by "
                            "repetition); below the dashed line at 1 is faster than " +
                            view_.cells.reference + "." + runs_text(true, bars.rows, t));
      if (!missing.empty())
        f.notes.push_back("no ok run (or no ok " + view_.cells.reference + " run to compare with) for " + joined(missing) +
                          ": bars left out");
      add_bars(std::move(f), bars, "time / " + view_.cells.reference + "'s time (lower is faster)",
               "no ok run reported a time at " + threads_text(t));
    }
  }

  void speedup_figures() {
    if (view_.cells.threads.size() < 2)
      return skip("speedup", "only " + threads_text(view_.cells.threads.front()) +
                                 " ran: no speedup figure (run with --threads=1,2,4 for one)");
    for (const auto& group : view_.cells.groups) {
      std::string name = "speedup-" + group;
      std::vector<int> counts;
      for (int t : view_.cells.threads)
        for (const auto& a : view_.cells.allocators)
          if (!index_.rows(group, t, a).empty()) {
            counts.push_back(t);
            break;
          }
      if (counts.size() < 2) {
        skip(file_stem(name), group + " ran ok at one thread count only: no speedup");
        continue;
      }
      std::ostringstream text;
      text << label("threads");
      for (const auto& a : view_.cells.allocators) text << ' ' << label(a) << ' ' << label(a + " low") << ' ' << label(a + " high");
      text << '\n';
      // Each allocator against its own time at the fewest threads it ran with.
      std::map<std::string, const CellSummary*> base;
      for (const auto& a : view_.cells.allocators)
        for (int t : counts)
          if (const CellSummary* c = cell(group, t, a); c && c->time.n > 0 && !base.count(a)) base[a] = c;
      for (int t : counts) {
        text << t;
        for (const auto& a : view_.cells.allocators) {
          const CellSummary* c = cell(group, t, a);
          Value v;
          if (base.count(a) && c && c->time.n > 0) {
            if (c == base[a]) {
              v = {1, 1, 1};
            } else {
              v = ratio_bar(view_.cells.ratio(*base[a]->cell, *c->cell, "time"));
            }
          }
          text << ' ' << num(v.value) << ' ' << num(v.low) << ' ' << num(v.high);
        }
        text << '\n';
      }
      std::string from = threads_text(counts.front());
      // A workload whose every thread does the whole work (churn, intset, the
      // stress programs) ideally takes as long at N threads as at one: its
      // ideal line is flat, not linear.
      const bool per_thread = Meta{view_.meta, true}.work_per_thread(group);
      Figure f = figure(name, "speedup", "Speedup of " + group + context({group}) + ", each allocator against itself at " + from,
                        "Each line is an allocator's geometric-mean time at " + from +
                            " divided by its geometric-mean time at N threads, with a 95% confidence interval; the dashed line is " +
                            (per_thread ? "the ideal for a workload whose every thread does the whole work: the same "
                                          "time at every thread count (1)."
                                        : "linear speedup (the threads share a fixed amount of work).") +
                            runs_text(true, {group}, 0));
      f.group = group;
      set_number(f, "n", static_cast<double>(view_.cells.allocators.size()));
      set_number(f, "base", counts.front());
      set_text(f, "ideal", per_thread ? "flat" : "linear");
      std::string ticks;
      for (int t : counts) ticks += (ticks.empty() ? "" : ", ") + std::to_string(t);
      set_text(f, "ticks", ticks);
      std::vector<std::string> absent;
      for (const auto& a : view_.cells.allocators)
        if (!base.count(a)) absent.push_back(a);
      if (!absent.empty()) f.notes.push_back("no ok run of " + joined(absent) + ": line left out");
      add(std::move(f), text.str());
    }
  }

  void abort_figures() {
    bool any_tx = false;
    for (int t : view_.cells.threads) {
      Bars bars;
      bars.series = view_.cells.allocators;
      bars.errorbars = true;
      bool nonzero = false;
      for (const auto& group : view_.cells.groups) {
        std::vector<Value> row;
        bool any = false;
        for (const auto& a : view_.cells.allocators) {
          const CellSummary* c = cell(group, t, a);
          Value v = c ? spread_bar(c->abort_pct) : Value{};
          any = any || std::isfinite(v.value);
          nonzero = nonzero || v.high > 0;
          row.push_back(v);
        }
        if (!any) continue;
        bars.rows.push_back(group);
        bars.values.push_back(row);
      }
      if (bars.rows.empty()) continue;
      any_tx = true;
      std::string name = "aborts-t" + std::to_string(t);
      if (!nonzero) {
        skip(name, "no transaction attempt aborted at " + threads_text(t));
        continue;
      }
      Figure f = figure(name, "bars",
                        "Abort rate of transactions, " + threads_text(t) + context(bars.rows) + ": median, lowest and highest run",
                        "Each bar is the share of an allocator's transaction attempts that aborted (1 - commits/attempts): "
                        "the median run's, its whisker from the lowest to the highest run's, so a tall bar of one run "
                        "among runs near 0 shows as such (a 0 above a slot: no attempt aborted in the median run; no 0 "
                        "and no bar: no run). The figure measures how often attempts aborted, not why." +
                            runs_text(true, bars.rows, t));
      set_number(f, "zerolabels", 1);
      add_bars(std::move(f), bars, "aborted attempts (% of attempts)", "no transactional run");
    }
    if (!any_tx) skip("aborts", "no ok run made transactions (tx_attempts_count > 0): no abort-rate figure");
  }

  void ladder_figures() {
    for (const auto& group : view_.cells.groups) {
      int t = index_.top_threads(group);
      std::string name = "memory-" + group;
      if (t == 0) {
        skip(file_stem(name), "no ok run of " + group);
        continue;
      }
      Bars bars;
      bars.series = {"requested peak", "usable peak", "allocator resident (end)", "RSS (end)", "PSS (end)"};
      // Only resident bytes go in the ladder: an allocator that reports only
      // what it has mapped (glibc, mimalloc) gets no bar there, its mapped
      // bytes a note (mapped is not memory in use: the two are not one bar).
      std::vector<std::string> mapped, silent;
      std::map<std::string, std::vector<std::string>> absent;  // measure -> allocators
      for (const auto& a : index_.allocators(group, t)) {
        double holds = index_.median_of(group, t, a, "alloc_resident_bytes");
        if (std::isnan(holds)) {
          double map = index_.median_of(group, t, a, "alloc_mapped_bytes");
          if (std::isnan(map)) silent.push_back(a);
          else mapped.push_back(a + " " + number_text("%.1f", map / kMiB) + " MiB");
        }
        const std::vector<std::pair<const char*, double>> measures = {{"heap_requested_peak_bytes", kMiB},
                                                                       {"heap_usable_peak_bytes", kMiB},
                                                                       {"alloc_resident_bytes", kMiB},
                                                                       {"rss_kb", 1024.0},
                                                                       {"pss_kb", 1024.0}};
        std::vector<Value> row;
        for (size_t m = 0; m < measures.size(); ++m) {
          std::vector<double> v = index_.values_of(group, t, a, measures[m].first);
          for (double& x : v) x /= measures[m].second;
          if (v.empty() && m != 2) absent[bars.series[m]].push_back(a);
          row.push_back(spread_bar(v));
        }
        bars.rows.push_back(a);
        bars.values.push_back(row);
      }
      bars.errorbars = true;
      Figure f = figure(name, "bars", "Memory of " + group + " at " + threads_text(t) + context({group}) + ": median, MiB",
                        "For each allocator, left to right: the peak of live requested bytes, the peak of live usable "
                        "bytes (with the allocator's rounding), the bytes the allocator holds resident and "
                        "the process's RSS and PSS at the end of the measured phase; the steps of the ladder are what "
                        "each layer adds to what the program asked for. Bars are medians over the profiled runs, "
                        "whiskers the lowest and highest run." + runs_text(false, {group}, t));
      f.group = group;
      if (!mapped.empty())
        f.notes.push_back("no resident figure, only mapped bytes (not in the ladder): " + joined(mapped));
      if (!silent.empty())
        f.notes.push_back(joined(silent) + " reports nothing about its own memory: its 'allocator resident' bar is left out");
      for (const auto& [measure, list] : absent)
        f.notes.push_back("no " + measure + " for " + joined(list) + ": bar left out");
      add_bars(std::move(f), bars, "MiB", "no run reported its memory (profiled with --profile=none?)");
    }
  }

  void series_figures() {
    const fs::path file = view_.dir / "series.csv";
    std::set<std::string> with_points;
    CsvRow header = scan_series(file, [&](const CsvRow& row) { with_points.insert(row[0]); });
    if (with_points.empty() || header[0] != "run_id")
      return skip("series", "series.csv has no points (the sweep ran with --no-series): no memory-over-time figures");
    auto column = [&](const char* name) -> std::ptrdiff_t {
      auto it = std::find(header.begin(), header.end(), name);
      return it == header.end() ? -1 : it - header.begin();
    };
    std::ptrdiff_t t_col = column("t_ns"), heap_col = column("heap_requested_max_bytes"), rss_col = column("rss_kb");
    if (t_col < 0) return skip("series", "series.csv has no t_ns column: no memory-over-time figures");
    // One run per group and allocator: the lowest repetition at the most threads that has points.
    struct Line {
      std::string allocator;
      const CsvRow* run;
    };
    const RunsTable& table = index_.table();
    std::map<std::string, std::vector<Line>> lines;
    std::map<std::string, std::vector<std::string>> without;
    std::set<std::string> wanted;
    for (const auto& group : view_.cells.groups) {
      int t = index_.top_threads(group);
      for (const auto& a : t ? index_.allocators(group, t) : std::vector<std::string>{}) {
        std::vector<const CsvRow*> runs = index_.rows(group, t, a);
        std::sort(runs.begin(), runs.end(), [&](const CsvRow* x, const CsvRow* y) {
          return table.number(*x, "rep") < table.number(*y, "rep");
        });
        auto chosen = std::find_if(runs.begin(), runs.end(),
                                   [&](const CsvRow* r) { return with_points.count(table.text(*r, "run_id")); });
        if (chosen == runs.end()) {
          without[group].push_back(a);
          continue;
        }
        lines[group].push_back({a, *chosen});
        wanted.insert(table.text(**chosen, "run_id"));
      }
    }
    std::map<std::string, std::vector<CsvRow>> points;  // run_id -> its rows, for the chosen runs only
    scan_series(file, [&](const CsvRow& row) {
      if (wanted.count(row[0])) points[row[0]].push_back(row);
    });
    auto mib = [](const CsvRow& row, std::ptrdiff_t c, double scale) { return c < 0 ? kNaN : field_number(row[c]) / scale; };
    for (const auto& group : view_.cells.groups) {
      int t = index_.top_threads(group);
      std::string name = "series-" + group;
      if (t == 0) continue;  // ladder_figures already said so
      if (!lines.count(group)) {
        skip(file_stem(name), "no ok run of " + group + " has series points");
        continue;
      }
      std::ostringstream text;
      std::string names;
      std::set<std::string> reps;
      for (const Line& line : lines[group]) {
        const std::string& id = table.text(*line.run, "run_id");
        reps.insert(table.text(*line.run, "rep"));
        if (!names.empty()) text << "\n\n";
        text << "# " << line.allocator << ", run " << id
             << ": seconds, live requested heap (maximum since the previous point) MiB, RSS MiB\n";
        for (const CsvRow& p : points[id])
          text << num(field_number(p[t_col]) / 1e9) << ' ' << num(mib(p, heap_col, kMiB)) << ' '
               << num(mib(p, rss_col, 1024.0)) << '\n';
        names += (names.empty() ? "" : " ") + line.allocator;
      }
      std::string which = reps.size() == 1 ? "rep " + *reps.begin() : "one run each";
      Figure f = figure(name, "series", "Memory over time, " + group + ", " + threads_text(t) + context({group}) + ": " + which,
                        "Solid lines are each allocator's RSS and dashed lines the live requested heap (the maximum "
                        "since the previous point, as memprofile draws it), against seconds since the process started; "
                        "the gap between them is what the allocator and the process hold beyond the program's data.");
      f.group = group;
      set_text(f, "names", names);
      set_number(f, "n", static_cast<double>(lines[group].size()));
      if (without.count(group)) f.notes.push_back("no series points for " + joined(without[group]) + ": line left out");
      add(std::move(f), text.str());
    }
  }

  void region_figures() {
    const std::vector<std::string> keys = {"allocs_seq_count", "allocs_par_count", "allocs_tx_count",
                                           "frees_seq_count",  "frees_par_count",  "frees_tx_count"};
    for (const auto& group : view_.cells.groups) {
      int t = index_.top_threads(group);
      if (t == 0) continue;
      std::string name = "regions-" + group;
      std::vector<std::string> allocators = index_.allocators(group, t);
      std::vector<std::vector<double>> values;
      double top = 0;
      bool any = false;
      for (const auto& a : allocators) {
        std::vector<double> row;
        for (const auto& k : keys) row.push_back(index_.median_of(group, t, a, k));
        for (double v : row) any = any || std::isfinite(v);
        // The spread of the runs: the lowest and highest total of allocations, then of frees (whiskers).
        const RunsTable& table = index_.table();
        for (std::size_t first : {std::size_t(0), std::size_t(3)}) {
          const Value total = spread_bar(index_.values_by(group, t, a, keys[first], [&](const CsvRow& r) {
            return table.number(r, keys[first]) + table.number(r, keys[first + 1]) + table.number(r, keys[first + 2]);
          }));
          row.push_back(total.low);
          row.push_back(total.high);
          top = std::max(top, std::isfinite(total.high) ? total.high : 0.0);
        }
        top = std::max({top, std::isfinite(row[0] + row[1] + row[2]) ? row[0] + row[1] + row[2] : 0.0,
                        std::isfinite(row[3] + row[4] + row[5]) ? row[3] + row[4] + row[5] : 0.0});
        values.push_back(row);
      }
      if (!any) {
        skip(file_stem(name), "no run of " + group + " counted allocations (profiled with --profile=none?)");
        continue;
      }
      // The calls are the program's: where every allocator saw the same
      // counts (one thread, deterministic), one bar group says so instead of
      // the same bars once per allocator.
      const bool identical = allocators.size() > 1 && std::all_of(values.begin(), values.end(), [&](const auto& row) {
        for (size_t k = 0; k < row.size(); ++k)
          if (!(row[k] == values[0][k] || (std::isnan(row[k]) && std::isnan(values[0][k])))) return false;
        return true;
      });
      if (identical) {
        allocators = {"every allocator (" + std::to_string(allocators.size()) + ")"};
        values.resize(1);
      }
      // Counts in a unit that keeps the axis short.
      double scale = top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
      std::string unit = scale == 1e6 ? " (millions)" : scale == 1e3 ? " (thousands)" : "";
      std::ostringstream text;
      text << "#";
      for (const auto& k : keys) text << ' ' << k;
      text << " allocs_low allocs_high frees_low frees_high (" << (unit.empty() ? "calls" : unit.substr(2, unit.size() - 3))
           << "; the last four: the lowest and highest run's totals)\n";
      for (size_t i = 0; i < allocators.size(); ++i) {
        text << label(allocators[i]);
        for (double v : values[i]) text << ' ' << num(v / scale);
        text << '\n';
      }
      Figure f = figure(name, "regions", "Allocations and frees by region, " + group + ", " + threads_text(t) + context({group}) + ": median",
                        std::string(identical ? "Left the allocation calls and right the frees, the same under every "
                                                "allocator (the program's own calls), "
                                              : "Left the allocation calls and right the frees of each allocator's runs, ") +
                            "split into the sequential (seq), parallel (par) and transactional (tx) regions; medians "
                            "over the repetitions, the whisker on each stack from the lowest to the highest run's total." +
                            runs_text(false, {group}, t));
      f.group = group;
      set_text(f, "ylab", "calls" + unit);
      set_number(f, "ymax", top / scale * 1.08);  // both panels on one scale
      double width = std::clamp<double>(600.0 + 150.0 * static_cast<double>(allocators.size()), 800, 1600);
      set_size(f, width, width / 2 - 100, allocators.size(), longest(allocators), allocators.empty() ? 0 : allocators[0].size());
      set_number(f, "rows", static_cast<double>(allocators.size()));
      add(std::move(f), text.str());
    }
  }

  // Map workloads report elements_count: bytes and time per element, per container,
  // from the fewest threads each ran with (one container, not shards; no parallel time).
  // The micro-benchmarks (micro.csv, timed runs only): ns per op by size for
  // malloc_free, one line per allocator; the other benchmarks relative to the
  // reference allocator. Per thread count.
  void micro_figures() {
    std::vector<MicroRow> rows = load_micro(view_.dir);
    std::map<std::string, std::string> allocator_of;  // run_id of an ok run -> its cell's allocator
    std::map<std::string, bool> ok;
    for (const Cell& c : view_.cells.cells)
      for (const CsvRow* r : c.ok) {
        allocator_of[view_.table->text(*r, "run_id")] = c.allocator;
        ok[view_.table->text(*r, "run_id")] = true;
      }
    // (benchmark, threads) -> allocator -> ns per op of every timed repetition
    std::map<std::pair<std::string, long>, std::map<std::string, std::vector<stats::Sample>>> samples;
    std::map<std::string, long> size_of;
    for (const MicroRow& m : rows) {
      std::string id = std::to_string(m.run_id);
      if (m.kind != RunKind::timed || !ok[id]) continue;
      // Each benchmark repetition of each run its own sample: no two allocators' share a run, so unpaired.
      samples[{m.benchmark, m.threads}][allocator_of[id]].push_back({m.run_id * 1000 + m.repetition, m.real_ns_per_op});
      size_of[m.benchmark] = m.size_bytes;
    }
    if (samples.empty()) return skip("micro", "no timed micro-benchmark run (the micro workloads): no micro figures");
    std::set<long> thread_counts;
    for (const auto& [key, by] : samples) thread_counts.insert(key.second);
    for (long t : thread_counts) {
      // The ladder.
      std::vector<std::string> ladder;
      for (const auto& [key, by] : samples)
        if (key.second == t && key.first.rfind("malloc_free/", 0) == 0) ladder.push_back(key.first);
      std::sort(ladder.begin(), ladder.end(), [&](const std::string& a, const std::string& b) { return size_of[a] < size_of[b]; });
      if (ladder.size() >= 2) {
        std::ostringstream text;
        text << label("size");
        for (const auto& a : view_.cells.allocators) text << ' ' << label(a) << ' ' << label(a + " low") << ' ' << label(a + " high");
        text << '\n';
        for (const auto& b : ladder) {
          text << size_of[b];
          for (const auto& a : view_.cells.allocators) {
            auto it = samples[{b, t}].find(a);
            std::vector<double> values;
            if (it != samples[{b, t}].end())
              for (const stats::Sample& x : it->second) values.push_back(x.value);
            const stats::LogEstimate e = stats::log_estimate(values);
            text << ' ' << num(e.center) << ' ' << num(e.low) << ' ' << num(e.high);
          }
          text << '\n';
        }
        Figure f = figure("micro-ladder-t" + std::to_string(t), "ladder",
                          "malloc + free by size, " + threads_text(int(t)) + ": geometric mean ns per pair",
                          "Each line is an allocator: Google Benchmark's time for one malloc and its free, by the block's "
                          "size (both axes logarithmic), geometric mean over the repetitions of the timed runs, with its "
                          "95% interval.");
        set_number(f, "n", static_cast<double>(view_.cells.allocators.size()));
        add(std::move(f), text.str());
      }
      // The other benchmarks against the reference allocator.
      Bars bars;
      bars.series = view_.cells.allocators;
      bars.errorbars = true;
      bars.refline = 1;
      for (const auto& [key, by] : samples) {
        if (key.second != t || key.first.rfind("malloc_free/", 0) == 0 || !by.count(view_.cells.reference)) continue;
        std::vector<Value> row;
        for (const auto& a : view_.cells.allocators)
          row.push_back(by.count(a) ? ratio_bar(stats::log_ratio(by.at(a), by.at(view_.cells.reference))) : Value{});
        bars.rows.push_back(key.first);
        bars.values.push_back(row);
      }
      if (bars.rows.empty()) continue;
      Figure f = figure("micro-others-t" + std::to_string(t), "bars",
                        "Micro-benchmarks relative to " + reference_text() + ", " + threads_text(int(t)) + ": geometric mean, 95% CI",
                        "Each bar is an allocator's geometric-mean time per operation of the benchmark over " + view_.cells.reference +
                            "'s (timed runs' repetitions), with a 95% interval; below the dashed line at 1 is faster.");
      add_bars(std::move(f), bars, "time / " + view_.cells.reference + "'s (lower is faster)", "no micro-benchmark with a reference run");
    }
  }

  static std::string no_rss_note(const std::set<std::string>& groups) {
    return "no RSS before the fill (rss_baseline_kb) for " + joined({groups.begin(), groups.end()}) +
           ": what the fill added is unknown, its RSS bar left out";
  }

  void element_figures() {
    std::vector<std::string> containers, allocators, inserts;
    std::set<int> thread_counts;
    for (const auto& group : view_.cells.groups) {
      int t = index_.bottom_threads(group);
      bool has = false;
      for (const auto& a : index_.allocators(group, t))
        for (const CsvRow* r : index_.rows(group, t, a))
          if (index_.table().number(*r, "elements_count") > 0) {
            has = true;
            thread_counts.insert(t);
            if (index_.table().text(*r, "app") == "insert" &&
                std::find(inserts.begin(), inserts.end(), group) == inserts.end())
              inserts.push_back(group);
            if (std::find(allocators.begin(), allocators.end(), a) == allocators.end()) allocators.push_back(a);
          }
      if (has) containers.push_back(group);
    }
    if (containers.empty())
      return skip("bytes-per-element", "no ok run reported elements_count (the map workloads do): no bytes-per-element figures");
    std::sort(allocators.begin(), allocators.end(), [&](const std::string& x, const std::string& y) {
      return std::find(view_.cells.allocators.begin(), view_.cells.allocators.end(), x) <
             std::find(view_.cells.allocators.begin(), view_.cells.allocators.end(), y);
    });
    struct Measure {
      std::string key, title, file;
    };
    const std::vector<Measure> measures = {{kRequestedPerElement, "requested", "requested"},
                                           {"heap_usable_phase_end_bytes", "usable", "usable"},
                                           {kRssPerElement, "RSS added by the fill", "rss"}};
    // Every run's figure per element (cells.h: requested and the RSS the fill
    // added are the summary's own; usable bytes over the elements here).
    std::set<std::string> no_rss;  // groups whose runs report no RSS before the fill (maps churn)
    auto per_element = [&](const std::string& key, const std::string& group, const std::string& a) {
      const RunsTable& t = index_.table();
      std::vector<double> v = index_.values_by(group, index_.bottom_threads(group), a, key == kRssPerElement ? "rss_kb" : key,
                                               [&](const CsvRow& r) {
                                                 if (key == kRequestedPerElement || key == kRssPerElement)
                                                   return view_.cells.value(r, key);
                                                 const double n = t.number(r, "elements_count");
                                                 return n > 0 ? t.number(r, key) / n : kNaN;
                                               });
      if (key == kRssPerElement && v.empty() && !index_.values_of(group, index_.bottom_threads(group), a, "rss_kb").empty())
        no_rss.insert(group);
      return spread_bar(v);
    };
    const std::string how = "bytes at the end of the measured phase divided by the elements held: the median over the "
                            "profiled runs (memprof in front), whiskers at the lowest and highest run";
    std::string threads;
    for (int t : thread_counts) threads += (threads.empty() ? ", " : " or ") + threads_text(t);
    if (allocators.size() == 1) {
      Bars bars;
      bars.errorbars = true;
      for (const Measure& m : measures) bars.series.push_back(m.title);
      std::vector<std::string> notes;
      for (const auto& c : containers) {
        std::vector<Value> row;
        for (const Measure& m : measures) {
          Value v = per_element(m.key, c, allocators[0]);
          if (std::isnan(v.value) && !(m.key == kRssPerElement && no_rss.count(c)))
            notes.push_back("no " + m.key + " for " + c + ": bar left out");
          row.push_back(v);
        }
        bars.rows.push_back(c);
        bars.values.push_back(row);
      }
      Figure f = figure("bytes-per-element", "bars", "Bytes per element under " + allocators[0] + threads + context(containers),
                        "For each container: requested, usable and resident (RSS, less the RSS before the fill) " + how +
                            "." + runs_text(false, containers, 0));
      f.notes = notes;
      if (!no_rss.empty()) f.notes.push_back(no_rss_note(no_rss));
      add_bars(std::move(f), bars, "bytes per element", "no run reported the heap or RSS at the end of its phase");
    } else {
      for (const Measure& m : measures) {
        Bars bars;
        bars.series = allocators;
        bars.errorbars = true;
        std::map<std::string, std::vector<std::string>> missing;  // allocator -> containers
        for (const auto& c : containers) {
          std::vector<Value> row;
          for (const auto& a : allocators) {
            Value v = per_element(m.key, c, a);
            if (std::isnan(v.value) && !(m.key == kRssPerElement && no_rss.count(c))) missing[a].push_back(c);
            row.push_back(v);
          }
          bars.rows.push_back(c);
          bars.values.push_back(row);
        }
        Figure f = figure("bytes-per-element-" + m.file, "bars", "Bytes per element, " + m.title + threads + context(containers),
                          "For each container, one bar per allocator: " + m.title + " " + how + "." +
                              runs_text(false, containers, 0));
        if (m.key == kRssPerElement && !no_rss.empty()) f.notes.push_back(no_rss_note(no_rss));
        std::vector<std::string> where;
        for (const auto& a : allocators)
          if (missing.count(a))
            where.push_back(a + (missing[a].size() == containers.size() ? "" : " (" + joined(missing[a]) + ")"));
        if (!where.empty()) f.notes.push_back("no " + m.key + " under " + joined(where) + ": bars left out");
        add_bars(std::move(f), bars, m.title + " bytes per element",
                 m.key == kRssPerElement
                     ? std::string("no run reported the RSS before the fill (rss_baseline_kb): what the fill added is unknown")
                     : "no run reported " + m.key + " (as a column or a key in extra)");
      }
    }
    if (inserts.empty()) return skip("insert-time", "no insert run of a map workload: no time-per-insert figure");
    Bars bars;
    bars.series = allocators;
    bars.errorbars = true;
    for (const auto& c : inserts) {
      std::vector<Value> row;
      for (const auto& a : allocators) row.push_back(per_element("elapsed_ns", c, a));
      bars.rows.push_back(c);
      bars.values.push_back(row);
    }
    Figure f = figure("insert-time", "bars", "Time per inserted element" + threads + context(inserts) + ": median, ns",
                      "For each container, one bar per allocator: the measured phase's time divided by the elements "
                      "inserted, the median over the repetitions, whiskers at the fastest and slowest run." +
                          runs_text(true, inserts, 0));
    add_bars(std::move(f), bars, "ns per element", "no map run reported elapsed_ns");
  }

  const ResultsView& view_;
  const std::vector<CellSummary>& cells_;
  Index index_;
  fs::path data_;
  std::string size_;
  std::set<std::string> tms_;
  std::map<std::string, std::set<std::string>> group_tms_;
  FigurePlan plan_;
};

}  // namespace

std::string gnuplot_string(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

FigurePlan prepare_figures(const ResultsView& view, const std::vector<CellSummary>& cells) {
  return Preparer(view, cells).run();
}

}  // namespace allocstamp
