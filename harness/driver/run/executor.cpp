// executor.cpp — the real executor. The child gets its own process group (a
// timeout stops the workload and anything it started), the write end of the
// record pipe above fd 9, and its output in the run's log; the parent drains
// the pipe while waiting so a chatty child never blocks. The machine's load and
// CPU ticks are read just before the fork and just after the child ends.
// bench is its children's subreaper: a process of the run that left its group
// (setsid) comes back to bench when its parent ends, and is killed with the run.
#include "run/executor.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "run/machine.h"
#include "run/process_tree.h"

namespace allocstamp {

namespace {

std::atomic<bool> stop_requested{false};

void on_signal(int) { stop_requested.store(true); }

uint64_t since(std::chrono::steady_clock::time_point start) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}


uint64_t timeval_ns(const timeval& tv) { return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull; }

constexpr size_t kMaxRecordBytes = size_t(64) << 20;  // a runaway writer cannot exhaust memory

// Reads what is there, at most 16 chunks per call so that the caller keeps
// checking the timeout and interrupts even when a child writes without pause.
void drain(int fd, std::string& into, bool& truncated) {
  char buf[65536];
  for (int chunk = 0; chunk < 16; ++chunk) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (into.size() + size_t(n) <= kMaxRecordBytes) into.append(buf, size_t(n));
      else truncated = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return;  // EAGAIN or EOF
  }
}

// A descriptor that poll() finds readable once `pid` has ended (pidfd_open,
// Linux 5.3), or -1: the wait loop then wakes at the end itself, not at its
// next 50 ms step, where a process that outlives the child (a server, a
// program's background child) holds the records pipe open.
int exit_fd(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

// Whether something accepts connections on 127.0.0.1:port (a server's client
// may start).
bool accepting(int port) {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(s, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  close(s);
  return ok;
}

std::string ending_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "an unknown status";
}

// A server's client, forked into the server's process group (a timeout or an
// interrupt stops both); -1 with `error` set when it could not start.
pid_t start_client(const Launch::Client& client, pid_t group, const std::string& log_path, std::string& error) {
  std::vector<char*> argv{const_cast<char*>(client.program.c_str())};
  for (const auto& a : client.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env = client.env;
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  const int out_fd = client.stdout_path.empty()
                         ? -1
                         : open(client.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = -1;
  if (log_fd < 0 || (!client.stdout_path.empty() && out_fd < 0) || devnull < 0) {
    error = "cannot open the client's output: " + std::string(std::strerror(errno));
  } else {
    pid = fork();
    if (pid == 0) {
      setpgid(0, group);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      dup2(devnull, 0);
      dup2(out_fd >= 0 ? out_fd : log_fd, 1);
      dup2(log_fd, 2);
      close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ}) signal(sig, SIG_DFL);
      execve(client.program.c_str(), argv.data(), envp.data());
      dprintf(2, "bench: cannot start %s: %s\n", client.program.c_str(), std::strerror(errno));
      _exit(127);
    }
    if (pid > 0) setpgid(pid, group);
    else error = std::string("fork: ") + std::strerror(errno);
  }
  for (int fd : {log_fd, out_fd, devnull})
    if (fd >= 0) close(fd);
  return pid;
}

// The child's standard files: its log (stderr, and stdout unless the program's
// output is kept apart to be compared), that output, and /dev/null for stdin.
// On failure, sets f.start_failed and f.error and leaves nothing open.
struct ChildFiles {
  int log_fd = -1, devnull = -1, out_fd = -1;
};

ChildFiles open_child_files(const Launch& launch, Finished& f) {
  ChildFiles files;
  files.log_fd = open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  files.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!launch.stdout_path.empty())
    files.out_fd = open(launch.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  std::string failed;
  if (!launch.stdout_path.empty() && files.out_fd < 0) failed = launch.stdout_path;
  else if (files.log_fd < 0) failed = launch.log_path;
  if (failed.empty()) return files;
  f.start_failed = true;
  f.error = "cannot write " + failed + ": " + std::strerror(errno);
  for (int fd : {files.log_fd, files.devnull, files.out_fd})
    if (fd >= 0) close(fd);
  return ChildFiles{};
}

// A server's client, through the server's run: not started yet (pid -1 and not
// done), running, or done. The server listening: its client starts; the client
// done: the server is asked to stop (SIGTERM: it exits, memprof reports), and
// killed with its group if it has not within 10 s.
class ClientTurn {
 public:
  explicit ClientTurn(const Launch& launch)
      : launch_(launch),
        name_(launch.client ? std::filesystem::path(launch.client->program).filename().string() : std::string()) {}

  // One look, from the server's wait loop (the server's pid is its group's).
  void step(pid_t server, std::chrono::steady_clock::time_point now, Finished& f) {
    if (pid_ < 0 && !done_ && accepting(launch_.client->port)) {
      start_ = std::chrono::steady_clock::now();
      pid_ = start_client(*launch_.client, server, launch_.log_path, f.failure);
      if (pid_ < 0) done_ = true;
      else exit_fd_ = exit_fd(pid_);
    } else if (pid_ > 0) {
      int status = 0;
      struct rusage usage {};
      if (wait4(pid_, &status, WNOHANG, &usage) == pid_) {
        wall_ns_ = since(start_);
        cpu_ns_ = timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime);
        pid_ = -1;
        done_ = true;
        close_exit_fd();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
          f.failure = "the client " + name_ + " ended with " + ending_text(status) + " (see the log)";
      }
    }
    if (done_ && !server_stopping_) {
      kill(server, SIGTERM);
      server_stopping_ = true;
      server_kill_at_ = now + std::chrono::seconds(10);
    } else if (server_stopping_ && now > server_kill_at_) {
      kill(-server, SIGKILL);
      if (f.failure.empty()) f.failure = "the server did not stop within 10 s of SIGTERM once its client was done";
      server_kill_at_ = now + std::chrono::hours(1);
    }
  }

  // The server ended on its own (no timeout, no interrupt): a client that
  // never finished fails the run; one that did gives the run its time.
  void settle(Finished& f) const {
    if (!done_ && f.failure.empty())
      f.failure = "the server ended before its client " +
                  std::string(pid_ < 0 ? "could connect to 127.0.0.1:" + std::to_string(launch_.client->port)
                                       : name_ + " was done") +
                  " (see the log)";
    if (done_ && wall_ns_) f.wall_ns = wall_ns_;  // the run's time is the client's
  }

  // Readable once the running client has ended (-1 when none runs).
  int ended_fd() const { return exit_fd_; }
  // The CPU time of the client and the children it waited for (0 until it is reaped).
  uint64_t cpu_ns() const { return cpu_ns_; }
  ~ClientTurn() { close_exit_fd(); }
  ClientTurn(const ClientTurn&) = delete;
  ClientTurn& operator=(const ClientTurn&) = delete;

 private:
  void close_exit_fd() {
    if (exit_fd_ >= 0) close(exit_fd_);
    exit_fd_ = -1;
  }

  const Launch& launch_;
  const std::string name_;
  pid_t pid_ = -1;
  bool done_ = false, server_stopping_ = false;
  std::chrono::steady_clock::time_point start_{}, server_kill_at_{};
  uint64_t wall_ns_ = 0, cpu_ns_ = 0;
  int exit_fd_ = -1;
};

