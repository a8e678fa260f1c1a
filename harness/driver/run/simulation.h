// simulation.h — a simulated run (the third run kind): the workload under
// valgrind's callgrind with the allocator alone preloaded, instrumentation off
// until the workload's measured phase begins (the phase marks of memprof.h
// carry callgrind's client requests), the simulated caches pinned rather than
// read off the host, and the program's clock virtual (libsim_clock.so,
// preloaded in front of the allocator: one microsecond per call). What it leaves: the sim_* keys of keys.def
// (run/callgrind_output.h reads them).
//
// Nothing outside bench steers valgrind: it takes its options from its command
// line only (--command-line-only=yes: no ~/.valgrindrc, ./.valgrindrc or
// VALGRIND_OPTS), no VALGRIND_* variable reaches it, and it writes its output
// into a private folder of bench's own, from which bench moves the file into the
// results folder (no link there followed, nothing but a regular file taken).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace allocstamp {

// valgrind as this machine has it, and what a simulated program sees under it.
struct Simulator {
  std::string valgrind;  // the program's path
  std::string version;   // "valgrind-3.19.0"
  // valgrind's "Arch and hwcaps" of this host: it chooses the CPUID the
  // program sees (valgrind shows a fixed Intel model per level: the same on an
  // Intel Xeon and an AMD EPYC host with AVX2), so glibc's string routines too.
  std::string hwcaps;
  // The runs.csv `sim_setup` value: version, hwcaps, valgrind's exact command
  // line (the pinned caches among its options) and what the program sees fixed
  // (clock, random bytes, environment's size).
  std::string identity() const;
};

// The simulated caches, the same on every host (callgrind would otherwise read
// the host's): 32 KiB 8-way first-level caches and an 8 MiB 16-way last level,
// 64-byte lines.
extern const char* const kSimulatedCaches[3];

// A simulated run may take this many times --timeout (valgrind's slowdown).
inline constexpr double kSimulatedTimeoutFactor = 20;

// Finds valgrind (PATH, then /usr/bin) and asks it what it simulates, each
// question under the controls of a simulated run and within `limit_seconds`
// (its process group killed past it). Throws UsageError when it is missing,
// does not run or does not answer in time.
Simulator find_simulator(double limit_seconds);

// How long the probe may take for a sweep's --timeout: a simulated run's
// limit, at most two minutes (valgrind runs /bin/true in about a second).
double simulator_probe_limit(double timeout_seconds);

// The command line of a simulated run after valgrind itself: its options, then `program`
// and `args`. `whole_process`: count from the start (a program that marks no
// measured phase: not a bench workload); else only the measured phase.
// `out_file` is passed as valgrind reads a file name (valgrind_file_name).
std::vector<std::string> simulated_arguments(const std::string& out_file, bool whole_process,
                                             const std::string& program, const std::vector<std::string>& args);

// `env` without the variables valgrind itself reads (VALGRIND_OPTS,
// VALGRIND_LIB, ...: every VALGRIND_*): they would change what it simulates.
std::vector<std::string> without_valgrind_variables(std::vector<std::string> env);

// A variable that pads the program's environment, arguments and path (twice:
// argv[0] and the auxiliary vector's file name) to a fixed size: they sit
// above the stack, so their size moves every stack address, and with it the
// simulated first-level misses (intruder under jemalloc: 60,093 to 61,626
// with 0 to 1,000 more bytes of environment, the instructions the same).
// Padded, a run's stack starts where it does on another machine.
std::string simulated_padding(const std::vector<std::string>& env, const std::string& program,
                              const std::vector<std::string>& args);

// A fresh folder of bench's own for valgrind's output (mkdtemp under the
// temporary folder, mode 0700), removed with the object: no link, FIFO or
// device planted in a results folder is written through or read, a `%` of
// --out never reaches valgrind, and a writer that outlives its run finds no
// results folder to write into. Throws RunError when it cannot be made.
class PrivateFolder {
 public:
  PrivateFolder();
  ~PrivateFolder();
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Moves callgrind's output `written` (in a PrivateFolder, its writers gone)
// into `folder` as `name`: taken only when it is a regular file (opened
// without following a link or waiting on a FIFO), written to a fresh file
// and renamed into place, `folder` entered only when it is a real folder. ""
// when done, else why not (the run's failure).
std::string keep_simulation_output(const std::filesystem::path& written, const std::filesystem::path& folder,
                                   const std::string& name);

}  // namespace allocstamp
