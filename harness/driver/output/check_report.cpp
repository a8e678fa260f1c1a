// check_report.cpp — what `bench check` shows: the text table and the CSV of
// its verdicts, as documents of the output model.
#include "output/check_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>

#include "output/document.h"
#include "model/format.h"
#include "key_names.h"

namespace allocstamp {

namespace {

constexpr std::array<Verdict, 10> kVerdictOrder = {Verdict::not_comparable, Verdict::failed,    Verdict::unrepeatable,
                                                  Verdict::regressed,
                                                  Verdict::missing,        Verdict::noisy,     Verdict::undecided,
                                                  Verdict::suspect,        Verdict::improved,  Verdict::ok};

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
  // Two decimals; a change too small for them keeps two significant digits
  // (+1 in 20,001 is +0.005%, not a "+0.00%" beside "regressed").
  if (change != 0 && std::fabs(change * 100.0) < 0.005) return number_text("%+.2g%%", change * 100.0);
  return number_text("%+.2f%%", change * 100.0);
}

std::string limit_text(const CheckRow& r) {
  if (r.how == Comparison::status || r.how == Comparison::cell) return "-";
  if (r.how == Comparison::exact && r.threshold == 0.0) return "exact";
  if (r.how == Comparison::range && r.threshold == 0.0) return "range";
  return number_text("%g%%", r.threshold);
}

std::string p_text(double p) { return number_text("%.3g", p); }

// The smallest slowdown a time could detect; "-" for other rows.
std::string detectable_text(double d) {
  if (std::isnan(d)) return "-";
  if (std::isinf(d)) return "untestable";
  // 0.5% and 1.5% as they are, not "1%" and "2%" beside smaller changes flagged.
  return percent_up_text(d);
}

const char* comparison_name(Comparison c) {
  switch (c) {
    case Comparison::status: return keys::status;
    case Comparison::cell: return "cell";
    case Comparison::exact: return "exact";
    case Comparison::range: return "range";
    case Comparison::measured: return "measured";
    case Comparison::simulated: return "simulated";
    case Comparison::kernel: return "kernel";
  }
  std::abort();
}

}  // namespace

void print_check_table(const CheckResult& result, bool all, std::ostream& out) {
  Block t = table({{"cell", "metric", "baseline", "current", "change", "limit", "detects", "q", "verdict", "note"}});
  t.align = "llrrrrrrll";
  t.grouped_with_notes = true;  // the cell as a line, the note under its row: 120 columns
  for (const CheckRow& r : result.rows) {
    if (!all && r.verdict == Verdict::ok) continue;
    t.rows.push_back({cell_label(r.cell), r.metric, value_text(r, r.base, r.n_base), value_text(r, r.cur, r.n_cur),
                      change_text(r.change), limit_text(r), detectable_text(r.detectable), p_text(r.q),
                      verdict_name(r.verdict), r.note});
  }
  if (t.rows.size() > 1) out << render_text({t});
}

namespace {

bool is_time_row(const CheckRow& r) { return r.how == Comparison::measured && !std::isnan(r.detectable); }

// "N ok" or "N ok, k regressed, ..." of the rows `pick` chooses, in kVerdictOrder.
template <typename Pick>
std::string verdict_counts(const CheckResult& result, Pick pick) {
  std::string counts;
  for (Verdict v : kVerdictOrder) {
    auto n = std::count_if(result.rows.begin(), result.rows.end(),
                           [&](const CheckRow& r) { return pick(r) && r.verdict == v; });
    if (n) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + verdict_name(v);
  }
  return counts;
}

// What each kind of comparison saw: deterministic figures, simulated ones
// (with the median change they could detect) and times (how many could see
// their threshold): a gate that could not see time says so in its last line.
std::string kinds_summary(const CheckResult& result) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  const std::string det = verdict_counts(result, [](const CheckRow& r) {
    return r.how == Comparison::exact || r.how == Comparison::range;
  });
  add("deterministic " + (det.empty() ? std::string("none compared") : det));
  // Simulated figures and kernel counts: their verdicts, and the median
  // change they could detect.
  for (const auto& [how, name] : {std::pair{Comparison::simulated, "simulated"}, std::pair{Comparison::kernel, "kernel"}}) {
    std::vector<double> seen;
    for (const CheckRow& r : result.rows)
      if (r.how == how && !std::isnan(r.detectable)) seen.push_back(r.detectable);
    const std::string counts = verdict_counts(result, [how = how](const CheckRow& r) { return r.how == how; });
    if (how == Comparison::kernel && !result.kernel_not_compared.empty()) {
      add("kernel not compared (another kernel)");
    } else if (counts.empty()) {
      if (how == Comparison::simulated) add(std::string(name) + " none compared");  // kernel counts: named where compared
    } else {
      std::sort(seen.begin(), seen.end());
      add(name + (" " + counts) +
          (seen.empty() ? "" : ", detects " + number_text("%.2g%%", seen[seen.size() / 2] * 100.0) + " (median)"));
    }
  }
  std::size_t times = 0, seeing = 0;
  std::set<double> thresholds;
  for (const CheckRow& r : result.rows)
    if (is_time_row(r)) {
      ++times;
      thresholds.insert(r.threshold);
      if (r.detectable <= r.threshold / 100.0 + 1e-9) ++seeing;
    }
  if (times == 0) {
    add("timed none compared");
  } else {
    const std::string limit = thresholds.size() == 1 ? number_text("%g%%", *thresholds.begin()) : "its threshold";
    const std::string timed = verdict_counts(result, is_time_row);
    // "undecided" where nothing could see the limit, unless a time moved past
    // it anyway (a change larger than what it could see): then the counts.
    const bool moved = std::any_of(result.rows.begin(), result.rows.end(), [](const CheckRow& r) {
      return is_time_row(r) && (r.verdict == Verdict::regressed || r.verdict == Verdict::improved);
    });
    add("timed " + (seeing == 0 && !moved ? "undecided" : timed) + ", " + std::to_string(seeing) + " of " +
        std::to_string(times) + " could see " + limit);
  }
  return out;
}

}  // namespace

