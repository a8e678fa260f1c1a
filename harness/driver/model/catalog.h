// catalog.h — what bench can run: the allocators and workloads of the
// registries (cli/registry.h reads them), the catalog of both, and where the
// build and the sources are. Every stage takes these types; none parses them.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace allocstamp {

// An entry is an allocator, or a variant of one: BASE:VARIANT, the base's
// library with more settings (environment variables) on top of its own.
struct Allocator {
  std::string name;
  std::string base;                     // a variant's base entry; empty for an allocator
  std::map<std::string, std::string> settings;  // a variant's own variables (also in env)
  std::string description;
  std::string package;                  // the Debian package that provides it
  std::vector<std::string> candidates;  // library paths, first existing wins
  std::map<std::string, std::string> env;
  std::string library;                  // resolved; empty for glibc
  bool installed = false;
  // Why its simulated runs cannot be made (the entry's "no_simulation"; a
  // variant takes its base's); empty: they can. bench records them skipped.
  std::string no_simulation;
};

// How to make an allocator that is not installed available: its Debian
// package (scripts/install-deps installs every one of the registry's), or, for
// an entry without one (a user's registry), its library where the entry says.
std::string install_hint(const Allocator& a);

struct Workload {
  std::string name;
  std::string family;
  std::string binary;  // relative to the build folder
  std::string app;     // first argument; empty for none
  std::vector<std::string> args;
  bool tm = false;     // transactional: receives --tm
  bool contract = true;  // takes Contract 3's --threads, --size, --seed; false: a foreign program gets its args only
  // It marks its measured phase (memprof::phase_begin/phase_end, which start
  // and stop callgrind's instrumentation): a simulated run counts that phase
  // only; else (a program that marks none) the whole process. Every contract
  // program does; someone else's program only when its entry says
  // "marks_phase": true (the trace replay's).
  bool marks_phase = true;
  // "work": "per-thread" — each thread does the whole work (churn, intset, the
  // stress programs): its ideal time is flat in the thread count, not 1/N.
  bool work_per_thread = false;
  std::string description;
  // Someone else's program (contract false) may take more, each from its entry:
  std::string package;                        // the Debian package that provides it (its version is recorded)
  std::map<std::string, std::string> env;     // variables it runs with (PYTHONMALLOC=malloc), never the harness's
  std::map<std::string, std::vector<std::string>> size_args;  // arguments after `args`, by --size
  // An input the project generates (run/inputs.h): `input_generator` (under the
  // sources) writes it for a size and seed; `{input}` in an argument is its path.
  std::string input_generator;
  std::string input_suffix;                   // the generated file's extension (".lua")
  std::map<std::string, std::string> inputs;  // by size: the generated file (filled before the plan is made)
  // Its standard output is compared across allocators (a digest): a program
  // whose result an allocator changes fails that run. Lines matching one of
  // `output_ignore` (ECMAScript regexes: timings) are left out of the digest.
  bool check_output = false;
  std::vector<std::string> output_ignore;
  // When set, only what this regex matches (each match, in order) is digested:
  // for a program whose lines mix results and timings (db_bench's "(N of M found)").
  std::string output_keep;
  // The program has one thread whatever --threads says: it runs once per
  // repetition, at the sweep's least thread count, recorded as 1 thread.
  bool single_thread = false;
  std::string measured;                       // what its time measures ("the whole run"), for docs and --list
  // A server (redis-server): `binary` runs with the preload like any program;
  // once it listens on 127.0.0.1:{port} (a free port bench picks for each
  // run), `client_binary` runs with `client_args` (and its arguments by size)
  // without the preload, memprof or the allocator's variables; when the
  // client is done the server is sent SIGTERM. The run's time is the
  // client's; its CPU time, memory and memprof's figures are the server's;
  // the client's output is what check_output compares.
  std::string client_binary;
  // The program links an allocator of its own (redis-server: Debian's
  // libjemalloc2). Under the reference, which preloads nothing, that one
  // would serve it; bench preloads the C library instead, whose malloc then
  // comes first, so the reference's row is glibc's malloc as for every other
  // program. (A preloaded allocator comes first anyway.)
  std::string links_allocator;
  std::vector<std::string> client_args;
  std::map<std::string, std::vector<std::string>> client_size_args;
};

struct Paths {
  std::filesystem::path source;   // repository (registries, results/)
  std::filesystem::path build;    // build folder (workload binaries, libmemprof.so)
  std::filesystem::path memprof;  // libmemprof.so
  std::filesystem::path sim_clock;  // libsim_clock.so: the virtual clock of simulated runs
};

Paths default_paths();

struct Catalog {
  std::vector<Allocator> allocators;
  std::vector<Workload> workloads;
};

}  // namespace allocstamp
