// check_allocator_wide.cpp — an allocator's time across every workload (check_allocator_wide.h).
#include "analysis/check_allocator_wide.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/check_measured.h"
#include "model/format.h"
#include "model/statistics.h"

namespace allocstamp::check_allocator_wide {

void add(std::vector<CheckRow>& rows, const std::string& reference, double alpha, std::size_t min_cells,
         std::vector<std::string>& notes) {
  // (allocator, threads, metric) -> its cells' rows compared rep by rep with the reference.
  std::map<std::tuple<std::string, int, std::string>, std::vector<const CheckRow*>> groups;
  for (const CheckRow& r : rows)
    if (r.how == Comparison::measured && r.relative == reference && !reference.empty() &&
        check_measured::is_time(r.metric) && r.metric.rfind("ns_per_op:", 0) != 0 && r.base > 0 && r.cur > 0)
      groups[{r.cell.allocator, r.cell.threads, r.metric}].push_back(&r);
  std::vector<CheckRow> wide;
  std::vector<double> p;
  for (const auto& [key, members] : groups) {
    if (members.size() < min_cells) continue;
    std::vector<double> changes, bases;
    std::size_t up = 0, down = 0;
    double threshold = 0;
    for (const CheckRow* r : members) {
      const double d = std::log(r->cur / r->base);
      changes.push_back(d);
      bases.push_back(std::log(r->base));
      up += d > 0 ? 1 : 0;
      down += d < 0 ? 1 : 0;
      threshold = std::max(threshold, r->threshold);
    }
    CheckRow row;
    row.cell = members.front()->cell;
    row.cell.workload = kEveryWorkload;
    row.cell.app = "all";
    row.cell.size = "all";
    row.cell.args.clear();
    row.cell.tm.clear();
    row.metric = std::get<2>(key);
    row.how = Comparison::measured;
    row.relative = reference;
    row.n_base = row.n_cur = members.size();
    // One estimate: the median change; the values shown are the cells'
    // median ratio on the baseline's side and that moved by it.
    row.base = std::exp(stats::median(bases));
    row.change = std::exp(stats::median(changes)) - 1;
    row.cur = row.base * (1 + row.change);
    row.p = stats::sign_test_p(up, down);
    row.threshold = threshold;
    row.note = "every workload's " + row.metric + " over " + reference + "'s: the median change of " +
               std::to_string(members.size()) + " cells; " + std::to_string(up) + " up, " + std::to_string(down) +
               " down (sign test)";
    wide.push_back(std::move(row));
    p.push_back(wide.back().p);
  }
  if (wide.empty()) return;
  const std::vector<double> q = stats::benjamini_hochberg(p);
  std::size_t flagged = 0;
  for (std::size_t i = 0; i < wide.size(); ++i) {
    CheckRow& r = wide[i];
    r.q = q[i];
    if (std::fabs(r.change) <= r.threshold / 100.0 + 1e-9) continue;
    if (r.q < alpha) {
      r.verdict = r.change > 0 ? Verdict::regressed : Verdict::improved;
      ++flagged;
    } else {
      r.verdict = Verdict::noisy;
      r.note += "; not significant over these rows";
    }
  }
  notes.push_back("every workload at once: " + std::to_string(wide.size()) +
                  " row(s), one per allocator, thread count and time (the median change of its cells, each its time "
                  "over " + reference + "'s, rep by rep; the sign test, Benjamini–Hochberg at q = " +
                  number_text("%g", alpha) + " over these rows): " + std::to_string(flagged) + " changed");
  for (CheckRow& r : wide) rows.push_back(std::move(r));
}

}  // namespace allocstamp::check_allocator_wide
