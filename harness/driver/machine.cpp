// machine.cpp — reads /proc, uname, git and the topology (hwloc: memory, NUMA
// nodes, cores and hardware threads); nothing here is needed for a run to
// succeed, so every reading degrades to an empty value.
#include "machine.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include <hwloc.h>

#include "version.h"

namespace allocstamp {

namespace {

std::string first_line_of(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  if (!p) return "";
  char buf[512] = {0};
  std::string out = fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

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
    out = {{"memory_bytes", uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE))},
           {"numa_nodes", hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE)},
           {"physical_cores", cores},
           {"hardware_threads", pus},
           {"smt", cores > 0 && pus > cores}};
  }
  hwloc_topology_destroy(t);
  return out;
}

}  // namespace

nlohmann::json describe_machine(const std::filesystem::path& source_dir) {
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string quoted = "'" + source_dir.string() + "'";
  std::string kernel = u.sysname;  // appended step by step: GCC 12 warns wrongly on a + b + c here
  kernel.append(" ").append(u.release);
  return {{"host", host},
          {"cpu", cpu_model()},
          {"cores", std::thread::hardware_concurrency()},
          {"kernel", kernel},
          {"compiler", std::string("g++ ") + __VERSION__},
          {"allocstamp_version", kVersion},
          {"git_commit", first_line_of("git -C " + quoted + " rev-parse HEAD 2>/dev/null")},
          {"git_dirty", !first_line_of("git -C " + quoted + " status --porcelain 2>/dev/null").empty()},
          {"transparent_hugepages", transparent_hugepages()},
          {"topology", topology()}};
}

std::vector<std::string> machine_warnings() {
  std::vector<std::string> warnings;
  std::ifstream governor("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string g;
  if (governor >> g && g != "performance")
    warnings.push_back("CPU frequency scaling is '" + g + "': timings vary more (set the governor to performance)");
  double load = 0;
  std::ifstream loadavg("/proc/loadavg");
  if (loadavg >> load && load > 0.5 * std::thread::hardware_concurrency())
    warnings.push_back("the machine is busy (load average " + std::to_string(load).substr(0, 4) + "): timings will be noisy");
  return warnings;
}

// Other processes using a quarter of the machine (half a core on this 2-core
// VM) take CPU time and caches from the run; a hypervisor stealing a tenth
// slows every thread alike.
bool busy_run(double others_cpu_pct, double steal_pct) { return others_cpu_pct > 25 || steal_pct > 10; }

}  // namespace allocstamp
