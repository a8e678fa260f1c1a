// busy_core.cpp — the spinner of busy_core.h.
#include "run/busy_core.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include "model/errors.h"

namespace allocstamp {

namespace {

long long monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

[[noreturn]] void spin(unsigned limit_seconds, pid_t bench) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != bench) _exit(0);  // bench died before the death signal was set
  alarm(limit_seconds);  // SIGALRM's default action ends it
  volatile unsigned long long n = 0;
  for (;;) n = n + 1;
}

}  // namespace

BusyCore::BusyCore(double limit_seconds) {
  const unsigned limit = (unsigned)std::ceil(std::max(1.0, limit_seconds));
  started_ns_ = monotonic_ns();
  const pid_t bench = getpid();
  pid_ = fork();
  if (pid_ == 0) spin(limit, bench);
  if (pid_ < 0)
    throw RunError(std::string("cannot start the process that keeps a core busy: fork: ") + std::strerror(errno),
                   "free some processes or run without --load busy");
  setpgid(pid_, pid_);
}

double BusyCore::stop() {
  if (pid_ <= 0) return share_;
  kill(-pid_, SIGKILL);
  int status = 0;
  rusage usage{};
  while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  const double cpu = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  const double wall = double(monotonic_ns() - started_ns_) / 1e9;
  share_ = wall > 0 ? cpu / wall : 0;
  return share_;
}

BusyCore::~BusyCore() { stop(); }

}  // namespace allocstamp
