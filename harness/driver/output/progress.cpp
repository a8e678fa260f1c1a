// progress.cpp — the progress line and its ETA (progress.h).
#include "output/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace allocstamp {

Progress::Progress(const std::vector<Run>& to_make, const RunSeconds& seconds, bool precision)
    : total_(static_cast<int>(to_make.size())),
      terminal_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_said_(start_) {
  for (const Run& run : to_make) {
    const double expected = seconds.expected(run);
    planned_[run.id] = expected;
    if (expected > 0) expected_left_ += expected;
    else ++unknown_left_;
    if (precision && seconds.rounds(run.workload.name) > 0)
      rounds_left_[run.workload.name] = seconds.rounds(run.workload.name);
  }
}

double Progress::seconds_left() const {
  // This sweep's pace against the table's, the table's own (1) weighing as
  // 20 s of runs. Measured 2026-12-06 (the ETA against the time left): the
  // default job, whose first runs (churn's at two threads) took 1.5 to 2.5
  // times their medians, unweighed +46% at one minute, weighed +29%; the real
  // preset beside two builds (every run twice the table's), -12% at one
  // minute and +4% at two; weighed as a minute, -31% and -16%.
  const double pace = (known_took_ + kTableWeightSeconds) / (known_expected_ + kTableWeightSeconds);
  double rounds = 0;
  for (const auto& [workload, expected] : rounds_left_) rounds += expected;
  double left = pace * (expected_left_ + rounds);
  if (unknown_left_ > 0) {
    if (unknown_done_ > 0) left += unknown_left_ * unknown_took_ / unknown_done_;
    else if (finished_ > 0) left += unknown_left_ * (known_took_ + unknown_took_) / finished_;
    else return -1;
  }
  return left;
}

std::string Progress::eta_text() const {
  const double left = seconds_left();
  if (left < 0) return "?";
  const long s = std::lround(left);
  return std::to_string(s / 60) + ":" + (s % 60 < 10 ? "0" : "") + std::to_string(s % 60);
}

void Progress::starting(const Run& run, int done) {
  if (!terminal_) return;
  std::fprintf(stderr, "\r\033[K[%d/%d] %s  (ETA %s)", done + 1, total_, describe(run).c_str(), eta_text().c_str());
  std::fflush(stderr);
}

void Progress::finished(const Run& run, const std::string& status, double seconds) {
  ++finished_;
  if (const auto planned = planned_.find(run.id); planned != planned_.end()) {
    if (planned->second > 0) {
      expected_left_ -= planned->second;
      known_expected_ += planned->second;
      known_took_ += seconds;
    } else {
      --unknown_left_;
      unknown_took_ += seconds;
      ++unknown_done_;
    }
    planned_.erase(planned);
  } else {
    rounds_took_[run.workload.name] += seconds;  // a precision round's run
  }
  if (terminal_) {
    if (status != "ok") std::fprintf(stderr, "\r\033[K%s: %s\n", describe(run).c_str(), status.c_str());
    return;
  }
  std::string eta;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_said_ >= std::chrono::minutes(1)) {
    last_said_ = now;
    eta = " — ETA " + eta_text();
  }
  std::fprintf(stderr, "[%d/%d] %s: %s (%.2f s)%s\n", finished_, total_, describe(run).c_str(), status.c_str(), seconds,
               eta.c_str());
}

void Progress::workload_done(const std::string& workload) {
  // Its rounds' expected seconds now count as done, with the seconds they took.
  if (const auto left = rounds_left_.find(workload); left != rounds_left_.end()) {
    known_expected_ += left->second;
    known_took_ += rounds_took_[workload];
    rounds_left_.erase(left);
  }
}

void Progress::say(const std::string& line) {
  std::fprintf(stderr, "%s%s\n", terminal_ ? "\r\033[K" : "", line.c_str());
  std::fflush(stderr);
}

void Progress::pause() {
  if (terminal_) std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

void Progress::done() { pause(); }

}  // namespace allocstamp
