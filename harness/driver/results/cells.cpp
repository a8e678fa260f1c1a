// cells.cpp — runs grouped into cells, and a cell's values (cells.h).
#include "results/cells.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "run/machine.h"
#include "key_names.h"

namespace allocstamp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> words(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::string word;
  std::istringstream in(text);
  while (std::getline(in, word, separator))
    if (!word.empty()) out.push_back(word);
  return out;
}

// The arguments as flags with their values ("--transactions 49152"), so that a
// difference names whole options.
std::vector<std::string> options_of(const std::string& args) {
  std::vector<std::string> out;
  for (const std::string& w : words(args, ' ')) {
    if (w.rfind("-", 0) == 0 || out.empty()) out.push_back(w);
    else out.back() += " " + w;
  }
  return out;
}

// "X in the baseline only; Y in the current runs only" from two lists of items.
std::string one_sided(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& a_side,
                      const std::string& b_side) {
  std::multiset<std::string> in_a(a.begin(), a.end()), in_b(b.begin(), b.end());
  std::string only_a, only_b;
  for (const std::string& x : a)
    if (!in_b.count(x)) only_a += (only_a.empty() ? "" : ", ") + x;
  for (const std::string& x : b)
    if (!in_a.count(x)) only_b += (only_b.empty() ? "" : ", ") + x;
  std::string out;
  if (!only_a.empty()) out = only_a + " in the " + a_side + " only";
  if (!only_b.empty()) out += (out.empty() ? "" : "; ") + only_b + " in the " + b_side + " only";
  return out.empty() ? "the same items in another order" : out;
}

long rep_of(const RunsTable& t, const CsvRow& row) { return std::strtol(t.text(row, keys::rep).c_str(), nullptr, 10); }

}  // namespace

std::string args_but_threads(const std::string& args) {
  std::vector<std::string> kept;
  const std::vector<std::string> w = words(args, ' ');
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "--threads" && i + 1 < w.size()) {
      ++i;
      continue;
    }
    kept.push_back(w[i]);
  }
  std::string out;
  for (const std::string& k : kept) out += (out.empty() ? "" : " ") + k;
  return out;
}


const char* const kRequestedPerElement = "requested_bytes_per_element";
const char* const kRssPerElement = "rss_bytes_per_element";

bool CellId::operator<(const CellId& o) const {
  auto key = [](const CellId& c) {
    return std::tie(c.workload, c.app, c.size, c.allocator, c.tm, c.threads, c.args, c.alloc_library, c.alloc_env);
  };
  return key(*this) < key(o);
}

std::string cell_label(const CellId& c) {
  return c.workload + ":" + c.app + "/" + c.size + "/" + c.allocator + (c.tm.empty() ? "" : "/" + c.tm) + "/t" +
         std::to_string(c.threads);
}

std::vector<Difference> differences(const CellId& a, const CellId& b, const std::string& a_side,
                                    const std::string& b_side) {
  std::vector<Difference> out;
  if (!a.args.empty() && !b.args.empty() && a.args != b.args)
    out.push_back({"args", "arguments: " + one_sided(options_of(a.args), options_of(b.args), a_side, b_side)});
  if (a.alloc_env != b.alloc_env && !(a.alloc_library.empty() || b.alloc_library.empty()))
    out.push_back({"env", "environment: " + one_sided(words(a.alloc_env, ';'), words(b.alloc_env, ';'), a_side, b_side)});
  if (!a.alloc_library.empty() && !b.alloc_library.empty() && a.alloc_library != b.alloc_library)
    out.push_back({"library", "allocator library: " + a.alloc_library + " in the " + a_side + ", " + b.alloc_library +
                                  " in the " + b_side});
  if (a.tm != b.tm)
    out.push_back({"tm", "TM method: " + (a.tm.empty() ? "none" : a.tm) + " in the " + a_side + ", " +
                             (b.tm.empty() ? "none" : b.tm) + " in the " + b_side});
  return out;
}

