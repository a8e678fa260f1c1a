// progress.h — what a person sees during a sweep: on a terminal one line that
// rewrites itself (cell, done/total, ETA); otherwise one plain line per run.
#pragma once
#include <chrono>
#include <string>

#include "plan/plan.h"

namespace allocstamp {

class Progress {
 public:
  explicit Progress(int total);
  void starting(const Run& run, int done);
  void finished(const Run& run, const std::string& status, double seconds);
  void done();
  // Clears the progress line, so that other output (a workload's table) starts on a line of its own.
  void pause();
  // More runs than planned (bench --precision adds repetition rounds).
  void extend(int more) { total_ += more; }
  // A line of its own between runs (what --precision decided).
  void say(const std::string& line);

 private:
  int total_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
  int finished_ = 0;
};

}  // namespace allocstamp
