// trace_agreement.h — how a trace's figures (trace_stats.h) must agree with
// memprof's live record of the same run, figure by figure (docs/trace.md):
// an exact figure equal, or within the error memprof states for it (its peaks
// with several threads alive); the load within memprof's heap slack per thread
// alive (times the duration for the total) plus 1% for the clock; the threads'
// peak at most memprof's (the trace sees only the threads that allocated).
// `bench trace record` prints these verdicts and fails on any that differs.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace_stats.h"

namespace allocstamp::trace {

struct FigureVerdict {
  enum class How { equal, within, differs, missing };
  enum class Bound { none, threads, stated_error, slack };
  std::string key;
  std::string memprof;  // memprof's value as written ("" when missing)
  uint64_t trace = 0;
  How how = How::equal;
  Bound bound = Bound::none;  // what allowed a value within
  double above = 0;           // how far above memprof's value the trace's may lie
};

// One verdict per figure, in the figures' order. `live`: memprof's record (key -> value).
std::vector<FigureVerdict> judge_against_memprof(const Figures& figures, const std::map<std::string, std::string>& live);

}  // namespace allocstamp::trace
