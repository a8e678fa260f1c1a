// check_pairing.cpp — the cells of bench check's two sides paired, what a side
// holds of a cell, and the two folders' setups compared (check_pairing.h).
#include "analysis/check_pairing.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "model/format.h"
#include "model/statistics.h"
#include "results/meta.h"
#include "key_names.h"
#include "meta_names.h"

namespace allocstamp {

namespace check_pairing {

namespace {

std::tuple<std::string, std::string, std::string, std::string, int> loose_key(const CellId& id) {
  return {id.workload, id.app, id.size, id.allocator, id.threads};
}

}  // namespace

std::size_t bad_count(const Cell& c) {
  std::size_t n = 0;
  for (const auto& [status, count] : c.statuses)
    if (status != "ok" && status != "skipped") n += std::size_t(count);
  return n;
}
std::size_t run_count(const Cell& c) { return c.ok.size() + bad_count(c); }

std::string statuses(const Cell& c) {
  std::string out;
  for (const auto& [status, count] : c.statuses)
    if (status != "ok" && status != "skipped") out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  return out;
}

std::vector<double> values_of(const Side& side, const Cell& cell, const std::string& column) {
  return side.cells.values(cell, column);
}

std::vector<double> log_ratios_to_reference(const Side& side, const Cell& cell, const std::string& column,
                                            const std::string& reference) {
  std::vector<double> out;
  const Cell* ref = side.cells.find(cell.group, cell.id.threads, reference);
  if (!ref || ref == &cell) return out;
  std::map<long, double> by_rep;
  for (const stats::Sample& s : side.cells.samples(*ref, column)) by_rep[s.rep] = s.value;
  for (const stats::Sample& s : side.cells.samples(cell, column)) {
    auto r = by_rep.find(s.rep);
    if (r != by_rep.end() && s.value > 0 && r->second > 0) out.push_back(std::log(s.value / r->second));
  }
  return out;
}

double most_threads_alive(const Side& side, const Cell& cell) {
  std::vector<double> v = values_of(side, cell, keys::threads_peak_count);
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

std::pair<double, double> allocators_span(const Side& side, const Cell& cell, const std::string& column) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Cell& other : side.cells.cells)
    if (other.group == cell.group && other.id.threads == cell.id.threads)
      for (double v : values_of(side, other, column)) lo = std::min(lo, v), hi = std::max(hi, v);
  return {lo, hi};
}

std::string simulator_of(const Side& side, const Cell& cell) {
  std::set<std::string> setups;
  for (const CsvRow* row : side.cells.serving(cell, keys::sim_setup)) setups.insert(side.table->text(*row, keys::sim_setup));
  std::string out;
  for (const std::string& s : setups) out += (out.empty() ? "" : " and ") + (s.empty() ? "(blank)" : s);
  return out;
}

MicroSamples micro_by_cell(const Side& side, const std::vector<MicroRow>& rows) {
  std::map<long, CellId> cell_of;
  for (const Cell& cell : side.cells.cells)
    for (const CsvRow* row : cell.ok)
      if (side.table->kind(*row) == RunKind::timed) cell_of[std::atol(side.table->text(*row, keys::run_id).c_str())] = cell.id;
  MicroSamples out;
  for (const MicroRow& m : rows)
    if (auto it = cell_of.find(m.run_id); it != cell_of.end() && m.kind == RunKind::timed)
      out[{it->second, m.benchmark}].push_back(m.real_ns_per_op);
  return out;
}

std::vector<Pair> pair_cells(const Side& base, const Side& cur) {
  std::vector<Pair> pairs;
  // A cell whose runs were all skipped (allocator not installed) did not run: absent.
  std::vector<bool> used(cur.cells.cells.size(), false);
  for (std::size_t i = 0; i < used.size(); ++i) used[i] = run_count(cur.cells.cells[i]) == 0;
  std::vector<const Cell*> unmatched;
  for (const Cell& b : base.cells.cells) {
    if (run_count(b) == 0) continue;
    bool found = false;
    for (std::size_t i = 0; i < cur.cells.cells.size() && !found; ++i)
      if (!used[i] && loose_key(cur.cells.cells[i].id) == loose_key(b.id) &&
          differences(b.id, cur.cells.cells[i].id, "baseline", "current runs").empty()) {
        used[i] = found = true;
        pairs.push_back({&b, &cur.cells.cells[i], {}});
      }
    if (!found) unmatched.push_back(&b);
  }
  // A cell that ran differently is paired with the current cell that differs
  // from it the least (its TM method kept when only the arguments changed:
  // the first candidate was taken, another method's cell).
  for (const Cell* b : unmatched) {
    Pair p{b, nullptr, {}};
    std::size_t best = used.size();
    for (std::size_t i = 0; i < cur.cells.cells.size(); ++i)
      if (!used[i] && loose_key(cur.cells.cells[i].id) == loose_key(b->id)) {
        std::vector<Difference> d = differences(b->id, cur.cells.cells[i].id, "baseline", "current runs");
        if (best == used.size() || d.size() < p.differences.size()) best = i, p.differences = std::move(d);
      }
    if (best < used.size()) {
      used[best] = true;
      p.cur = &cur.cells.cells[best];
    }
    pairs.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < cur.cells.cells.size(); ++i)
    if (!used[i]) pairs.push_back({nullptr, &cur.cells.cells[i], {}});
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) {
    return (x.base ? x.base : x.cur)->id < (y.base ? y.base : y.cur)->id;
  });
  return pairs;
}

