// run_command.cpp — fork + execve with the environment adjusted, output through
// scratch files (no pipe to drain while waiting), optional SIGINT.
#include "run_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace allocstamp::testing {

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

std::string flat(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}


namespace fs = std::filesystem;

ScratchDir::ScratchDir(const std::string& stem)
    : path_(fs::temp_directory_path() / (stem + "-" + std::to_string(getpid()))) {
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool still_running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  rest >> state;
  return state != "Z" && state != "X";
}

bool ends_within(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (still_running(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    usleep(50000);
  }
  return true;
}

CommandResult run_command(std::vector<std::string> argv, const CommandOptions& options) {
  static std::atomic<int> serial{0};
  const std::string stem = "run-command-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  const fs::path out = fs::temp_directory_path() / (stem + ".out"), err = fs::temp_directory_path() / (stem + ".err");
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    bool dropped = false;
    for (const auto& prefix : options.drop_prefixes) dropped = dropped || entry.rfind(prefix, 0) == 0;
    if (!dropped) env.push_back(entry);
  }
  for (const auto& mine : options.env) {  // a later entry of the same name wins
    const std::string name = mine.substr(0, mine.find('=') + 1);
    auto same = std::find_if(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(name, 0) == 0; });
    if (same != env.end()) *same = mine;
    else env.push_back(mine);
  }
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
  int status = 0;
  bool reaped = false;
  if (options.interrupt_when) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    for (;;) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        reaped = true;  // it ended before the event
        break;
      }
      if (options.interrupt_when()) {
        kill(pid, SIGINT);
        break;
      }
      if (std::chrono::steady_clock::now() > give_up) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  while (!reaped && options.timeout_seconds > 0 && waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!reaped && (options.timeout_seconds <= 0 || r.timed_out)) waitpid(pid, &status, 0);
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + r.signal;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace allocstamp::testing
