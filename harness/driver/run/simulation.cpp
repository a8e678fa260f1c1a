// simulation.cpp — valgrind found and asked once per sweep, a simulated run's
// command line and environment, its private output folder and the move of its
// output into the results folder.
#include "run/simulation.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "model/errors.h"
#include "model/input_file.h"
#include "run/executor.h"

extern char** environ;

namespace allocstamp {

namespace fs = std::filesystem;

const char* const kSimulatedCaches[3] = {"--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"};

namespace {

// What valgrind's file-name options make of a path: %p, %n and %q{VAR} are
// expanded, %% is a %.
std::string valgrind_file_name(const std::string& path) {
  std::string out;
  for (char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
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

// valgrind run as a simulated run is (its own options only, no VALGRIND_*
// variable, its process group killed with it), at most `limit_seconds`: its
// standard output and error together.
std::string ask_valgrind(const std::string& valgrind, const std::vector<std::string>& args, double limit_seconds) {
  PrivateFolder folder;
  Launch launch;
  launch.program = valgrind;
  launch.args = {"--command-line-only=yes"};
  launch.args.insert(launch.args.end(), args.begin(), args.end());
  for (char** e = environ; *e; ++e) launch.env.emplace_back(*e);
  launch.env = without_valgrind_variables(launch.env);
  launch.log_path = (folder.path() / "answer.log").string();
  launch.timeout_seconds = limit_seconds;
  ProcessExecutor executor;
  const Finished f = executor.run(launch);
  std::string command = valgrind;
  for (const std::string& a : launch.args) command += " " + a;
  if (f.start_failed) throw UsageError("cannot start " + valgrind + ": " + f.error, "reinstall valgrind (apt-get install --reinstall valgrind)");
  if (f.timed_out)
    throw UsageError(command + " did not answer within " + std::to_string(int(limit_seconds)) + " s (stopped)",
                     "check that valgrind works: valgrind /bin/true");
  if (f.interrupted) throw RunError("interrupted while asking valgrind what it simulates", "run the sweep again");
  const std::string text = read_input_file(launch.log_path, std::size_t(1) << 20);
  if (status_of(f) != Status::ok)
    throw UsageError(command + " failed (" + text.substr(0, 300) + ")", "check that valgrind works: valgrind /bin/true");
  return text;
}

}  // namespace

std::string Simulator::identity() const {
  std::string command = "valgrind";
  for (const std::string& a : simulated_arguments("<private folder>/callgrind.out", false, "<program>", {}))
    command += " " + a;
  return version + "; guest " + hwcaps + "; " + command +
         " (--instr-atstart=yes for a program that marks no measured phase); no VALGRIND_* variable; virtual clock "
         "1us/call, fixed random bytes; environment padded to 16 KiB";
}

double simulator_probe_limit(double timeout_seconds) {
  return std::min(120.0, timeout_seconds * kSimulatedTimeoutFactor);
}

Simulator find_simulator(double limit_seconds) {
  Simulator sim;
  sim.valgrind = find_valgrind();
  if (sim.valgrind.empty())
    throw UsageError("--simulate needs valgrind, which is not installed",
                     "apt-get install valgrind (scripts/install-deps installs it), or leave out --simulate");
  std::string ignored;
  for (char** e = environ; *e; ++e)
    if (const std::string entry = *e; entry.rfind("VALGRIND_", 0) == 0)
      ignored += (ignored.empty() ? "" : ", ") + entry.substr(0, entry.find('='));
  if (!ignored.empty())
    std::cerr << "warning: " << ignored << " not passed to valgrind: simulated runs take bench's options only "
              << "(and no .valgrindrc), so that their figures are those of sim_setup\n";
  const std::string version = ask_valgrind(sim.valgrind, {"--version"}, limit_seconds);
  if (version.rfind("valgrind-", 0) != 0)
    throw UsageError(sim.valgrind + " --version did not answer (" + version.substr(0, 200) + ")",
                     "reinstall valgrind (apt-get install --reinstall valgrind)");
  sim.version = version.substr(0, version.find_first_of("\r\n"));
  // -v prints "Arch and hwcaps: AMD64, LittleEndian, amd64-cx16-lzcnt-...".
  const std::string verbose = ask_valgrind(sim.valgrind, {"-v", "--tool=none", "/bin/true"}, limit_seconds);
  const std::string marker = "Arch and hwcaps: ";
  const auto at = verbose.find(marker);
  if (at == std::string::npos)
    throw UsageError("valgrind could not run /bin/true here (" + verbose.substr(0, 300) + ")",
                     "check that valgrind works: valgrind /bin/true");
  std::string line = verbose.substr(at + marker.size());
  line = line.substr(0, line.find_first_of("\r\n"));
  sim.hwcaps = line.substr(line.rfind(' ') + 1);  // "amd64-cx16-lzcnt-..."
  return sim;
}

std::vector<std::string> simulated_arguments(const std::string& out_file, bool whole_process,
                                             const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> out = {// no ~/.valgrindrc, VALGRIND_OPTS or ./.valgrindrc: what is
                                  // simulated is what sim_setup says
                                  "--command-line-only=yes",
                                  "--tool=callgrind",
                                  "--cache-sim=yes",
                                  std::string("--instr-atstart=") + (whole_process ? "yes" : "no"),
                                  // one thread at a time, handed round-robin (a ticket lock): the
                                  // interleaving depends less on the host's scheduler
                                  "--fair-sched=yes",
                                  "--callgrind-out-file=" + valgrind_file_name(out_file)};
  for (const char* c : kSimulatedCaches) out.emplace_back(c);
  out.push_back(program);
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

std::vector<std::string> without_valgrind_variables(std::vector<std::string> env) {
  env.erase(std::remove_if(env.begin(), env.end(), [](const std::string& e) { return e.rfind("VALGRIND_", 0) == 0; }),
            env.end());
  return env;
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

PrivateFolder::PrivateFolder() {
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / "allocstamp-sim-XXXXXX").string();
  if (ec || !::mkdtemp(pattern.data()))  // mode 0700
    throw RunError("cannot make a private folder for valgrind's output (" + pattern + ": " + std::strerror(errno) + ")",
                   "set TMPDIR to a writable folder");
  path_ = pattern;
}

PrivateFolder::~PrivateFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);  // removes links inside, never what they point to
}

std::string keep_simulation_output(const fs::path& written, const fs::path& folder, const std::string& name) {
  const int in = ::open(written.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) {
    const int error = errno;  // ELOOP: a link
    return error == ENOENT ? "valgrind wrote no callgrind output: see the log"
                           : "valgrind's output " + written.string() + " cannot be read (" + std::strerror(error) +
                                 "): not a file valgrind wrote";
  }
  struct stat st {};
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(in);
    return "valgrind's output " + written.string() + " is not a regular file (a FIFO, a device?): not a file valgrind wrote";
  }
  const std::string target = (folder / name).string();
  ::mkdir(folder.c_str(), 0755);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    const int error = errno;
    ::close(in);
    return folder.string() + " is not a folder bench made (a link or a file: " + std::strerror(error) +
           "); remove it and run with --resume --redo-failed";
  }
  // A fresh file (O_EXCL: a link planted at its name is refused, not opened),
  // renamed over the target: a link there is replaced, never written through.
  const std::string part = name + ".part";
  ::unlinkat(dir, part.c_str(), 0);
  const int out = ::openat(dir, part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  int error = out < 0 ? errno : 0;
  char buffer[65536];
  while (error == 0) {
    const ssize_t got = ::read(in, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      error = got == 0 ? 0 : errno;
      break;
    }
    for (ssize_t done = 0; error == 0 && done < got;) {
      const ssize_t n = ::write(out, buffer + done, std::size_t(got - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error = n < 0 ? errno : ENOSPC;
      else done += n;
    }
  }
  ::close(in);
  if (out >= 0 && ::close(out) != 0 && error == 0) error = errno;
  if (error == 0 && ::renameat(dir, part.c_str(), dir, name.c_str()) != 0) error = errno;
  if (error != 0) ::unlinkat(dir, part.c_str(), 0);
  ::close(dir);
  return error == 0 ? "" : "cannot write " + target + " (" + std::strerror(error) + "): check that the folder is writable";
}

}  // namespace allocstamp
