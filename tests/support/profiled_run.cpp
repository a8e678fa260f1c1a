// profiled_run.cpp — the environment a profiled run gets (run_command spawns it) and
// parsing the records it leaves, for the memprof tests.
#include "profiled_run.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "cli/registry.h"
#include "run_command.h"

namespace allocstamp::testing {

namespace fs = std::filesystem;

// Every entry of allocators/allocators.json, read by bench's own reader
// (cli/registry), with the library it resolved (else its first: not installed).
const std::vector<TestAllocator>& test_allocators() {
  static const std::vector<TestAllocator> all = [] {
    std::vector<Allocator> registry;
    load_allocators(ALLOCATORS_JSON, registry);
    std::vector<TestAllocator> out;
    for (const Allocator& entry : registry) {
      TestAllocator a{entry.name, entry.library, "", entry.base.empty() ? entry.name : entry.base, {}};
      for (const auto& [key, value] : entry.env) a.env.emplace_back(key, value);
      for (char c : a.name) a.id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      if (a.library.empty() && !entry.candidates.empty()) a.library = entry.candidates.front();
      out.push_back(a);
    }
    return out;
  }();
  return all;
}

std::vector<std::string> registry_apps(const std::string& binary) {
  std::vector<Workload> registry;
  load_workloads(WORKLOADS_JSON, registry);
  std::vector<std::string> apps;
  for (const Workload& w : registry)
    if (w.binary == binary && std::find(apps.begin(), apps.end(), w.app) == apps.end()) apps.push_back(w.app);
  return apps;
}

std::vector<std::string> binary_apps(const std::string& path) {
  const CommandResult r = run_command({path});
  const std::string marker = " <";
  const auto usage = r.err.find("usage: ");
  const auto at = r.err.find(marker, usage);
  const auto end = r.err.find('>', at);
  std::vector<std::string> apps;
  if (r.exit_code != 2 || usage == std::string::npos || at == std::string::npos || end == std::string::npos) return apps;
  std::stringstream names(r.err.substr(at + marker.size(), end - at - marker.size()));
  for (std::string name; std::getline(names, name, '|');) apps.push_back(name);
  return apps;
}

bool installed(const TestAllocator& allocator) {
  return allocator.library.empty() || fs::exists(allocator.library);
}

bool runnable(const TestAllocator& allocator) {
  if (installed(allocator)) return true;
  if (std::getenv("ALLOCSTAMP_ALLOW_MISSING_ALLOCATORS")) {
    GTEST_MESSAGE_((allocator.name + " is not installed").c_str(), ::testing::TestPartResult::kSkip);
  } else {
    ADD_FAILURE() << allocator.name << " is not installed (" << allocator.library << ") — run scripts/install-deps";
  }
  return false;
}

std::string memprof_library() { return MEMPROF_LIBRARY; }
std::string target(const std::string& name) { return std::string(TARGET_DIR) + "/" + name; }

namespace {

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

// The root process's record (its parent is this test), as bench keeps it: the
// programs it execs report to the same place.
Record RunResult::memprof() const {
  std::string root;
  for (const auto& [kind, r] : records)
    if (kind == "memprof" && r.count("ppid") && r.at("ppid") == std::to_string(getpid()) && r.count("pid")) {
      root = r.at("pid");
      break;
    }
  Record merged;
  for (const auto& [kind, r] : records)
    if (kind == "memprof" && (root.empty() || (r.count("pid") && r.at("pid") == root))) merged.insert(r.begin(), r.end());
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
  fs::path records = fs::temp_directory_path() / ("allocstamp-test-" + std::to_string(getpid()) + "-" +
                                                  std::to_string(std::rand()) + ".records");
  CommandOptions command;
  command.drop_prefixes = {"LD_PRELOAD=", "MEMPROF_"};  // nothing inherited may profile it twice
  std::string preload;
  if (options.profile) preload = memprof_library();
  if (!allocator.library.empty()) preload += (preload.empty() ? "" : ":") + allocator.library;
  if (!preload.empty()) command.env.push_back("LD_PRELOAD=" + preload);
  command.env.push_back("MEMPROF_OUT=" + records.string());
  for (const auto& [k, v] : allocator.env) command.env.push_back(k + "=" + v);
  for (const auto& [k, v] : options.env) command.env.push_back(k + "=" + v);  // later entries win
  command.timeout_seconds = options.timeout_seconds;

  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult c = run_command(argv, command);
  RunResult result;
  result.exit_code = c.signal ? -1 : c.exit_code;
  result.signal = c.signal;
  result.timed_out = c.timed_out;
  result.out = std::move(c.out);
  result.err = std::move(c.err);
  result.records = parse_records(slurp(records));
  fs::remove(records);
  return result;
}

}  // namespace allocstamp::testing
