// options.cpp — a sweep's options as meta.json saves them (--resume reads
// them back), and whether they ask for profiled runs.
#include "model/options.h"

#include "meta_names.h"

namespace allocstamp {

bool Options::profiled() const {
  for (int t : threads)
    if (profiled_runs(t) > 0) return true;
  return false;
}

void to_json(nlohmann::json& j, const Options& o) {
  j = nlohmann::json{{meta::option_alloc, o.allocators},
                     {meta::option_workload, o.workloads},
                     {meta::option_threads, o.threads},
                     {meta::option_size, o.size},
                     {meta::option_reps, o.reps},
                     {meta::option_profile_reps, o.profile_reps},
                     {meta::option_tm, o.tm},
                     {meta::option_timeout, o.timeout_seconds},
                     {meta::option_profile, o.profile},
                     {meta::option_series, o.series},
                     {meta::option_callsites, o.callsites},
                     {meta::option_shard, o.shard},
                     {meta::option_shuffle, o.shuffle},
                     {meta::option_seed, o.seed},
                     {meta::option_registry, o.registries},
                     {meta::option_workloads_file, o.workload_files},
                     {meta::option_preset, o.preset},
                     {meta::option_sizes, o.workload_sizes},
                     {meta::option_args, o.workload_args},
                     {meta::option_no_plot, o.no_plot},
                     {meta::option_precision, o.precision},
                     {meta::option_max_reps, o.max_reps},
                     {meta::option_budget, o.budget_minutes},
                     {meta::option_simulate, o.simulate},
                     {meta::option_simulate_reps, o.simulate_reps},
                     {meta::option_simulate_threads, o.simulate_threads},
                     {meta::option_simulate_workloads, o.simulate_workloads}};
}

void from_json(const nlohmann::json& j, Options& o) {
  o.allocators = j.at(meta::option_alloc).get<std::vector<std::string>>();
  o.workloads = j.at(meta::option_workload).get<std::vector<std::string>>();
  o.threads = j.at(meta::option_threads).get<std::vector<int>>();
  o.size = j.at(meta::option_size).get<std::string>();
  o.reps = j.at(meta::option_reps).get<int>();
  o.profile_reps = j.value(meta::option_profile_reps, -1);
  o.tm = j.at(meta::option_tm).get<std::string>();
  o.timeout_seconds = j.at(meta::option_timeout).get<double>();
  // Folders written before `profile` existed say no_profile.
  o.profile = j.value(meta::option_profile,
                      j.value(meta::option_no_profile, false) ? std::string("none") : std::string("full"));
  if (!j.contains(meta::option_profile_reps)) {
    // Folders written before timed and profiled runs were told apart (schema
    // 1 and 2): every run was of one kind, profiled unless profile was none.
    if (o.profile == "none") o.profile_reps = 0;
    else o.profile_reps = o.reps, o.reps = 0;
  }
  if (o.profile == "none") o.profile = "full", o.profile_reps = 0;
  o.series = j.at(meta::option_series).get<bool>();
  o.callsites = j.value(meta::option_callsites, std::string());
  o.shard = j.value(meta::option_shard, std::string());
  o.shuffle = j.at(meta::option_shuffle).get<bool>();
  o.seed = j.at(meta::option_seed).get<unsigned>();
  o.registries = j.value(meta::option_registry, std::vector<std::string>{});
  o.workload_files = j.value(meta::option_workloads_file, std::vector<std::string>{});
  o.preset = j.value(meta::option_preset, std::string());
  o.workload_sizes = j.value(meta::option_sizes, std::map<std::string, std::string>{});
  o.simulate = j.value(meta::option_simulate, false);
  o.simulate_reps = j.value(meta::option_simulate_reps, -1);
  o.simulate_threads = j.value(meta::option_simulate_threads, std::vector<int>{});
  o.simulate_workloads = j.value(meta::option_simulate_workloads, std::vector<std::string>{});
  o.workload_args = j.value(meta::option_args, std::map<std::string, std::vector<std::string>>{});
  o.no_plot = j.value(meta::option_no_plot, false);
  o.precision = j.value(meta::option_precision, 0.0);
  o.max_reps = j.value(meta::option_max_reps, 30);
  o.budget_minutes = j.value(meta::option_budget, 0.0);
}

}  // namespace allocstamp
