// mechanisms.cpp — the measured mechanisms behind a separation (mechanisms.h).
#include "analysis/mechanisms.h"

#include <algorithm>
#include <cmath>

#include "model/statistics.h"
#include "key_names.h"
#include "model/format.h"

namespace allocstamp {

namespace {

struct Candidate {
  const char* key;
  const char* label;
};

// From the timed runs (wait4, the workload's metrics), then the profiled ones (memprof).
const Candidate kCandidates[] = {
    {keys::sys_share_pct, "system-time share (% of CPU time)"},
    {keys::minor_faults_count, "minor page faults"},
    {keys::major_faults_count, "major page faults"},
    {keys::voluntary_switches_count, "voluntary context switches"},
    {keys::involuntary_switches_count, "involuntary context switches"},
    {keys::tx_attempts_count, "transaction attempts"},
    {keys::kcall_mmap_count, "its mmap calls"},
    {keys::kcall_munmap_count, "its munmap calls"},
    {keys::kcall_mremap_count, "its mremap calls"},
    {keys::kcall_madvise_dontneed_count, "its madvise(DONTNEED) calls"},
    {keys::kcall_madvise_free_count, "its madvise(FREE) calls"},
    {keys::kcall_madvise_other_count, "its other madvise calls"},
    {keys::kcall_brk_count, "its brk/sbrk calls"},
};

bool all_zero(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
}
bool all_positive(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

}  // namespace

bool has_ratio(const std::vector<double>& mine, const std::vector<double>& theirs) {
  return all_positive(mine) && all_positive(theirs);
}

std::string mechanism_figure_text(double v) {
  if (std::fabs(v - std::round(v)) > 1e-9) return number_text(std::fabs(v) < 100 ? "%.1f" : "%.0f", v);
  std::string digits = number_text("%.0f", v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

std::vector<Mechanism> separating(const Cells& cells, const Cell& cell, const Cells& other_cells, const Cell& other,
                                  bool paired, int* compared, double level) {
  std::vector<Mechanism> out;
  if (compared) *compared = 0;
  for (const Candidate& c : kCandidates) {
    const std::vector<double> mine = cells.values(cell, c.key), theirs = other_cells.values(other, c.key);
    if (mine.empty() || theirs.empty()) continue;
    if (compared) ++*compared;
    const double m = stats::summarize(mine).median, t = stats::summarize(theirs).median;
    const std::string against = " (" + mechanism_figure_text(m) + " against " + mechanism_figure_text(t) + ")";
    if ((all_zero(theirs) && all_positive(mine)) || (all_zero(mine) && all_positive(theirs))) {
      out.push_back({c.key, c.label, std::string(c.label) + " " + mechanism_figure_text(m) + " against " + mechanism_figure_text(t)});
      continue;
    }
    if (!has_ratio(mine, theirs)) continue;  // some run counted 0, not all: no ratio, no claim
    std::vector<stats::Sample> a = cells.samples(cell, c.key), b = other_cells.samples(other, c.key);
    if (!paired)
      for (stats::Sample& x : b) x.rep = -1 - x.rep;  // no repetition in common: compared unpaired
    const stats::Ratio r = stats::at_level(stats::log_ratio(a, b), level);
    const std::string side = stats::ratio_side(r);
    if (side != "below" && side != "above") continue;
    out.push_back({c.key, c.label,
                   std::string(c.label) + " " + number_text("%.2f", r.value) + "x [" + number_text("%.2f", r.ci_low) +
                       ", " + number_text("%.2f", r.ci_high) + "]" + against});
  }
  return out;
}

}  // namespace

std::vector<Mechanism> separating_mechanisms(const Cells& cells, const Cell& cell, const Cell& other, int* compared,
                                             double level) {
  return separating(cells, cell, cells, other, true, compared, level);
}

stats::FamilyCorrection mechanism_family(const Cells& cells, bool per_comparison) {
  std::vector<stats::Ratio> ratios;
  for (const Cell& cell : cells.cells) {
    const Cell* ref = cells.find(cell.group, cell.id.threads, cells.reference);
    if (!ref || ref == &cell) continue;
    for (const Candidate& c : kCandidates) {
      const std::vector<double> mine = cells.values(cell, c.key), theirs = cells.values(*ref, c.key);
      if (mine.empty() || theirs.empty()) continue;
      if (!has_ratio(mine, theirs)) continue;
      ratios.push_back(stats::log_ratio(cells.samples(cell, c.key), cells.samples(*ref, c.key)));
    }
  }
  std::vector<stats::Ratio*> family;
  for (stats::Ratio& r : ratios) family.push_back(&r);
  return stats::correct_family(family, 0.05, per_comparison);
}

std::string mechanism_legend(const stats::FamilyCorrection& f) {
  if (f.m == 0) return "";
  if (f.per_comparison)
    return "Mechanisms are named where their own 95% interval leaves 1 out (uncorrected, --per-comparison: of the " +
           std::to_string(f.m) + " mechanism comparisons, about 5% of those where nothing differs come out as a difference).";
  if (f.m == 1) return "Mechanisms are named where their 95% interval leaves 1 out (one comparison: no correction).";
  return "Mechanisms are named where their interval at " + number_text("%.3g", 100 * f.level) +
         "% leaves 1 out: the folder's " + std::to_string(f.m) +
         " mechanism comparisons (each figure of each cell against the reference's) are one family, Benjamini–Hochberg at q = " +
         number_text("%g", f.q) + " selecting " + std::to_string(f.selected) + ".";
}

std::vector<Mechanism> separating_mechanisms(const Cells& cells, const Cell& cell, const Cells& other_cells,
                                             const Cell& other, int* compared) {
  return separating(cells, cell, other_cells, other, false, compared, 0.95);
}

std::string unmatched_kernel_calls(const Cells& cells, const Cell& cell, const Cell& other, const std::string& other_name) {
  if (!cells.values(other, keys::kcall_mmap_count).empty()) return "";
  std::string listed;
  for (const Candidate& c : kCandidates) {
    if (std::string(c.key).rfind("kcall_", 0) != 0) continue;
    const std::vector<double> mine = cells.values(cell, c.key);
    if (mine.empty()) continue;
    const double m = stats::summarize(mine).median;
    if (m > 0) listed += (listed.empty() ? "" : ", ") + mechanism_figure_text(m) + " " + std::string(c.label).substr(4);  // less its
  }
  if (listed.empty()) return "";
  return "its own kernel calls (a profiled run's median; " + other_name +
         "'s malloc calls the kernel out of memprof's sight, so there is nothing to compare): " + listed;
}

std::string mechanisms_sentence(const std::vector<Mechanism>& found, const std::string& other_name, int compared) {
  if (compared == 0) return "no mechanism was measured (page faults, switches and kernel calls are in runs.csv from schema 5)";
  if (found.empty()) return "no measured mechanism separates";
  std::string out = "measured with it, against " + other_name + "'s: ";
  for (std::size_t i = 0; i < found.size(); ++i) out += (i ? "; " : "") + found[i].text;
  return out;
}

}  // namespace allocstamp
