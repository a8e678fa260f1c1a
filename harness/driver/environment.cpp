// environment.cpp — bench's own environment minus anything that would steer the
// child (LD_PRELOAD, MEMPROF_*, ITM_*), plus the run's preload, memprof options,
// the allocator's extra variables and, for TM workloads, the libitm method.
#include "environment.h"

#include <unistd.h>

namespace allocstamp {

std::vector<std::string> child_arguments(const Run& run, const Options& options) {
  std::vector<std::string> args;
  if (!run.workload.app.empty()) args.push_back(run.workload.app);
  if (!run.workload.contract) {  // someone else's program: its own arguments only
    args.insert(args.end(), run.workload.args.begin(), run.workload.args.end());
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

std::vector<std::string> inherited_tuning() {
  static const char* prefixes[] = {"MALLOC_", "GLIBC_TUNABLES", "MIMALLOC_", "TCMALLOC_", "JEMALLOC_", "TBB_", "LD_"};
  std::vector<std::string> found;
  for (char** e = environ; *e; ++e)
    for (const char* prefix : prefixes)
      if (std::string(*e).rfind(prefix, 0) == 0 && std::string(*e).rfind("LD_PRELOAD=", 0) != 0) found.emplace_back(*e);
  return found;
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

std::vector<std::string> child_environment(const Run& run, const Options& options, const Paths& paths) {
  const bool profiled = run.kind == RunKind::profiled;
  std::vector<std::string> memprof_options;
  if (profiled && options.series) memprof_options.push_back("MEMPROF_SERIES=1");
  if (profiled && options.profile == "counts") memprof_options.push_back("MEMPROF_HEAP=0");
  std::vector<std::string> env =
      preloaded_environment(run.allocator, profiled ? paths.memprof.string() : "", memprof_options);
  // libitm's default changes with the thread count: always say which method.
  if (run.workload.tm && (run.tm == "ml_wt" || run.tm == "gl_wt" || run.tm == "serialirr"))
    env.push_back("ITM_DEFAULT_METHOD=" + run.tm);
  return env;
}

}  // namespace allocstamp
