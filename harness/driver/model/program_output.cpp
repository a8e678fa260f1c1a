// program_output.cpp — a helper program's output through fork, execvpe and a
// pipe, read against a deadline; the program's process group killed after it.
#include "model/program_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

extern char** environ;

namespace allocstamp {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> environment_without_preload() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0 || entry.rfind("LD_AUDIT=", 0) == 0) continue;
    env.push_back(entry);
  }
  return env;
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

}  // namespace

ProgramOutput program_output(const std::vector<std::string>& argv, bool with_stderr, const ProgramLimits& limits) {
  ProgramOutput result;
  if (argv.empty()) return result;
  // Everything the child needs is built before fork: after it, only exec.
  const std::vector<std::string> env = limits.env ? *limits.env : environment_without_preload();
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int pipe_fds[2], exec_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return result;
  if (pipe2(exec_fds, O_CLOEXEC) != 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return result;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // bench gone: its helper goes too
    if (getppid() != parent) _exit(127);
    const int null_in = open("/dev/null", O_RDONLY);
    const int null_out = with_stderr ? -1 : open("/dev/null", O_WRONLY);
    if (null_in < 0 || dup2(null_in, 0) < 0 || dup2(pipe_fds[1], 1) < 0 ||
        dup2(with_stderr ? pipe_fds[1] : null_out, 2) < 0)
      _exit(127);
    execvpe(args[0], args.data(), envp.data());
    const int error = errno;  // exec failed: say so through the exec pipe
    (void)!write(exec_fds[1], &error, sizeof error);
    _exit(127);
  }
  close(pipe_fds[1]);
  close(exec_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    close(exec_fds[0]);
    return result;
  }
  setpgid(pid, pid);  // as the child does: the group exists whichever runs first
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.timeout_seconds));
  char buf[4096];
  for (;;) {
    const int wait_ms = remaining_ms(deadline);
    if (wait_ms == 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n > 0) result.out.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  close(pipe_fds[0]);
  // The output closed: the program ends by the deadline, or is stopped there.
  siginfo_t info{};
  while (!result.timed_out) {
    info.si_pid = 0;
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR) break;
    if (info.si_pid == pid) break;
    if (remaining_ms(deadline) == 0) result.timed_out = true;
    else std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Not yet reaped, the program keeps its group's id: what it left running
  // there (or the program itself, at the limit) is killed, never another's.
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int exec_error = 0;
  const bool exec_failed = read(exec_fds[0], &exec_error, sizeof exec_error) == sizeof exec_error;
  close(exec_fds[0]);
  result.started = !exec_failed;
  result.status = WIFEXITED(status) && !result.timed_out ? WEXITSTATUS(status) : -1;
  return result;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace allocstamp