RanDifferently ran_differently(const Pair& pair, const CheckConfig& config) {
  RanDifferently out;
  for (const Difference& d : pair.differences) {
    out.text += (out.text.empty() ? "" : "; ") + d.text;
    out.allowed = out.allowed && config.allow_different.count(d.what);
  }
  return out;
}

namespace {

Meta meta_next_to(const RunsTable& table) { return read_meta(std::filesystem::path(table.source).parent_path()); }

// meta.json's host and CPU as a message can show them: a control byte (a NUL
// cut the message short) shown escaped.
std::string printable_field(const nlohmann::json& machine, const char* key) {
  const nlohmann::json& v = machine.contains(key) ? machine[key] : nlohmann::json("?");
  return printable_text(v.is_string() ? v.get<std::string>() : v.dump());
}

std::string machine_of(const Meta& m) {
  const nlohmann::json machine = m.doc.value(meta::machine, nlohmann::json::object());
  if (!machine.is_object() || machine.empty()) return "";
  return printable_field(machine, meta::machine_host) + " (" + printable_field(machine, meta::machine_cpu) + ", " +
         std::to_string(machine.value(meta::machine_cores, 0)) + " cores)";
}

}  // namespace

std::string kernel_difference(const RunsTable& baseline, const RunsTable& current) {
  const std::string kernel_b = meta_next_to(baseline).kernel_setup(), kernel_c = meta_next_to(current).kernel_setup();
  if (!kernel_b.empty() && !kernel_c.empty() && kernel_b != kernel_c)
    return "the baseline ran on " + kernel_b + ", the current runs on " + kernel_c;
  return "";
}

}  // namespace check_pairing

const std::vector<std::string>& difference_names() {
  static const std::vector<std::string> names = {"args", "env", "library", "tm", "machine", "simulator"};
  return names;
}

std::vector<std::string> setup_differences(const RunsTable& baseline, const RunsTable& current) {
  const Meta b = check_pairing::meta_next_to(baseline), c = check_pairing::meta_next_to(current);
  if (!b.present || !c.present) return {};
  std::vector<std::string> out;
  const auto vb = b.allocator_versions(), vc = c.allocator_versions();
  for (const auto& [name, version] : vb) {
    auto it = vc.find(name);
    if (it != vc.end() && it->second != version)
      out.push_back(name + " " + (version.empty() ? "?" : version) + " in the baseline, " +
                    (it->second.empty() ? "?" : it->second) + " now");
  }
  const std::string cb = b.compiler(), cc = c.compiler();
  if (!cb.empty() && !cc.empty() && cb != cc) out.push_back("compiler " + cb + " in the baseline, " + cc + " now");
  return out;
}

std::string machine_difference(const RunsTable& baseline, const RunsTable& current) {
  const std::string b = check_pairing::machine_of(check_pairing::meta_next_to(baseline)),
                    c = check_pairing::machine_of(check_pairing::meta_next_to(current));
  if (b.empty() || c.empty() || b == c) return "";
  return "the baseline ran on " + b + ", the current runs on " + c;
}

std::string unknown_machine(const RunsTable& baseline, const RunsTable& current) {
  const bool b = check_pairing::machine_of(check_pairing::meta_next_to(baseline)).empty(),
             c = check_pairing::machine_of(check_pairing::meta_next_to(current)).empty();
  if (!b && !c) return "";
  const std::string which = b && c ? "neither side's meta.json names its machine"
                            : b    ? "the baseline's meta.json names no machine"
                                   : "the current runs' meta.json names no machine";
  return which + ": compared as if both ran on one machine (host, CPU, cores and kernel not checked)";
}

}  // namespace allocstamp
