// executor.h — runs one child process and reports how it ended. The interface
// lets the driver's logic be tested with a fake; ProcessExecutor is the real
// one: fork + execve, a pipe for records, a per-run log, timeout, wait4.
#pragma once
#include <sys/resource.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "model/run.h"

namespace allocstamp {

struct Launch {
  std::string program;
  std::vector<std::string> args;         // without argv[0]
  std::vector<std::string> env;          // complete environment, "KEY=value"
  std::string log_path;                  // child's stdout and stderr
  std::string stdout_path;               // set: its standard output goes here instead (its result, compared)
  double timeout_seconds = 600;
  // The child's addresses not randomised (personality ADDR_NO_RANDOMIZE, as
  // setarch -R): a simulated run's cache misses and address-hashing paths
  // then repeat exactly.
  bool fixed_addresses = false;
  // A server's client (catalog.h): started once the child accepts a
  // connection on 127.0.0.1:port, in the child's process group, its output
  // into `stdout_path` (else the log), its errors into the log; when it ends
  // the child is sent SIGTERM, and the run's wall time is the client's.
  struct Client {
    std::string program;
    std::vector<std::string> args, env;
    std::string stdout_path;
    int port = 0;
  };
  std::optional<Client> client;
};

struct Finished {
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it
  bool timed_out = false;   // stopped by the timeout (TERM, then KILL)
  bool interrupted = false; // stopped because bench was interrupted
  bool start_failed = false;
  std::string error;        // why it could not start
  uint64_t wall_ns = 0;
  uint64_t user_ns = 0, sys_ns = 0;
  int64_t maxrss_kb = 0;    // from wait4: this child, or the largest of it and the children it waited for
  // From wait4 too: page faults (minor, major) and context switches (voluntary, involuntary).
  uint64_t minor_faults = 0, major_faults = 0, voluntary_switches = 0, involuntary_switches = 0;
  // The machine around the run (machine.h); NaN when not measured (a fake, a
  // run that did not start).
  double load_avg_before = std::numeric_limits<double>::quiet_NaN();
  double others_cpu_pct = std::numeric_limits<double>::quiet_NaN();
  double steal_pct = std::numeric_limits<double>::quiet_NaN();
  std::string records;      // everything it wrote to the record pipe
  // Why the run failed where its own exit does not say (a server's client
  // that failed, a server that ended before its client was done); empty else.
  std::string failure;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual Finished run(const Launch& launch) = 0;
};

class ProcessExecutor : public Executor {
 public:
  Finished run(const Launch& launch) override;
};

// The run's own CPU time, taken off the machine's busy ticks around it: the
// child's user and system time (wait4) and its client's, in seconds.
double own_cpu_seconds(const Finished& f, uint64_t client_cpu_ns);

// SIGINT/SIGTERM: the running child is stopped and the sweep ends cleanly.
// The status of a finished run: ok, failed, verify_failed, crashed, timeout.
Status status_of(const Finished& f);

void install_interrupt_handlers();
bool interrupted();

}  // namespace allocstamp
