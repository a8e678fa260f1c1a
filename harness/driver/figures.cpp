// figures.cpp — one function per figure kind: each picks its runs, computes
// medians, ratios and intervals with statistics.h and writes its data file; a
// metric that no run reported gives a message instead of a file.
#include "figures.h"

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
#include "format.h"
#include "results_folder.h"
#include "meta.h"
#include "micro_results.h"
#include "runs.h"

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

double median(const std::vector<double>& values) { return stats::summarize(values).median; }

std::string threads_text(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The ok runs by (group, threads, allocator), and what every figure asks of them.
class Index {
 public:
  explicit Index(const ResultsView& view) : view_(view) {
    for (const RunRow& row : view.runs)
      if (row.values.at("status") == "ok") ok_[{row.group, row.threads, row.values.at("allocator")}].push_back(&row);
  }
  const std::vector<const RunRow*>& rows(const std::string& group, int threads, const std::string& allocator) const {
    static const std::vector<const RunRow*> none;
    auto it = ok_.find({group, threads, allocator});
    return it == ok_.end() ? none : it->second;
  }
  // The ok runs of the cell that measure `key`: timed runs for times and the
  // workload's metrics, profiled runs for memprof's (profiled runs for all in
  // a cell without timed runs).
  std::vector<const RunRow*> rows_for(const std::string& group, int threads, const std::string& allocator,
                                      const std::string& key) const {
    const auto& all = rows(group, threads, allocator);
    bool timed = std::any_of(all.begin(), all.end(), [](const RunRow* r) { return r->kind == RunKind::timed; });
    std::vector<const RunRow*> out;
    for (const RunRow* r : all)
      if (serves_key(r->kind, key, timed)) out.push_back(r);
    return out;
  }
  // The most threads a group ran with successfully (0: no ok run).
  // The fewest threads the group ran with (0 when it has no ok run).
  int bottom_threads(const std::string& group) const {
    int bottom = 0;
    for (const auto& [key, list] : ok_)
      if (std::get<0>(key) == group && (bottom == 0 || std::get<1>(key) < bottom)) bottom = std::get<1>(key);
    return bottom;
  }
  int top_threads(const std::string& group) const {
    int top = 0;
    for (const auto& [key, list] : ok_)
      if (std::get<0>(key) == group) top = std::max(top, std::get<1>(key));
    return top;
  }
  // Allocators with ok runs of the group at that thread count, in the folder's order.
  std::vector<std::string> allocators(const std::string& group, int threads) const {
    std::vector<std::string> out;
    for (const auto& a : view_.allocators)
      if (!rows(group, threads, a).empty()) out.push_back(a);
    return out;
  }
  // Median of f(row) over the ok runs that measure `key` (rows_for), NaN values ignored.
  template <typename F>
  double median_by(const std::string& group, int threads, const std::string& allocator, const std::string& key,
                   F f) const {
    std::vector<double> values;
    for (const RunRow* r : rows_for(group, threads, allocator, key)) values.push_back(f(*r));
    return median(values);
  }
  double median_of(const std::string& group, int threads, const std::string& allocator, const std::string& key) const {
    return median_by(group, threads, allocator, key, [&](const RunRow& r) { return number(r, key); });
  }

 private:
  const ResultsView& view_;
  std::map<std::tuple<std::string, int, std::string>, std::vector<const RunRow*>> ok_;
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
    for (const RunRow& r : view.runs) {
      sizes.insert(r.values.at("size"));
      if (!r.values.at("tm").empty()) tms_.insert(r.values.at("tm"));
      group_tms_[r.group].insert(r.values.at("tm"));
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
    return view_.reference == "glibc" ? "glibc" : view_.reference + " (no glibc runs)";
  }

  void time_figures() {
    if (view_.allocators.size() < 2)
      return skip("time", "only " + view_.allocators.front() + " ran: no other allocator to compare (the summary table has its times)");
    for (int t : view_.threads) {
      Bars bars;
      bars.series = view_.allocators;
      bars.errorbars = true;
      bars.refline = 1;
      std::vector<std::string> missing;
      for (const auto& group : view_.groups) {
        std::vector<Value> row;
        bool any = false;
        for (const auto& a : view_.allocators) {
          const CellSummary* c = cell(group, t, a);
          Value v;
          if (c && c->time.n > 0 && std::isfinite(c->vs_reference.value)) {
            v.value = c->vs_reference.value;
            // A time ratio is positive: an interval reaching below 0 only says "very noisy".
            v.low = std::isnan(c->vs_reference.ci_low) ? v.value : std::max(0.0, c->vs_reference.ci_low);
            v.high = std::isnan(c->vs_reference.ci_high) ? v.value : c->vs_reference.ci_high;
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
                        "Time relative to " + ref + ", " + threads_text(t) + context(bars.rows) + ": mean, 95% CI",
                        "Each bar is an allocator's mean time for the workload at " + threads_text(t) +
                            " divided by " + view_.reference + "'s, with a 95% confidence interval; below the dashed line at 1 is faster than " +
                            view_.reference + "." + runs_text(true, bars.rows, t));
      if (!missing.empty())
        f.notes.push_back("no ok run (or no ok " + view_.reference + " run to compare with) for " + joined(missing) +
                          ": bars left out");
      add_bars(std::move(f), bars, "time / " + view_.reference + "'s time (lower is faster)",
               "no ok run reported a time at " + threads_text(t));
    }
  }

  void speedup_figures() {
    if (view_.threads.size() < 2)
      return skip("speedup", "only " + threads_text(view_.threads.front()) +
                                 " ran: no speedup figure (run with --threads=1,2,4 for one)");
    for (const auto& group : view_.groups) {
      std::string name = "speedup-" + group;
      std::vector<int> counts;
      for (int t : view_.threads)
        for (const auto& a : view_.allocators)
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
      for (const auto& a : view_.allocators) text << ' ' << label(a) << ' ' << label(a + " low") << ' ' << label(a + " high");
      text << '\n';
      // Each allocator against its own time at the fewest threads it ran with.
      std::map<std::string, const CellSummary*> base;
      for (const auto& a : view_.allocators)
        for (int t : counts)
          if (const CellSummary* c = cell(group, t, a); c && c->time.n > 0 && !base.count(a)) base[a] = c;
      for (int t : counts) {
        text << t;
        for (const auto& a : view_.allocators) {
          const CellSummary* c = cell(group, t, a);
          Value v;
          if (base.count(a) && c && c->time.n > 0) {
            if (c == base[a]) {
              v = {1, 1, 1};
            } else {
              stats::Ratio r = stats::ratio_of_means(base[a]->time, c->time);
              v = {r.value, std::isnan(r.ci_low) ? r.value : std::max(0.0, r.ci_low),
                   std::isnan(r.ci_high) ? r.value : r.ci_high};
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
                        "Each line is an allocator's mean time at " + from +
                            " divided by its mean time at N threads, with a 95% confidence interval; the dashed line is " +
                            (per_thread ? "the ideal for a workload whose every thread does the whole work: the same "
                                          "time at every thread count (1)."
                                        : "linear speedup (the threads share a fixed amount of work).") +
                            runs_text(true, {group}, 0));
      f.group = group;
      set_number(f, "n", static_cast<double>(view_.allocators.size()));
      set_number(f, "base", counts.front());
      set_text(f, "ideal", per_thread ? "flat" : "linear");
      std::string ticks;
      for (int t : counts) ticks += (ticks.empty() ? "" : ", ") + std::to_string(t);
      set_text(f, "ticks", ticks);
      std::vector<std::string> absent;
      for (const auto& a : view_.allocators)
        if (!base.count(a)) absent.push_back(a);
      if (!absent.empty()) f.notes.push_back("no ok run of " + joined(absent) + ": line left out");
      add(std::move(f), text.str());
    }
  }

  void abort_figures() {
    auto abort_rate = [](const RunRow& r) {
      double attempts = number(r, "tx_attempts_count"), commits = number(r, "tx_commits_count");
      return attempts > 0 && std::isfinite(commits) ? 100.0 * (1.0 - commits / attempts) : kNaN;
    };
    bool any_tx = false;
    for (int t : view_.threads) {
      Bars bars;
      bars.series = view_.allocators;
      bool nonzero = false;
      for (const auto& group : view_.groups) {
        std::vector<Value> row;
        bool any = false;
        for (const auto& a : view_.allocators) {
          Value v;
          v.value = index_.median_by(group, t, a, "tx_attempts_count", abort_rate);
          any = any || std::isfinite(v.value);
          nonzero = nonzero || v.value > 0;
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
      Figure f = figure(name, "bars", "Abort rate of transactions, " + threads_text(t) + context(bars.rows) + ": median",
                        "Each bar is the share of an allocator's transaction attempts that aborted (1 - commits/attempts), "
                        "median over the repetitions (a 0 above a slot: no attempt aborted; no 0 and no bar: no "
                        "run); more aborts under one allocator point to false conflicts between blocks it placed "
                        "close together." + runs_text(true, bars.rows, t));
      set_number(f, "zerolabels", 1);
      add_bars(std::move(f), bars, "aborted attempts (% of attempts)", "no transactional run");
    }
    if (!any_tx) skip("aborts", "no ok run made transactions (tx_attempts_count > 0): no abort-rate figure");
  }

  void ladder_figures() {
    for (const auto& group : view_.groups) {
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
        std::vector<double> mib = {index_.median_of(group, t, a, "heap_requested_peak_bytes") / kMiB,
                                   index_.median_of(group, t, a, "heap_usable_peak_bytes") / kMiB, holds / kMiB,
                                   index_.median_of(group, t, a, "rss_kb") / 1024.0,
                                   index_.median_of(group, t, a, "pss_kb") / 1024.0};
        std::vector<Value> row;
        for (size_t m = 0; m < mib.size(); ++m) {
          if (std::isnan(mib[m]) && m != 2) absent[bars.series[m]].push_back(a);
          row.push_back({mib[m]});
        }
        bars.rows.push_back(a);
        bars.values.push_back(row);
      }
      Figure f = figure(name, "bars", "Memory of " + group + " at " + threads_text(t) + context({group}) + ": median, MiB",
                        "For each allocator, left to right: the peak of live requested bytes, the peak of live usable "
                        "bytes (with the allocator's rounding), the bytes the allocator holds resident and "
                        "the process's RSS and PSS at the end of the measured phase; the steps of the ladder are what "
                        "each layer adds to what the program asked for." + runs_text(false, {group}, t));
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
      const RunRow* run;
    };
    std::map<std::string, std::vector<Line>> lines;
    std::map<std::string, std::vector<std::string>> without;
    std::set<std::string> wanted;
    for (const auto& group : view_.groups) {
      int t = index_.top_threads(group);
      for (const auto& a : t ? index_.allocators(group, t) : std::vector<std::string>{}) {
        std::vector<const RunRow*> runs = index_.rows(group, t, a);
        std::sort(runs.begin(), runs.end(), [](const RunRow* x, const RunRow* y) {
          return parse_number(x->values.at("rep")) < parse_number(y->values.at("rep"));
        });
        auto chosen = std::find_if(runs.begin(), runs.end(),
                                   [&](const RunRow* r) { return with_points.count(r->values.at("run_id")); });
        if (chosen == runs.end()) {
          without[group].push_back(a);
          continue;
        }
        lines[group].push_back({a, *chosen});
        wanted.insert((*chosen)->values.at("run_id"));
      }
    }
    std::map<std::string, std::vector<CsvRow>> points;  // run_id -> its rows, for the chosen runs only
    scan_series(file, [&](const CsvRow& row) {
      if (wanted.count(row[0])) points[row[0]].push_back(row);
    });
    auto mib = [](const CsvRow& row, std::ptrdiff_t c, double scale) { return c < 0 ? kNaN : parse_number(row[c]) / scale; };
    for (const auto& group : view_.groups) {
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
        const std::string& id = line.run->values.at("run_id");
        reps.insert(line.run->values.at("rep"));
        if (!names.empty()) text << "\n\n";
        text << "# " << line.allocator << ", run " << id
             << ": seconds, live requested heap (maximum since the previous point) MiB, RSS MiB\n";
        for (const CsvRow& p : points[id])
          text << num(parse_number(p[t_col]) / 1e9) << ' ' << num(mib(p, heap_col, kMiB)) << ' '
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
    for (const auto& group : view_.groups) {
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
      text << " (" << (unit.empty() ? "calls" : unit.substr(2, unit.size() - 3)) << ")\n";
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
                            "over the repetitions." + runs_text(false, {group}, t));
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
    std::map<std::string, std::string> allocator_of;  // run_id -> allocator
    std::map<std::string, bool> ok;
    for (const RunRow& r : view_.runs) {
      allocator_of[r.values.at("run_id")] = r.values.at("allocator");
      ok[r.values.at("run_id")] = r.values.at("status") == "ok";
    }
    // (benchmark, threads) -> allocator -> ns per op of every timed repetition
    std::map<std::pair<std::string, long>, std::map<std::string, std::vector<double>>> samples;
    std::map<std::string, long> size_of;
    for (const MicroRow& m : rows) {
      std::string id = std::to_string(m.run_id);
      if (m.kind != RunKind::timed || !ok[id]) continue;
      samples[{m.benchmark, m.threads}][allocator_of[id]].push_back(m.real_ns_per_op);
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
        for (const auto& a : view_.allocators) text << ' ' << label(a) << ' ' << label(a + " low") << ' ' << label(a + " high");
        text << '\n';
        for (const auto& b : ladder) {
          text << size_of[b];
          for (const auto& a : view_.allocators) {
            auto it = samples[{b, t}].find(a);
            stats::Summary sm = it == samples[{b, t}].end() ? stats::Summary{} : stats::summarize(it->second);
            text << ' ' << num(sm.n ? sm.median : kNaN) << ' ' << num(sm.n > 1 ? sm.ci_low : kNaN) << ' '
                 << num(sm.n > 1 ? sm.ci_high : kNaN);
          }
          text << '\n';
        }
        Figure f = figure("micro-ladder-t" + std::to_string(t), "ladder",
                          "malloc + free by size, " + threads_text(int(t)) + ": median ns per pair",
                          "Each line is an allocator: Google Benchmark's time for one malloc and its free, by the block's "
                          "size (both axes logarithmic), median over the repetitions of the timed runs, with the 95% "
                          "interval of the mean.");
        set_number(f, "n", static_cast<double>(view_.allocators.size()));
        add(std::move(f), text.str());
      }
      // The other benchmarks against the reference allocator.
      Bars bars;
      bars.series = view_.allocators;
      bars.errorbars = true;
      bars.refline = 1;
      for (const auto& [key, by] : samples) {
        if (key.second != t || key.first.rfind("malloc_free/", 0) == 0 || !by.count(view_.reference)) continue;
        stats::Summary ref = stats::summarize(by.at(view_.reference));
        std::vector<Value> row;
        for (const auto& a : view_.allocators) {
          Value v;
          if (by.count(a)) {
            stats::Ratio r = stats::ratio_of_means(stats::summarize(by.at(a)), ref);
            v = {r.value, std::isnan(r.ci_low) ? r.value : std::max(0.0, r.ci_low), std::isnan(r.ci_high) ? r.value : r.ci_high};
          }
          row.push_back(v);
        }
        bars.rows.push_back(key.first);
        bars.values.push_back(row);
      }
      if (bars.rows.empty()) continue;
      Figure f = figure("micro-others-t" + std::to_string(t), "bars",
                        "Micro-benchmarks relative to " + reference_text() + ", " + threads_text(int(t)) + ": mean, 95% CI",
                        "Each bar is an allocator's mean time per operation of the benchmark over " + view_.reference +
                            "'s (timed runs' repetitions), with a 95% interval; below the dashed line at 1 is faster.");
      add_bars(std::move(f), bars, "time / " + view_.reference + "'s (lower is faster)", "no micro-benchmark with a reference run");
    }
  }

  static std::string whole_rss_note(const std::set<std::string>& groups) {
    return "no RSS before the fill (rss_baseline_kb) for " + joined({groups.begin(), groups.end()}) +
           ": the RSS bar is the whole process's there";
  }

  void element_figures() {
    std::vector<std::string> containers, allocators, inserts;
    std::set<int> thread_counts;
    for (const auto& group : view_.groups) {
      int t = index_.bottom_threads(group);
      bool has = false;
      for (const auto& a : index_.allocators(group, t))
        for (const RunRow* r : index_.rows(group, t, a))
          if (number(*r, "elements_count") > 0) {
            has = true;
            thread_counts.insert(t);
            if (r->values.count("app") && r->values.at("app") == "insert" &&
                std::find(inserts.begin(), inserts.end(), group) == inserts.end())
              inserts.push_back(group);
            if (std::find(allocators.begin(), allocators.end(), a) == allocators.end()) allocators.push_back(a);
          }
      if (has) containers.push_back(group);
    }
    if (containers.empty())
      return skip("bytes-per-element", "no ok run reported elements_count (the map workloads do): no bytes-per-element figures");
    std::sort(allocators.begin(), allocators.end(), [&](const std::string& x, const std::string& y) {
      return std::find(view_.allocators.begin(), view_.allocators.end(), x) <
             std::find(view_.allocators.begin(), view_.allocators.end(), y);
    });
    struct Measure {
      std::string key, title, file;
      double scale;  // bytes per unit of the key
    };
    const std::vector<Measure> measures = {{"heap_requested_phase_end_bytes", "requested", "requested", 1},
                                           {"heap_usable_phase_end_bytes", "usable", "usable", 1},
                                           {"rss_kb", "RSS added by the fill", "rss", 1024}};
    // per_element[measure][container][allocator]. RSS counts what the fill
    // added: the process's RSS before it (rss_baseline_kb, the insert app
    // reports it) is taken off, else a vector of 8-byte pairs would show the
    // runtime's few MiB spread over its elements.
    std::set<std::string> whole_rss;  // groups with an RSS but none before the fill (maps churn reports none)
    auto per_element = [&](const std::string& key, double scale, const std::string& group, const std::string& a) {
      return index_.median_by(group, index_.bottom_threads(group), a, key, [&](const RunRow& r) {
        double n = number(r, "elements_count");
        double v = number(r, key);
        if (key == "rss_kb" && !std::isnan(v)) {
          double before = number(r, "rss_baseline_kb");
          if (std::isnan(before)) whole_rss.insert(group);
          else v -= before;
        }
        return n > 0 ? v * scale / n : kNaN;
      });
    };
    const std::string how = "bytes at the end of the measured phase divided by the elements held, median over the profiled "
                            "runs (memprof in front)";
    std::string threads;
    for (int t : thread_counts) threads += (threads.empty() ? ", " : " or ") + threads_text(t);
    if (allocators.size() == 1) {
      Bars bars;
      for (const Measure& m : measures) bars.series.push_back(m.title);
      std::vector<std::string> notes;
      for (const auto& c : containers) {
        std::vector<Value> row;
        for (const Measure& m : measures) {
          double v = per_element(m.key, m.scale, c, allocators[0]);
          if (std::isnan(v)) notes.push_back("no " + m.key + " for " + c + ": bar left out");
          row.push_back({v});
        }
        bars.rows.push_back(c);
        bars.values.push_back(row);
      }
      Figure f = figure("bytes-per-element", "bars", "Bytes per element under " + allocators[0] + threads + context(containers),
                        "For each container: requested, usable and resident (RSS, less the RSS before the fill) " + how +
                            "." + runs_text(false, containers, 0));
      f.notes = notes;
      if (!whole_rss.empty()) f.notes.push_back(whole_rss_note(whole_rss));
      add_bars(std::move(f), bars, "bytes per element", "no run reported the heap or RSS at the end of its phase");
    } else {
      for (const Measure& m : measures) {
        Bars bars;
        bars.series = allocators;
        std::map<std::string, std::vector<std::string>> missing;  // allocator -> containers
        for (const auto& c : containers) {
          std::vector<Value> row;
          for (const auto& a : allocators) {
            double v = per_element(m.key, m.scale, c, a);
            if (std::isnan(v)) missing[a].push_back(c);
            row.push_back({v});
          }
          bars.rows.push_back(c);
          bars.values.push_back(row);
        }
        Figure f = figure("bytes-per-element-" + m.file, "bars", "Bytes per element, " + m.title + threads + context(containers),
                          "For each container, one bar per allocator: " + m.title + " " + how + "." +
                              runs_text(false, containers, 0));
        if (m.key == "rss_kb" && !whole_rss.empty()) f.notes.push_back(whole_rss_note(whole_rss));
        std::vector<std::string> where;
        for (const auto& a : allocators)
          if (missing.count(a))
            where.push_back(a + (missing[a].size() == containers.size() ? "" : " (" + joined(missing[a]) + ")"));
        if (!where.empty()) f.notes.push_back("no " + m.key + " under " + joined(where) + ": bars left out");
        add_bars(std::move(f), bars, m.title + " bytes per element",
                 "no run reported " + m.key + " (as a column or a key in extra)");
      }
    }
    if (inserts.empty()) return skip("insert-time", "no insert run of a map workload: no time-per-insert figure");
    Bars bars;
    bars.series = allocators;
    for (const auto& c : inserts) {
      std::vector<Value> row;
      for (const auto& a : allocators) row.push_back({per_element("elapsed_ns", 1, c, a)});
      bars.rows.push_back(c);
      bars.values.push_back(row);
    }
    Figure f = figure("insert-time", "bars", "Time per inserted element" + threads + context(inserts) + ": median, ns",
                      "For each container, one bar per allocator: the measured phase's time divided by the elements "
                      "inserted, median over the repetitions." + runs_text(true, inserts, 0));
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
