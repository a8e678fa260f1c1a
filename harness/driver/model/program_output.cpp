// program_output.cpp — a helper program's output through posix_spawnp and a pipe.
#include "model/program_output.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace allocstamp {

ProgramOutput program_output(const std::vector<std::string>& argv, bool with_stderr) {
  ProgramOutput result;
  if (argv.empty()) return result;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  if (with_stderr) posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  else posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned == 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
      if (n > 0) result.out.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) break;
    }
  }
  close(pipe_fds[0]);
  if (spawned != 0) return result;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // posix_spawnp reports a program it could not exec as exit 127.
  result.started = !(WIFEXITED(status) && WEXITSTATUS(status) == 127);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace allocstamp
