// executor.cpp — the real executor. The child gets its own process group (a
// timeout stops the workload and anything it started), the write end of the
// record pipe above fd 9, and its output in the run's log; the parent drains
// the pipe while waiting so a chatty child never blocks.
#include "executor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace allocstamp {

namespace {

std::atomic<bool> stop_requested{false};

void on_signal(int) { stop_requested.store(true); }

uint64_t since(std::chrono::steady_clock::time_point start) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

uint64_t timeval_ns(const timeval& tv) { return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull; }

void drain(int fd, std::string& into) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return;  // EAGAIN or EOF
  }
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() { return stop_requested.load(); }

Finished ProcessExecutor::run(const Launch& launch) {
  Finished f;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    f.start_failed = true;
    f.error = std::string("pipe: ") + std::strerror(errno);
    return f;
  }
  int log_fd = open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    f.start_failed = true;
    f.error = "cannot write " + launch.log_path + ": " + std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return f;
  }

  // Everything the child needs is built before fork: it only calls async-signal-safe functions.
  std::vector<std::string> env = launch.env;
  const int child_records_fd = 10;
  env.push_back(launch.records_env + "=fd:" + std::to_string(child_records_fd));
  std::vector<char*> argv{const_cast<char*>(launch.program.c_str())};
  for (const auto& a : launch.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    dup2(pipe_fds[1], child_records_fd);  // dup2 clears close-on-exec
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execve(launch.program.c_str(), argv.data(), envp.data());
    dprintf(2, "bench: cannot start %s: %s\n", launch.program.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(pipe_fds[1]);
  close(log_fd);
  if (pid < 0) {
    f.start_failed = true;
    f.error = std::string("fork: ") + std::strerror(errno);
    close(pipe_fds[0]);
    return f;
  }
  setpgid(pid, pid);
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);

  auto deadline = start + std::chrono::duration<double>(launch.timeout_seconds);
  bool term_sent = false;
  std::chrono::steady_clock::time_point kill_at{};
  int status = 0;
  struct rusage usage {};
  for (;;) {
    pollfd p{pipe_fds[0], POLLIN, 0};
    int ready = poll(&p, 1, 50);
    if (ready > 0) drain(pipe_fds[0], f.records);
    pid_t w = wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) break;
    auto now = std::chrono::steady_clock::now();
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
  f.wall_ns = since(start);
  drain(pipe_fds[0], f.records);
  close(pipe_fds[0]);
  kill(-pid, SIGKILL);  // anything the workload left running in its group
  if (WIFEXITED(status)) f.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  f.user_ns = timeval_ns(usage.ru_utime);
  f.sys_ns = timeval_ns(usage.ru_stime);
  f.maxrss_kb = usage.ru_maxrss;
  return f;
}

}  // namespace allocstamp
