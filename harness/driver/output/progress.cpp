// progress.cpp — the ETA is the mean time per finished run times what is left.
#include "output/progress.h"

#include <unistd.h>

#include <cstdio>

namespace allocstamp {

Progress::Progress(int total)
    : total_(total), terminal_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

void Progress::starting(const Run& run, int done) {
  if (!terminal_) return;
  std::string eta = "?";
  if (finished_ > 0) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    int left = int(elapsed / finished_ * (total_ - done));
    eta = std::to_string(left / 60) + ":" + (left % 60 < 10 ? "0" : "") + std::to_string(left % 60);
  }
  std::fprintf(stderr, "\r\033[K[%d/%d] %s  (ETA %s)", done + 1, total_, describe(run).c_str(), eta.c_str());
  std::fflush(stderr);
}

void Progress::finished(const Run& run, const std::string& status, double seconds) {
  ++finished_;
  if (terminal_) {
    if (status != "ok") std::fprintf(stderr, "\r\033[K%s: %s\n", describe(run).c_str(), status.c_str());
    return;
  }
  std::fprintf(stderr, "[%d/%d] %s: %s (%.2f s)\n", finished_, total_, describe(run).c_str(), status.c_str(), seconds);
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
