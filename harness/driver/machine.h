// machine.h — the run context for meta.json and the start of a sweep: host,
// CPU, kernel, compiler, git commit, and warnings about a noisy machine.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstamp {

nlohmann::json describe_machine(const std::filesystem::path& source_dir);
// Conditions that make timings less trustworthy (CPU frequency scaling, load).
std::vector<std::string> machine_warnings();
// Whether a run was measured on a busy machine, from runs.csv's others_cpu_pct
// and steal_pct (NaN: not measured, not busy).
bool busy_run(double others_cpu_pct, double steal_pct);

}  // namespace allocstamp
