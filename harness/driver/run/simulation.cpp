// simulation.cpp — valgrind found and asked once per sweep, a simulated run's
// command line.
#include "run/simulation.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "model/errors.h"

namespace allocstamp {

namespace fs = std::filesystem;

const char* const kSimulatedCaches[3] = {"--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"};

namespace {

// A command's stdout and stderr together, and its exit status.
std::pair<std::string, int> output_of(const std::string& command) {
  std::string text;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return {"", -1};
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = pclose(p);
  return {text, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

std::string find_valgrind() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && access((dir + "/valgrind").c_str(), X_OK) == 0) return dir + "/valgrind";
  }
  return access("/usr/bin/valgrind", X_OK) == 0 ? "/usr/bin/valgrind" : "";
}

}  // namespace

std::string Simulator::identity() const {
  std::string caches;
  for (const char* c : kSimulatedCaches) caches += std::string(caches.empty() ? "" : " ") + (c + 2);
  return version + " callgrind; guest " + hwcaps + "; " + caches + "; virtual clock 1us/call, fixed random bytes; environment padded to 16 KiB";
}

Simulator find_simulator() {
  Simulator sim;
  sim.valgrind = find_valgrind();
  if (sim.valgrind.empty())
    throw UsageError("--simulate needs valgrind, which is not installed",
                     "apt-get install valgrind (scripts/install-deps installs it), or leave out --simulate");
  auto [version, rc] = output_of("'" + sim.valgrind + "' --version");
  if (rc != 0 || version.rfind("valgrind-", 0) != 0)
    throw UsageError(sim.valgrind + " --version did not answer (" + version.substr(0, 200) + ")",
                     "reinstall valgrind (apt-get install --reinstall valgrind)");
  sim.version = version.substr(0, version.find_first_of("\r\n"));
  // -v prints "Arch and hwcaps: AMD64, LittleEndian, amd64-cx16-lzcnt-...".
  auto [verbose, vrc] = output_of("'" + sim.valgrind + "' -v --tool=none /bin/true");
  const std::string marker = "Arch and hwcaps: ";
  const auto at = verbose.find(marker);
  if (vrc != 0 || at == std::string::npos)
    throw UsageError("valgrind could not run /bin/true here (" + verbose.substr(0, 300) + ")",
                     "check that valgrind works: valgrind /bin/true");
  std::string line = verbose.substr(at + marker.size());
  line = line.substr(0, line.find_first_of("\r\n"));
  sim.hwcaps = line.substr(line.rfind(' ') + 1);  // "amd64-cx16-lzcnt-..."
  return sim;
}

std::vector<std::string> simulated_arguments(const std::string& out_file, bool whole_process,
                                             const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> out = {"--tool=callgrind",
                                  "--cache-sim=yes",
                                  std::string("--instr-atstart=") + (whole_process ? "yes" : "no"),
                                  // one thread at a time, handed round-robin (a ticket lock): the
                                  // interleaving depends less on the host's scheduler
                                  "--fair-sched=yes",
                                  "--callgrind-out-file=" + out_file};
  for (const char* c : kSimulatedCaches) out.emplace_back(c);
  out.push_back(program);
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

std::string simulated_padding(const std::vector<std::string>& env, const std::string& program,
                              const std::vector<std::string>& args) {
  const std::string name = "ALLOCSTAMP_SIM_PAD=";
  std::size_t size = 2 * (program.size() + 1) + name.size() + 1;
  for (const std::string& e : env) size += e.size() + 1;
  for (const std::string& a : args) size += a.size() + 1;
  constexpr std::size_t kTarget = 16384, kStep = 4096;  // past the target: the next 4 KiB
  const std::size_t target = size <= kTarget ? kTarget : (size + kStep - 1) / kStep * kStep;
  return name + std::string(target - size, 'x');
}

}  // namespace allocstamp
