// simulation.h — a simulated run (the third run kind): the workload under
// valgrind's callgrind with the allocator alone preloaded, instrumentation off
// until the workload's measured phase begins (the phase marks of memprof.h
// carry callgrind's client requests), the simulated caches pinned rather than
// read off the host, and the program's clock virtual (libsim_clock.so,
// preloaded in front of the allocator: one microsecond per call). What it leaves: the sim_* keys of keys.def
// (run/callgrind_output.h reads them).
#pragma once
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
  // The runs.csv `sim_setup` value: version, hwcaps, the pinned caches and
  // what the program sees fixed (clock, random bytes, environment's size).
  std::string identity() const;
};

// The simulated caches, the same on every host (callgrind would otherwise read
// the host's): 32 KiB 8-way first-level caches and an 8 MiB 16-way last level,
// 64-byte lines.
extern const char* const kSimulatedCaches[3];

// A simulated run may take this many times --timeout (valgrind's slowdown).
inline constexpr double kSimulatedTimeoutFactor = 20;

// Finds valgrind (PATH, then /usr/bin) and asks it what it simulates. Throws
// UsageError when it is missing or does not run.
Simulator find_simulator();

// The command line of a simulated run after valgrind itself: its options, then `program`
// and `args`. `whole_process`: count from the start (a program that marks no
// measured phase: not a bench workload); else only the measured phase.
std::vector<std::string> simulated_arguments(const std::string& out_file, bool whole_process,
                                             const std::string& program, const std::vector<std::string>& args);

// A variable that pads the program's environment, arguments and path (twice:
// argv[0] and the auxiliary vector's file name) to a fixed size: they sit
// above the stack, so their size moves every stack address, and with it the
// simulated first-level misses (intruder under jemalloc: 60,093 to 61,626
// with 0 to 1,000 more bytes of environment, the instructions the same).
// Padded, a run's stack starts where it does on another machine.
std::string simulated_padding(const std::vector<std::string>& env, const std::string& program,
                              const std::vector<std::string>& args);

}  // namespace allocstamp
