// busy_core.h — a process that keeps one core busy while bench measures beside
// it (`bench overhead --load busy`): forked, not exec'd (it runs no program and
// reads no environment), in a process group of its own, ended by SIGKILL when
// bench ends it, when bench dies (parent-death signal) or at its time limit.
#pragma once
#include <sys/types.h>

namespace allocstamp {

class BusyCore {
 public:
  // Starts the spinner; throws RunError when it cannot.
  explicit BusyCore(double limit_seconds);
  ~BusyCore();
  BusyCore(const BusyCore&) = delete;
  BusyCore& operator=(const BusyCore&) = delete;

  // Ends it and returns the share of one core it had while it lived: its CPU
  // seconds over its wall seconds (near 1 when a core was free for it).
  double stop();

 private:
  pid_t pid_ = -1;
  long long started_ns_ = 0;
  double share_ = 0;
};

}  // namespace allocstamp
