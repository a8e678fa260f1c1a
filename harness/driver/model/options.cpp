// options.cpp — a sweep's options as meta.json saves them (--resume reads
// them back), and whether they ask for profiled runs.
#include "model/options.h"

namespace allocstamp {

bool Options::profiled() const {
  for (int t : threads)
    if (profiled_runs(t) > 0) return true;
  return false;
}

void to_json(nlohmann::json& j, const Options& o) {
  j = nlohmann::json{{"alloc", o.allocators}, {"workload", o.workloads}, {"threads", o.threads},
                     {"size", o.size},        {"reps", o.reps},           {"profile_reps", o.profile_reps}, {"tm", o.tm},
                     {"timeout", o.timeout_seconds}, {"profile", o.profile}, {"series", o.series},
                     {"callsites", o.callsites}, {"shard", o.shard}, {"shuffle", o.shuffle},  {"seed", o.seed},           {"registry", o.registries},
                     {"workloads_file", o.workload_files}, {"preset", o.preset},
                     {"sizes", o.workload_sizes}, {"args", o.workload_args},
                     {"no_plot", o.no_plot}, {"precision", o.precision}, {"max_reps", o.max_reps},
                     {"budget", o.budget_minutes}, {"simulate", o.simulate}, {"simulate_reps", o.simulate_reps},
                     {"simulate_threads", o.simulate_threads}, {"simulate_workloads", o.simulate_workloads}};
}

void from_json(const nlohmann::json& j, Options& o) {
  o.allocators = j.at("alloc").get<std::vector<std::string>>();
  o.workloads = j.at("workload").get<std::vector<std::string>>();
  o.threads = j.at("threads").get<std::vector<int>>();
  o.size = j.at("size").get<std::string>();
  o.reps = j.at("reps").get<int>();
  o.profile_reps = j.value("profile_reps", -1);
  o.tm = j.at("tm").get<std::string>();
  o.timeout_seconds = j.at("timeout").get<double>();
  // Folders written before `profile` existed say no_profile.
  o.profile = j.value("profile", j.value("no_profile", false) ? std::string("none") : std::string("full"));
  if (!j.contains("profile_reps")) {
    // Folders written before timed and profiled runs were told apart (schema
    // 1 and 2): every run was of one kind, profiled unless profile was none.
    if (o.profile == "none") o.profile_reps = 0;
    else o.profile_reps = o.reps, o.reps = 0;
  }
  if (o.profile == "none") o.profile = "full", o.profile_reps = 0;
  o.series = j.at("series").get<bool>();
  o.callsites = j.value("callsites", std::string());
  o.shard = j.value("shard", std::string());
  o.shuffle = j.at("shuffle").get<bool>();
  o.seed = j.at("seed").get<unsigned>();
  o.registries = j.value("registry", std::vector<std::string>{});
  o.workload_files = j.value("workloads_file", std::vector<std::string>{});
  o.preset = j.value("preset", std::string());
  o.workload_sizes = j.value("sizes", std::map<std::string, std::string>{});
  o.simulate = j.value("simulate", false);
  o.simulate_reps = j.value("simulate_reps", -1);
  o.simulate_threads = j.value("simulate_threads", std::vector<int>{});
  o.simulate_workloads = j.value("simulate_workloads", std::vector<std::string>{});
  o.workload_args = j.value("args", std::map<std::string, std::vector<std::string>>{});
  o.no_plot = j.value("no_plot", false);
  o.precision = j.value("precision", 0.0);
  o.max_reps = j.value("max_reps", 30);
  o.budget_minutes = j.value("budget", 0.0);
}

}  // namespace allocstamp