Cells cells_of(const RunsTable& t) {
  Cells out;
  out.table = &t;
  std::set<std::string> sizes, tms;
  std::map<std::string, std::set<std::string>> args_of;  // workload|tm|size -> args
  for (const CsvRow& row : t.rows) {
    sizes.insert(t.text(row, keys::size));
    if (!t.text(row, keys::tm).empty()) tms.insert(t.text(row, keys::tm));
    args_of[t.text(row, keys::workload) + "|" + t.text(row, keys::tm) + "|" + t.text(row, keys::size)].insert(
        args_but_threads(t.text(row, keys::args)));
  }
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> identities;  // allocator -> (library, env)
  std::map<CellId, std::size_t> index;
  std::set<int> threads;
  for (const CsvRow& row : t.rows) {
    CellId id{t.text(row, keys::workload), t.text(row, keys::app), t.text(row, keys::size), args_but_threads(t.text(row, keys::args)),
              t.text(row, keys::allocator), t.text(row, keys::alloc_library), t.text(row, keys::alloc_env), t.text(row, keys::tm),
              int(std::strtol(t.text(row, keys::threads).c_str(), nullptr, 10))};
    auto [it, fresh] = index.emplace(id, out.cells.size());
    if (fresh) {
      Cell cell;
      cell.id = id;
      cell.group = id.workload;
      if (tms.size() > 1 && !id.tm.empty()) cell.group += " " + id.tm;
      if (sizes.size() > 1) cell.group += " " + id.size;
      const std::set<std::string>& variants = args_of[id.workload + "|" + id.tm + "|" + id.size];
      if (variants.size() > 1)
        cell.group += " args#" + std::to_string(std::distance(variants.begin(), variants.find(id.args)) + 1);
      auto& known = identities[id.allocator];
      std::pair<std::string, std::string> identity{id.alloc_library, id.alloc_env};
      auto at = std::find(known.begin(), known.end(), identity);
      if (at == known.end()) at = known.insert(known.end(), identity);
      cell.allocator = id.allocator + (at == known.begin() ? "" : " #" + std::to_string(at - known.begin() + 1));
      out.cells.push_back(std::move(cell));
      if (std::find(out.groups.begin(), out.groups.end(), out.cells.back().group) == out.groups.end())
        out.groups.push_back(out.cells.back().group);
      if (std::find(out.allocators.begin(), out.allocators.end(), out.cells.back().allocator) == out.allocators.end())
        out.allocators.push_back(out.cells.back().allocator);
      threads.insert(id.threads);
    }
    Cell& cell = out.cells[it->second];
    cell.runs.push_back(&row);
    const Status status = t.status(row);
    ++cell.statuses[status_name(status)];
    if (status != Status::ok) continue;
    cell.ok.push_back(&row);
    cell.has_timed = cell.has_timed || t.kind(row) == RunKind::timed;
  }
  // Times come from the timed runs wherever a group has one: a cell of it
  // whose timed runs all failed has no time, rather than its profiled runs'
  // (memprof in front), which no other cell's time compares with.
  std::set<std::string> timed_groups;
  for (const Cell& cell : out.cells)
    if (cell.has_timed) timed_groups.insert(cell.group);
  for (Cell& cell : out.cells) {
    cell.timed = timed_groups.count(cell.group) > 0;
    cell.time_key = keys::elapsed_ns;
    for (const CsvRow* row : cell.ok)
      if (t.serves(*row, keys::elapsed_ns, cell.timed) && t.text(*row, keys::elapsed_ns).empty()) cell.time_key = keys::wall_ns;
  }
  // One clock per group: where some cell's runs lack elapsed_ns the whole
  // group is timed by wall_ns, so the times shown side by side and the ratios
  // between them come from one column (a cell's elapsed_ns once stood beside
  // the reference's wall_ns, its ratio taken wall to wall).
  std::set<std::string> wall_groups;
  for (const Cell& cell : out.cells)
    if (cell.time_key == keys::wall_ns) wall_groups.insert(cell.group);
  for (Cell& cell : out.cells)
    if (wall_groups.count(cell.group)) cell.time_key = keys::wall_ns;
  out.threads.assign(threads.begin(), threads.end());
  out.reference = reference_allocator(out.allocators);
  auto position = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) - list.begin();
  };
  std::stable_sort(out.cells.begin(), out.cells.end(), [&](const Cell& a, const Cell& b) {
    return std::make_tuple(position(out.groups, a.group), a.id.threads, position(out.allocators, a.allocator)) <
           std::make_tuple(position(out.groups, b.group), b.id.threads, position(out.allocators, b.allocator));
  });
  return out;
}

