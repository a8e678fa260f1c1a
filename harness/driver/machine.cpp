// machine.cpp — reads /proc, uname and git; nothing here is needed for a run
// to succeed, so every reading degrades to an empty value.
#include "machine.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

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
          {"git_dirty", !first_line_of("git -C " + quoted + " status --porcelain 2>/dev/null").empty()}};
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

}  // namespace allocstamp
