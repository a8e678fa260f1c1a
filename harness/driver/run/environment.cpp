// environment.cpp — bench's own environment minus anything that would steer the
// child (LD_PRELOAD, MEMPROF_*, ITM_*), plus the run's preload, memprof options,
// the allocator's extra variables and, for TM workloads, the libitm method.
#include "run/environment.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "model/errors.h"
#include "model/shell_words.h"

namespace allocstamp {

namespace {

// The workload's arguments, {input} replaced by `input` (its made file's path, or its recorded name).
std::vector<std::string> arguments_with_input(const Run& run, const Options& options, bool recorded) {
  std::vector<std::string> args;
  if (!run.workload.app.empty()) args.push_back(run.workload.app);
  if (!run.workload.contract) {  // someone else's program: its own arguments (by size too), its input's path
    args.insert(args.end(), run.workload.args.begin(), run.workload.args.end());
    if (auto sized = run.workload.size_args.find(run.size); sized != run.workload.size_args.end())
      args.insert(args.end(), sized->second.begin(), sized->second.end());
    const auto input = run.workload.inputs.find(run.size);
    std::string path = input == run.workload.inputs.end() ? "<input not made>" : input->second;
    if (recorded && input != run.workload.inputs.end())
      path = "{inputs}/" + std::filesystem::path(input->second).filename().string();
    for (std::string& arg : args)
      for (std::size_t at = 0; (at = arg.find("{input}", at)) != std::string::npos; at += path.size())
        arg.replace(at, 7, path);
    return args;
  }
  args.insert(args.end(), {"--threads", std::to_string(run.threads), "--size", run.size, "--seed",
                           std::to_string(options.seed)});
  if (run.workload.tm) args.insert(args.end(), {"--tm", run.tm});
  args.insert(args.end(), run.workload.args.begin(), run.workload.args.end());
  if (auto more = options.workload_args.find(run.workload.name); more != options.workload_args.end())
    args.insert(args.end(), more->second.begin(), more->second.end());
  return args;
}

// recorded_arguments, with the client's arguments given.
std::string recorded_line(const Run& run, const Options& options, const std::vector<std::string>& client_args) {
  std::string args = shell_line(arguments_with_input(run, options, true));
  if (!run.workload.client_binary.empty())
    args += " ; " + shell_line({run.workload.client_binary}) + " " + shell_line(client_args);
  return args;
}

}  // namespace

std::string recorded_arguments(const Run& run, const Options& options) {
  return recorded_line(run, options, client_arguments(run));
}

ChildCommand child_command(const Run& run, const Options& options, const Paths& paths) {
  ChildCommand command;
  command.args = arguments_with_input(run, options, false);
  command.env = child_environment(run, options, paths);
  if (!run.workload.client_binary.empty()) command.client_args = client_arguments(run);
  command.recorded = recorded_line(run, options, command.client_args);
  return command;
}

std::vector<std::string> client_arguments(const Run& run) {
  std::vector<std::string> args = run.workload.client_args;
  if (auto sized = run.workload.client_size_args.find(run.size); sized != run.workload.client_size_args.end())
    args.insert(args.end(), sized->second.begin(), sized->second.end());
  return args;
}

namespace {

// A NAME=value entry that tunes an allocator or the loader; LD_PRELOAD is the
// run's own (the allocator itself), not a tuning.
bool tunes_allocator(const std::string& entry) {
  static const char* prefixes[] = {"MALLOC_", "GLIBC_TUNABLES", "MIMALLOC_", "TCMALLOC_", "JEMALLOC_", "TBB_", "LD_",
                                   // gperftools' heap checker and profiler (tcmalloc-full), scudo's options
                                   "HEAPCHECK", "HEAPPROFILE", "HEAP_PROFILE_", "PERFTOOLS_", "SCUDO_"};
  if (entry.rfind("LD_PRELOAD=", 0) == 0) return false;
  return std::any_of(std::begin(prefixes), std::end(prefixes),
                     [&](const char* prefix) { return entry.rfind(prefix, 0) == 0; });
}

}  // namespace

std::vector<std::string> inherited_tuning() {
  std::vector<std::string> found;
  for (char** e = environ; *e; ++e)
    if (tunes_allocator(*e)) found.emplace_back(*e);
  return found;
}

std::string allocator_environment(const std::vector<std::string>& env, const Allocator& allocator) {
  std::vector<std::string> found;
  for (const std::string& e : env)
    if (tunes_allocator(e) || allocator.env.count(e.substr(0, e.find('=')))) found.push_back(e);
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return a.substr(0, a.find('=')) < b.substr(0, b.find('='));
  });
  std::string joined;
  for (const std::string& e : found) joined += (joined.empty() ? "" : ";") + e;
  return joined;
}

std::vector<std::string> preloaded_environment(const Allocator& allocator, const std::string& in_front,
                                               const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string s = *e;
    if (s.rfind("LD_PRELOAD=", 0) == 0 || s.rfind("MEMPROF_", 0) == 0 || s.rfind("ITM_", 0) == 0) continue;
    std::string key = s.substr(0, s.find('='));
    if (allocator.env.count(key)) continue;  // the registry's value wins
    env.push_back(std::move(s));
  }
  std::string preload = in_front;
  if (!allocator.library.empty()) preload += (preload.empty() ? "" : ":") + allocator.library;
  if (!preload.empty()) env.push_back("LD_PRELOAD=" + preload);
  env.insert(env.end(), extra.begin(), extra.end());
  for (const auto& [k, v] : allocator.env) env.push_back(k + "=" + v);
  return env;
}

std::string c_library_path() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&gnu_get_libc_version), &info) || !info.dli_fname)
    throw RunError("cannot find the C library's path (dladdr)", "report this: bench needs it for a program that links its own allocator");
  return info.dli_fname;
}

std::vector<std::string> client_environment() {
  std::vector<std::string> env;
  for (std::string& e : preloaded_environment(Allocator{}, "", {}))
    if (!tunes_allocator(e)) env.push_back(std::move(e));
  return env;
}

std::vector<std::string> child_environment(const Run& run, const Options& options, const Paths& paths) {
  const bool profiled = run.kind == RunKind::profiled;
  std::vector<std::string> memprof_options;
  if (profiled && options.series) memprof_options.push_back("MEMPROF_SERIES=1");
  if (profiled && options.profile == "counts") memprof_options.push_back("MEMPROF_HEAP=0");
  // A simulated run's program reads the virtual clock (harness/simclock):
  // an allocator acting on elapsed time then repeats under valgrind.
  const std::string in_front = profiled                             ? paths.memprof.string()
                               : run.kind == RunKind::simulated ? paths.sim_clock.string()
                                                                : std::string();
  // A program that links its own allocator gets the C library preloaded
  // under the reference, so that glibc's malloc serves it (catalog.h).
  Allocator allocator = run.allocator;
  if (allocator.library.empty() && !run.workload.links_allocator.empty()) allocator.library = c_library_path();
  std::vector<std::string> env = preloaded_environment(allocator, in_front, memprof_options);
  for (const auto& [name, value] : run.workload.env) {  // the program's own (PYTHONMALLOC=malloc) over bench's
    const std::string prefix = name + "=";  // (not the binding itself in the lambda: clang 14, iwyu's, cannot capture one)
    env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
              env.end());
    env.push_back(name + "=" + value);
  }
  // libitm's default changes with the thread count: always say which method.
  if (run.workload.tm && (run.tm == "ml_wt" || run.tm == "gl_wt" || run.tm == "serialirr"))
    env.push_back("ITM_DEFAULT_METHOD=" + run.tm);
  return env;
}

}  // namespace allocstamp