std::string common_time_key(const Cell& a, const Cell& b) {
  return a.time_key == keys::wall_ns || b.time_key == keys::wall_ns ? keys::wall_ns : keys::elapsed_ns;
}

const Cell* Cells::find(const std::string& group, int t, const std::string& allocator) const {
  for (const Cell& c : cells)
    if (c.group == group && c.id.threads == t && c.allocator == allocator) return &c;
  return nullptr;
}

std::vector<const CsvRow*> Cells::serving(const Cell& cell, const std::string& key) const {
  const std::string& k = key == "time" ? cell.time_key : key;
  // A derived figure is served where its parts are: memprof's heap and RSS.
  const std::string& served = k == kRequestedPerElement || k == kRssPerElement ? std::string(keys::rss_kb) : k;
  std::vector<const CsvRow*> out;
  for (const CsvRow* row : cell.ok)
    if (table->serves(*row, served, cell.timed)) out.push_back(row);
  return out;
}

double Cells::value(const CsvRow& row, const std::string& key) const {
  if (key == kRequestedPerElement || key == kRssPerElement) {
    const double n = table->number(row, keys::elements_count);
    if (!(n > 0)) return kNaN;
    if (key == kRequestedPerElement) return table->number(row, keys::heap_requested_phase_end_bytes) / n;
    // What the fill added: the RSS before it is taken off (the insert app
    // reports it), else a vector of 8-byte pairs would show the runtime's few
    // MiB spread over its elements.
    const double rss = table->number(row, keys::rss_kb), before = table->number(row, keys::rss_baseline_kb);
    return std::isnan(before) ? kNaN : (rss - before) * 1024.0 / n;
  }
  return table->number(row, key);
}

std::vector<stats::Sample> Cells::samples(const Cell& cell, const std::string& key) const {
  const std::string& k = key == "time" ? cell.time_key : key;
  std::vector<stats::Sample> out;
  for (const CsvRow* row : serving(cell, k)) {
    const double v = value(*row, k);
    if (!std::isnan(v)) out.push_back({rep_of(*table, *row), v});
  }
  return out;
}

std::vector<double> Cells::values(const Cell& cell, const std::string& key) const {
  std::vector<double> out;
  for (const stats::Sample& s : samples(cell, key)) out.push_back(s.value);
  return out;
}

stats::LogEstimate Cells::estimate(const Cell& cell, const std::string& key) const {
  return stats::log_estimate(values(cell, key));
}

stats::Ratio Cells::ratio(const Cell& cell, const Cell& other, const std::string& key) const {
  std::string k = key;
  if (key == "time") k = common_time_key(cell, other);
  return stats::log_ratio(samples(cell, k), samples(other, k));
}

std::string Cells::workload_of(const std::string& group) const {
  for (const Cell& cell : cells)
    if (cell.group == group) return cell.id.workload;
  return "";
}

int Cells::busy_runs(const Cell& cell) const {
  int n = 0;
  for (const CsvRow* row : serving(cell, "time"))
    if (busy_run(table->number(*row, keys::others_cpu_pct), table->number(*row, keys::steal_pct))) ++n;
  return n;
}

}  // namespace allocstamp
