// machine.cpp — reads /proc, uname, git and the topology (hwloc: memory, NUMA
// nodes, cores and hardware threads); nothing here is needed for a run to
// succeed, so every reading degrades to an empty value.
#include "run/machine.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include <hwloc.h>

#include "model/program_output.h"
#include "model/version.h"
#include "meta_names.h"

namespace allocstamp {

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "";
}

// The bracketed choice of /sys/kernel/mm/transparent_hugepage/enabled
// ("always [madvise] never" -> "madvise"); "" when unknown.
std::string transparent_hugepages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// NUMA nodes, physical cores and hardware threads from hwloc; memory as the
// kernel counts it (sysconf: MemTotal). hwloc sums the NUMA nodes' own
// counts, which on this VM see a quarter of it (memory added after boot).
nlohmann::json topology() {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return nlohmann::json::object();
  nlohmann::json out = nlohmann::json::object();
  if (hwloc_topology_load(t) == 0) {
    const int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE), pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    out = {{meta::topology_memory_bytes, uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE))},
           {meta::topology_numa_nodes, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE)},
           {meta::topology_physical_cores, cores},
           {meta::topology_hardware_threads, pus},
           {meta::topology_smt, cores > 0 && pus > cores}};
  }
  hwloc_topology_destroy(t);
  return out;
}

// What bench itself leaves in a source folder: a trace (`bench trace record`'s
// NAME.astrace, the replay's plan NAME.astrace.plan.<digest> and its workload
// file NAME.astrace.plan.<digest>.<digest>.json), or a file of a results
// folder (one with a meta.json that bench wrote) — not a change to the source.
bool written_by_bench(const std::filesystem::path& source_dir, const std::string& untracked) {
  auto ends = [&](const std::string& tail) {
    return untracked.size() >= tail.size() && untracked.compare(untracked.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends(".astrace") || untracked.find(".astrace.plan.") != std::string::npos) return true;
  for (std::filesystem::path dir = std::filesystem::path(untracked).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    std::ifstream meta(source_dir / dir / "meta.json");
    std::string head(4096, '\0');
    meta.read(head.data(), std::streamsize(head.size()));
    if (head.find("\"" + std::string(meta::machine_allocstamp_version) + "\"") != std::string::npos) return true;
  }
  return false;
}

// Changes to tracked files (git diff exits 1) or files git does not track
// yet, but for those bench wrote itself.
bool git_dirty(const std::filesystem::path& source_dir) {
  const std::string dir = source_dir.string();
  if (program_output({"git", "-C", dir, "diff", "--quiet", "HEAD", "--"}).status == 1) return true;
  std::istringstream untracked(program_output({"git", "-C", dir, "ls-files", "-z", "--others", "--exclude-standard"}).out);
  for (std::string file; std::getline(untracked, file, '\0');)
    if (!file.empty() && !written_by_bench(source_dir, file)) return true;
  return false;
}

}  // namespace

nlohmann::json describe_machine(const std::filesystem::path& source_dir) {
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string kernel = u.sysname;  // appended step by step: GCC 12 warns wrongly on a + b + c here
  kernel.append(" ").append(u.release);
  return {{meta::machine_host, host},
          {meta::machine_cpu, cpu_model()},
          {meta::machine_cores, std::thread::hardware_concurrency()},
          {meta::machine_kernel, kernel},
          {meta::machine_compiler, std::string("g++ ") + __VERSION__},
          {meta::machine_allocstamp_version, kVersion},
          // git with an argument vector: the source folder's name is never read by a shell.
          {meta::machine_git_commit,
           first_line(program_output({"git", "-C", source_dir.string(), "rev-parse", "HEAD"}).out)},
          {meta::machine_git_dirty, git_dirty(source_dir)},
          {meta::machine_transparent_hugepages, transparent_hugepages()},
          {meta::machine_topology, topology()}};
}

double load_average() {
  double load = std::numeric_limits<double>::quiet_NaN();
  std::ifstream loadavg("/proc/loadavg");
  if (!(loadavg >> load)) return std::numeric_limits<double>::quiet_NaN();
  return load;
}

CpuTicks cpu_ticks() {
  std::ifstream stat("/proc/stat");
  std::string line;
  if (!std::getline(stat, line)) return CpuTicks{};
  return cpu_ticks_of(line);
}

CpuTicks cpu_ticks_of(const std::string& line) {
  CpuTicks t;
  if (line.rfind("cpu ", 0) != 0) return t;
  std::istringstream fields(line.substr(4));
  // user nice system idle iowait irq softirq steal (guest and guest_nice
  // follow, already counted in user and nice: left out).
  uint64_t v[8] = {};
  int n = 0;
  while (n < 8 && fields >> v[n]) ++n;
  if (n < 4) return t;
  t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
  t.steal = v[7];
  t.known = true;
  return t;
}

MachineShare machine_share(const CpuTicks& before, const CpuTicks& after, double run_cpu_seconds, double wall_seconds,
                           unsigned cores, long ticks_per_second) {
  MachineShare share;
  if (!before.known || !after.known || cores == 0 || ticks_per_second <= 0) return share;
  const double machine_seconds = wall_seconds * cores, tick = 1.0 / double(ticks_per_second);
  // The kernel counts in ticks (10 ms at 100 Hz): over less than 20 ticks of
  // the machine's time, one tick more or less is more than 5%, so a short
  // run's share is unknown rather than noise.
  if (!(machine_seconds >= 20 * tick)) return share;
  const double busy = double(after.busy - std::min(before.busy, after.busy)) * tick;
  const double steal = double(after.steal - std::min(before.steal, after.steal)) * tick;
  share.others_cpu_pct = std::clamp(100.0 * (busy - run_cpu_seconds) / machine_seconds, 0.0, 100.0);
  share.steal_pct = std::min(100.0, 100.0 * steal / machine_seconds);
  return share;
}

MachineShare machine_share(const CpuTicks& before, const CpuTicks& after, double run_cpu_seconds, double wall_seconds) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return machine_share(before, after, run_cpu_seconds, wall_seconds, online > 0 ? unsigned(online) : 0u,
                       sysconf(_SC_CLK_TCK));
}

std::vector<std::string> machine_warnings() {
  std::vector<std::string> warnings;
  std::ifstream governor("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string g;
  if (governor >> g && g != "performance")
    warnings.push_back("CPU frequency scaling is '" + g + "': timings vary more (set the governor to performance)");
  const double load = load_average();
  if (load > 0.5 * std::thread::hardware_concurrency())
    warnings.push_back("the machine is busy (load average " + std::to_string(load).substr(0, 4) + "): timings will be noisy");
  return warnings;
}


}  // namespace allocstamp
