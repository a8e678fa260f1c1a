// profiled_run.cpp — spawning, timing out and parsing for the memprof tests.
#include "profiled_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace allocstamp::testing {

namespace fs = std::filesystem;

const std::vector<TestAllocator>& test_allocators() {
  static const std::vector<TestAllocator> all = {
      {"glibc", ""},
      {"jemalloc", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"},
      {"tcmalloc", "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"},
      {"mimalloc", "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"},
      {"tbbmalloc", "/usr/lib/x86_64-linux-gnu/libtbbmalloc_proxy.so.2"},
  };
  return all;
}

bool installed(const TestAllocator& allocator) {
  return allocator.library.empty() || fs::exists(allocator.library);
}

std::string memprof_library() { return MEMPROF_LIBRARY; }
std::string target(const std::string& name) { return std::string(TARGET_DIR) + "/" + name; }

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::pair<std::string, Record>> parse_records(const std::string& text) {
  std::vector<std::pair<std::string, Record>> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '@') continue;
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    Record r;
    while (words >> word) {
      auto eq = word.find('=');
      if (eq != std::string::npos) r[word.substr(0, eq)] = word.substr(eq + 1);
    }
    out.emplace_back(kind.substr(1), std::move(r));
  }
  return out;
}

}  // namespace

Record RunResult::memprof() const {
  Record merged;
  for (const auto& [kind, r] : records)
    if (kind == "memprof") merged.insert(r.begin(), r.end());
  return merged;
}

int64_t RunResult::num(const std::string& key) const {
  Record r = memprof();
  auto it = r.find(key);
  if (it == r.end()) throw std::runtime_error("no key '" + key + "' in the @memprof record; " + describe());
  return std::stoll(it->second);
}

int64_t RunResult::metric(const std::string& name) const {
  for (const auto& [kind, r] : records)
    if (kind == "metric" && r.count(name)) return std::stoll(r.at(name));
  throw std::runtime_error("no metric '" + name + "'; " + describe());
}

std::string RunResult::describe() const {
  std::ostringstream s;
  s << "exit=" << exit_code << " signal=" << signal << (timed_out ? " TIMED OUT" : "")
    << "\n--- stderr ---\n" << err.substr(0, 4000);
  return s.str();
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const TestAllocator& allocator, const RunOptions& options) {
  fs::path dir = fs::temp_directory_path() / ("allocstamp-test-" + std::to_string(getpid()) + "-" +
                                              std::to_string(std::rand()));
  fs::create_directories(dir);
  fs::path out = dir / "stdout", err = dir / "stderr", records = dir / "records";

  std::vector<std::string> env_strings;
  auto overridden = [&](const std::string& s) {
    for (const auto& [k, v] : options.env)
      if (s.rfind(k + "=", 0) == 0) return true;
    return false;
  };
  for (char** e = environ; *e; ++e) {
    std::string s = *e;
    if (s.rfind("LD_PRELOAD=", 0) == 0 || s.rfind("MEMPROF_", 0) == 0 || overridden(s)) continue;
    env_strings.push_back(s);
  }
  std::string preload;
  if (options.profile) preload = memprof_library();
  if (!allocator.library.empty()) preload += (preload.empty() ? "" : ":") + allocator.library;
  if (!preload.empty()) env_strings.push_back("LD_PRELOAD=" + preload);
  if (!overridden("MEMPROF_OUT=")) env_strings.push_back("MEMPROF_OUT=" + records.string());
  for (const auto& [k, v] : options.env) env_strings.push_back(k + "=" + v);

  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  RunResult result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = slurp(out);
  result.err = slurp(err);
  result.records = parse_records(slurp(records));
  fs::remove_all(dir);
  return result;
}

}  // namespace allocstamp::testing
