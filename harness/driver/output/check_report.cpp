// check_report.cpp — what `bench check` shows: the text table and the CSV of
// its verdicts, as documents of the output model.
#include "output/check_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "results/csv.h"
#include "output/document.h"
#include "errors.h"
#include "output/format.h"
#include "key_names.h"

namespace allocstamp {

namespace {

constexpr std::array<Verdict, 7> kVerdictOrder = {Verdict::not_comparable, Verdict::failed, Verdict::regressed,
                                                  Verdict::missing,        Verdict::noisy,  Verdict::improved,
                                                  Verdict::ok};

// Integers (counts, bytes, ns) in full; medians of an even count may end in .5.
std::string number(double v) {
  return number_text(std::fabs(v - std::round(v)) < 1e-9 ? "%.0f" : "%.1f", v);
}

std::string value_text(const CheckRow& r, double v, std::size_t n) {
  if (r.how == Comparison::status) return number(v) + "/" + std::to_string(n) + " ok";
  if (r.how == Comparison::cell) return n ? std::to_string(n) + " runs" : "-";
  if (!r.relative.empty()) return number_text("%.3f", v) + "x " + r.relative;
  return number(v);
}

std::string change_text(double change) {
  if (std::isnan(change)) return "-";
  if (std::isinf(change)) return change > 0 ? "+inf" : "-inf";
  return number_text("%+.2f%%", change * 100.0);
}

std::string limit_text(const CheckRow& r) {
  if (r.how == Comparison::status || r.how == Comparison::cell) return "-";
  if (r.how == Comparison::exact && r.threshold == 0.0) return "exact";
  return number_text("%g%%", r.threshold);
}

std::string p_text(double p) { return number_text("%.3g", p); }

const char* comparison_name(Comparison c) {
  switch (c) {
    case Comparison::status: return keys::status;
    case Comparison::cell: return "cell";
    case Comparison::exact: return "exact";
    case Comparison::measured: return "measured";
  }
  std::abort();
}

}  // namespace

void print_check_table(const CheckResult& result, bool all, std::ostream& out) {
  Block t = table({{"cell", "metric", "baseline", "current", "change", "limit", "q", "verdict", "note"}});
  t.align = "llrrrrrll";
  for (const CheckRow& r : result.rows) {
    if (!all && r.verdict == Verdict::ok) continue;
    t.rows.push_back({cell_label(r.cell), r.metric, value_text(r, r.base, r.n_base), value_text(r, r.cur, r.n_cur),
                      change_text(r.change), limit_text(r), p_text(r.q), verdict_name(r.verdict), r.note});
  }
  if (t.rows.size() > 1) out << render_text({t});
}

std::string check_verdict_line(const CheckResult& result, const CheckConfig& config) {
  std::string counts;
  for (Verdict v : kVerdictOrder) {
    auto n = std::count_if(result.rows.begin(), result.rows.end(), [&](const CheckRow& r) { return r.verdict == v; });
    if (n) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + verdict_name(v);
  }
  if (!result.not_comparable.empty()) return "check: " + counts + " — NOT COMPARABLE";
  return "check: " + counts + " — " + (result.failed(config) ? "FAIL" : "PASS");
}

void write_check_csv(const CheckResult& result, std::ostream& out) {
  Block t = table({{"workload", "app", "size", "allocator", "tm", "threads", "metric", "comparison", "n_baseline",
                    "n_current", "baseline", "current", "relative_to", "change_pct", "p", "q", "threshold_pct",
                    "verdict", "note"}});
  for (const CheckRow& r : result.rows) {
    std::vector<std::string> row = {r.cell.workload, r.cell.app,      r.cell.size,
                                    r.cell.allocator, r.cell.tm, std::to_string(r.cell.threads)};
    const bool limited = r.how == Comparison::exact || r.how == Comparison::measured;
    row.insert(row.end(), {r.metric, comparison_name(r.how), std::to_string(r.n_base), std::to_string(r.n_cur),
                           csv_number(r.base), csv_number(r.cur), r.relative,
                           std::isinf(r.change) ? (r.change > 0 ? "inf" : "-inf") : csv_number(r.change * 100.0),
                           csv_number(r.p), csv_number(r.q), limited ? csv_number(r.threshold) : "",
                           verdict_name(r.verdict), r.note});
    t.rows.push_back(std::move(row));
  }
  out << "# allocstamp check.csv schema 3\n" << render_csv(t);
}

}  // namespace allocstamp
