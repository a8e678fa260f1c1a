// machine.h — the run context for meta.json and the start of a sweep: host,
// CPU, kernel, compiler, git commit, warnings about a noisy machine, and the
// machine's state around each run (load, other processes' CPU time, steal).
#pragma once
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstamp {

nlohmann::json describe_machine(const std::filesystem::path& source_dir);
// Conditions that make timings less trustworthy (CPU frequency scaling, load).
std::vector<std::string> machine_warnings();
// The 1-minute load average (/proc/loadavg); NaN when unknown.
double load_average();

// The aggregate `cpu` line of /proc/stat, in clock ticks.
struct CpuTicks {
  uint64_t busy = 0;   // user, nice, system, irq, softirq: every field but idle, iowait and steal
  uint64_t steal = 0;  // the hypervisor ran another guest
  bool known = false;  // false: /proc/stat could not be read
};
CpuTicks cpu_ticks();
// The ticks of /proc/stat's aggregate line ("cpu  user nice system idle iowait
// irq softirq steal guest guest_nice"); not known for any other line.
CpuTicks cpu_ticks_of(const std::string& line);

// What the rest of the machine did while a run ran, in % of the whole
// machine's time (wall time x cores): CPU time of other processes (the busy
// ticks less the run's own user + system time, within 0..100) and steal. NaN
// (unknown) for a run shorter than 20 ticks of the machine's time.
struct MachineShare {
  double others_cpu_pct = std::numeric_limits<double>::quiet_NaN();
  double steal_pct = std::numeric_limits<double>::quiet_NaN();
};
MachineShare machine_share(const CpuTicks& before, const CpuTicks& after, double run_cpu_seconds, double wall_seconds,
                           unsigned cores, long ticks_per_second);
// machine_share with this machine's cores and tick rate.
MachineShare machine_share(const CpuTicks& before, const CpuTicks& after, double run_cpu_seconds, double wall_seconds);

// Whether a run was measured on a busy machine: other processes used more than
// a quarter of it (on a 2-core VM, one using half a core already shows as 25%,
// and a run's threads then share their cores), or the hypervisor stole more
// than 10% (the VM's neighbours took its CPUs). NaN, unknown, is not busy
// (it compares false). Inline: every reader of runs.csv asks it, the fuzzers too.
inline bool busy_run(double others_cpu_pct, double steal_pct) { return others_cpu_pct > 25 || steal_pct > 10; }

}  // namespace allocstamp
