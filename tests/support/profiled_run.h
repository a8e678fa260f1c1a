// profiled_run.h — runs a program the way the driver will (fork + exec with
// LD_PRELOAD=libmemprof.so:<allocator>, MEMPROF_OUT to a file) and parses the
// record lines it leaves, for tests that assert exact figures.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace allocstamp::testing {

struct TestAllocator {
  std::string name;
  std::string library;  // empty: glibc, nothing preloaded
  std::string id;       // the name as a test name takes it (tcmalloc-full: tcmalloc_full, jemalloc:bg: jemalloc_bg)
  std::string base;     // the allocator it is: its own name, or a variant's base
  std::vector<std::pair<std::string, std::string>> env;  // the entry's settings (a variant's)
};

// gtest prints a parameter with this (instead of its bytes).
inline void PrintTo(const TestAllocator& allocator, std::ostream* os) { *os << allocator.name; }

// The allocators the tests must pass under: every entry of allocators/allocators.json,
// the variants among them (each runs with its settings).
const std::vector<TestAllocator>& test_allocators();
bool installed(const TestAllocator& allocator);
// The apps of workloads/workloads.json's entries run by build/<binary> (e.g.
// "bin/stress"), each once, in the file's order: the tests' list of a binary's programs.
std::vector<std::string> registry_apps(const std::string& binary);
// The apps a binary that holds several (stress, stamp) says it knows: the
// names of its usage line, `<program> <a|b|...>`, printed when run with no
// app; empty when it prints none. Compared with registry_apps, a registration
// missing on either side shows.
std::vector<std::string> binary_apps(const std::string& path);
// Whether a test may run under `allocator`. When not, it says why as gtest
// would: a failure when the allocator is missing (a skip with
// ALLOCSTAMP_ALLOW_MISSING_ALLOCATORS set). The caller then returns.
bool runnable(const TestAllocator& allocator);

using Record = std::map<std::string, std::string>;

struct RunResult {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
  std::vector<std::pair<std::string, Record>> records;  // kind, keys

  // Keys of all "@memprof" records merged (continuation lines included).
  Record memprof() const;
  // A numeric key of the merged @memprof record; aborts the test if absent.
  int64_t num(const std::string& key) const;
  // The value of "@metric <name>=<v>".
  int64_t metric(const std::string& name) const;
  std::string describe() const;  // exit status and stderr, for failure messages
};

struct RunOptions {
  bool profile = true;
  std::vector<std::pair<std::string, std::string>> env;
  int timeout_seconds = 120;
};

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const TestAllocator& allocator, const RunOptions& options = {});

std::string memprof_library();  // path of the built libmemprof.so
std::string target(const std::string& name);  // path of a test target program

}  // namespace allocstamp::testing
