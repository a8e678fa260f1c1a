// run_command.cpp — fork + execve with the environment adjusted, output through
// scratch files (no pipe to drain while waiting), optional SIGINT.
#include "run_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace allocstamp::testing {

namespace fs = std::filesystem;

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CommandResult run_command(std::vector<std::string> argv, const CommandOptions& options) {
  static std::atomic<int> serial{0};
  const std::string stem = "run-command-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  const fs::path out = fs::temp_directory_path() / (stem + ".out"), err = fs::temp_directory_path() / (stem + ".err");
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& mine : options.env) replaced = replaced || mine.substr(0, mine.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), options.env.begin(), options.env.end());
  std::vector<char*> args, envp;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  CommandResult r;
  if (pid < 0) return r;
  if (options.interrupt_after_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options.interrupt_after_ms));
    kill(pid, SIGINT);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace allocstamp::testing
