// progress.h — what a person sees during a sweep: on a terminal one line that
// rewrites itself (cell, done/total, ETA); otherwise one plain line per run,
// with the ETA once a minute. The ETA is honest from the first run: each run
// still to make counts the seconds runs of its shape took before
// (run_seconds.h), scaled by how fast this sweep's runs have gone against
// theirs; a run the table does not know counts the mean of this sweep's such
// runs.
#pragma once
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "model/run.h"
#include "results/run_seconds.h"

namespace allocstamp {

// How much the table's pace (1) weighs against this sweep's runs: as many
// seconds of runs at the table's own seconds.
constexpr double kTableWeightSeconds = 20;

class Progress {
 public:
  // `to_make`: the sweep's runs still to make; `precision`: whether each
  // workload's precision rounds follow its runs (their time is counted too).
  Progress(const std::vector<Run>& to_make, const RunSeconds& seconds, bool precision);
  void starting(const Run& run, int done);
  void finished(const Run& run, const std::string& status, double seconds);
  // `workload`'s runs and its precision rounds are over.
  void workload_done(const std::string& workload);
  void done();
  // Clears the progress line, so that other output (a workload's table) starts on a line of its own.
  void pause();
  // More runs than planned (bench --precision adds repetition rounds).
  void extend(int more) { total_ += more; }
  // A line of its own between runs (what --precision decided).
  void say(const std::string& line);
  // Seconds still to go as the ETA counts them; negative when nothing is known yet.
  double seconds_left() const;

 private:
  std::string eta_text() const;
  int total_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_said_;  // the last ETA a plain line gave
  int finished_ = 0;
  std::map<int, double> planned_;              // run id -> its expected seconds (0: unknown), until it ends
  std::map<std::string, double> rounds_left_;  // a workload's precision rounds, expected seconds, until they end
  std::map<std::string, double> rounds_took_;  // seconds the runs of a workload's rounds took so far
  double expected_left_ = 0;   // the known runs still to make
  int unknown_left_ = 0;       // the runs still to make the table does not know
  double known_took_ = 0, known_expected_ = 0;  // finished known runs (and ended rounds): actual and expected
  double unknown_took_ = 0;
  int unknown_done_ = 0;
};

}  // namespace allocstamp