std::string check_verdict_line(const CheckResult& result, const CheckConfig& config) {
  std::string counts;
  for (Verdict v : kVerdictOrder) {
    auto n = std::count_if(result.rows.begin(), result.rows.end(), [&](const CheckRow& r) { return r.verdict == v; });
    if (n) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + verdict_name(v);
  }
  if (!result.not_comparable.empty()) return "check: " + counts + " — NOT COMPARABLE";
  return "check: " + counts + " (" + kinds_summary(result) + ") — " + (result.failed(config) ? "FAIL" : "PASS");
}

std::string check_detectable_line(const CheckResult& result) {
  std::vector<double> detectable;
  std::size_t seeing = 0;
  std::set<double> thresholds;
  for (const CheckRow& r : result.rows) {
    if (!is_time_row(r)) continue;
    detectable.push_back(r.detectable);
    thresholds.insert(r.threshold);
    if (r.detectable <= r.threshold / 100.0 + 1e-9) ++seeing;
  }
  if (detectable.empty()) return "";
  std::sort(detectable.begin(), detectable.end());
  const double median = detectable[detectable.size() / 2];
  std::string limit = thresholds.size() == 1 ? number_text("%g%%", *thresholds.begin()) : "their threshold";
  return "detectable: " + std::to_string(seeing) + " of " + std::to_string(detectable.size()) +
         " timed comparison(s) could see a change of " + limit + " (power 0.8); median detectable change " +
         detectable_text(median) + (seeing < detectable.size() ? " — more --reps or a quieter machine see more" : "");
}

void write_check_csv(const CheckResult& result, std::ostream& out) {
  Block t = table({{"workload", "app", "size", "allocator", "tm", "threads", "metric", "comparison", "n_baseline",
                    "n_current", "baseline", "current", "relative_to", "change_pct", "p", "q", "threshold_pct",
                    "detectable_pct", "verdict", "note"}});
  for (const CheckRow& r : result.rows) {
    std::vector<std::string> row = {r.cell.workload, r.cell.app,      r.cell.size,
                                    r.cell.allocator, r.cell.tm, std::to_string(r.cell.threads)};
    const bool limited = r.how != Comparison::status && r.how != Comparison::cell;
    row.insert(row.end(), {r.metric, comparison_name(r.how), std::to_string(r.n_base), std::to_string(r.n_cur),
                           csv_number(r.base), csv_number(r.cur), r.relative,
                           std::isinf(r.change) ? (r.change > 0 ? "inf" : "-inf") : csv_number(r.change * 100.0),
                           csv_number(r.p), csv_number(r.q), limited ? csv_number(r.threshold) : "",
                           std::isinf(r.detectable) ? "inf" : csv_number(r.detectable * 100.0),
                           verdict_name(r.verdict), r.note});
    t.rows.push_back(std::move(row));
  }
  out << "# allocstamp check.csv schema 4\n" << render_csv(t);
}

}  // namespace allocstamp