// The child's ending and what the kernel counted for it (wait4's rusage: the
// whole process, its threads and the children it waited for).
void take_ending(int status, const struct rusage& usage, Finished& f) {
  if (WIFEXITED(status)) f.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  f.user_ns = timeval_ns(usage.ru_utime);
  f.sys_ns = timeval_ns(usage.ru_stime);
  f.maxrss_kb = usage.ru_maxrss;
  f.minor_faults = uint64_t(usage.ru_minflt);
  f.major_faults = uint64_t(usage.ru_majflt);
  f.voluntary_switches = uint64_t(usage.ru_nvcsw);
  f.involuntary_switches = uint64_t(usage.ru_nivcsw);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
  // An ignored SIGCHLD (inheritable across exec) would make the kernel reap
  // children itself and wait4 fail.
  signal(SIGCHLD, SIG_DFL);
}

bool interrupted() { return stop_requested.load(); }

namespace {

// Waits for the child (`pid`, its group's leader) to end, draining its
// records from `records_fd`, stepping a server's client, and stopping the
// group at the time limit or on an interrupt: TERM, then KILL 2 s later. The
// child is left unreaped (waitid's WNOWAIT): its pid cannot be reused before
// the caller stops its group.
void watch_child(pid_t pid, int records_fd, const Launch& launch, std::chrono::steady_clock::time_point start,
                 ClientTurn& client, Finished& f, bool& truncated) {
  auto deadline = start + std::chrono::duration<double>(launch.timeout_seconds);
  bool term_sent = false;
  std::chrono::steady_clock::time_point kill_at{};
  const int child_ended = exit_fd(pid);
  for (;;) {
    // The records, the child's end and its client's: whichever comes first.
    pollfd p[3] = {{records_fd, POLLIN, 0}, {child_ended, POLLIN, 0}, {term_sent ? -1 : client.ended_fd(), POLLIN, 0}};
    int ready = poll(p, 3, 50);
    if (ready > 0) drain(records_fd, f.records, truncated);
    // Wait without reaping: the process group is stopped before the pid can be reused.
    siginfo_t info{};
    int waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (waited == 0 && info.si_pid == pid) break;
    if (waited != 0 && errno == ECHILD) {
      f.start_failed = true;
      f.error = "lost track of the child (wait failed)";
      break;
    }
    auto now = std::chrono::steady_clock::now();
    if (launch.client && !term_sent) client.step(pid, now, f);
    bool stop = false;
    if (!term_sent && now > deadline) {
      f.timed_out = true;
      stop = true;
    }
    if (!term_sent && interrupted()) {
      f.interrupted = true;
      stop = true;
    }
    if (stop) {
      kill(-pid, SIGTERM);
      term_sent = true;
      kill_at = now + std::chrono::seconds(2);
    } else if (term_sent && now > kill_at) {
      kill(-pid, SIGKILL);  // did not stop on TERM
      kill_at = now + std::chrono::hours(1);
    }
  }
  if (child_ended >= 0) close(child_ended);
}

}  // namespace

