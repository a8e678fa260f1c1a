// trace_agreement.cpp — a trace's figures against memprof's live record (trace_agreement.h).
#include "trace_agreement.h"

#include <algorithm>

#include "key_names.h"

namespace allocstamp::trace {

namespace {

// How far below and above memprof's value the trace's may lie for `key`.
std::pair<double, double> allowed(const std::string& key, double memprof_value,
                                  const std::map<std::string, std::string>& live) {
  auto number = [&](const char* k) {
    auto it = live.find(k);
    return it == live.end() ? 0.0 : std::stod(it->second);
  };
  if (key == keys::threads_peak_count) return {memprof_value, 0};
  if (key == keys::load_avg_bytes || key == keys::load_total_byte_ns) {
    // memprof integrates each thread's published heap, which lags its true heap
    // by less than the slack; the two read the clock apart (0.004% for g++ over
    // 26 ms, 0.3% for trace_subject's five threads over 1.7 ms): 1%.
    double gap = number(keys::peak_slack_bytes) * std::max(1.0, number(keys::threads_peak_count));
    if (key == keys::load_total_byte_ns) gap *= number(keys::duration_ns);
    gap += 0.01 * memprof_value + 1;
    return {gap, gap};
  }
  const char* error_key = keys::error_bound_of(key);
  const double error = error_key ? number(error_key) : 0;
  return {error, error};
}

}  // namespace

std::vector<FigureVerdict> judge_against_memprof(const Figures& figures, const std::map<std::string, std::string>& live) {
  std::vector<FigureVerdict> out;
  for (const auto& [key, value] : figures) {
    FigureVerdict v;
    v.key = key;
    v.trace = value;
    auto it = live.find(key);
    if (it == live.end()) {  // a figure memprof did not write cannot be said to agree
      v.how = FigureVerdict::How::missing;
      out.push_back(v);
      continue;
    }
    v.memprof = it->second;
    if (it->second != std::to_string(value)) {
      const double mine = std::stod(it->second), gap = double(value) - mine;
      const auto [below, above] = allowed(key, mine, live);
      v.above = above;
      if (gap >= -below && gap <= above) {
        v.how = FigureVerdict::How::within;
        v.bound = key == keys::threads_peak_count ? FigureVerdict::Bound::threads
                  : is_exact_figure(key)          ? FigureVerdict::Bound::stated_error
                                                  : FigureVerdict::Bound::slack;
      } else {
        v.how = FigureVerdict::How::differs;
      }
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace allocstamp::trace