Finished ProcessExecutor::run(const Launch& launch) {
  Finished f;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    f.start_failed = true;
    f.error = std::string("pipe: ") + std::strerror(errno);
    return f;
  }
  const ChildFiles files = open_child_files(launch, f);
  if (f.start_failed) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return f;
  }
  const int log_fd = files.log_fd, devnull = files.devnull, out_fd = files.out_fd;

  // Everything the child needs is built before fork: it only calls async-signal-safe functions.
  std::vector<std::string> env = launch.env;
  const int child_records_fd = 10;
  env.push_back("MEMPROF_OUT=fd:" + std::to_string(child_records_fd));
  std::vector<char*> argv{const_cast<char*>(launch.program.c_str())};
  for (const auto& a : launch.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  // Orphans of the run come to bench, not to init: they are found and killed after it.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const std::set<pid_t> children_before = children_of_bench();
  const double load_before = load_average();
  const CpuTicks ticks_before = cpu_ticks();
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // bench gone (ssh dropped): the workload goes too
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_fd >= 0 ? out_fd : log_fd, 1);
    dup2(log_fd, 2);
    if (pipe_fds[1] == child_records_fd) fcntl(child_records_fd, F_SETFD, 0);
    else dup2(pipe_fds[1], child_records_fd);  // dup2 clears close-on-exec
    // Nothing else of bench's (its CSV files above all) reaches the workload.
    close_range(3, child_records_fd - 1, CLOSE_RANGE_CLOEXEC);
    close_range(child_records_fd + 1, ~0U, CLOSE_RANGE_CLOEXEC);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ}) signal(sig, SIG_DFL);
    if (launch.fixed_addresses) personality(ADDR_NO_RANDOMIZE);
    execve(launch.program.c_str(), argv.data(), envp.data());
    dprintf(2, "bench: cannot start %s: %s\n", launch.program.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(pipe_fds[1]);
  close(log_fd);
  if (out_fd >= 0) close(out_fd);
  if (devnull >= 0) close(devnull);
  if (pid < 0) {
    f.start_failed = true;
    f.error = std::string("fork: ") + std::strerror(errno);
    close(pipe_fds[0]);
    return f;
  }
  setpgid(pid, pid);
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);

  int status = 0;
  struct rusage usage {};
  bool truncated = false;
  ClientTurn client(launch);
  watch_child(pid, pipe_fds[0], launch, start, client, f, truncated);
  f.wall_ns = since(start);
  const uint64_t life_ns = f.wall_ns;  // the child's; a server's run is timed by its client (settle)
  if (launch.client && !f.timed_out && !f.interrupted && !f.start_failed) client.settle(f);
  const CpuTicks ticks_after = cpu_ticks();
  kill(-pid, SIGKILL);  // anything the workload left running in its group
  wait4(pid, &status, 0, &usage);
  kill_orphans(children_before);
  for (;;) {  // what is still in the pipe
    size_t before = f.records.size();
    drain(pipe_fds[0], f.records, truncated);
    if (f.records.size() == before) break;
  }
  close(pipe_fds[0]);
  if (truncated) f.records += "\n@error records_truncated_at_bytes=" + std::to_string(kMaxRecordBytes) + "\n";
  take_ending(status, usage, f);
  if (!f.start_failed) {
    // The machine's ticks span the child's life: of them, the child's CPU and
    // its client's are the run's own, the rest the other tenants'.
    const MachineShare share = machine_share(ticks_before, ticks_after, own_cpu_seconds(f, client.cpu_ns()),
                                             double(life_ns) / 1e9);
    f.load_avg_before = load_before;
    f.others_cpu_pct = share.others_cpu_pct;
    f.steal_pct = share.steal_pct;
  }
  return f;
}

double own_cpu_seconds(const Finished& f, uint64_t client_cpu_ns) {
  return double(f.user_ns + f.sys_ns + client_cpu_ns) / 1e9;
}

Status status_of(const Finished& f) {
  if (f.timed_out) return Status::timeout;
  if (f.start_failed || !f.failure.empty()) return Status::failed;
  if (f.signal) return Status::crashed;
  if (f.exit_code == 0) return Status::ok;
  if (f.exit_code == 3) return Status::verify_failed;
  return Status::failed;
}

}  // namespace allocstamp
