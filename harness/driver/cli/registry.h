// registry.h — the allocators and workloads bench knows, read from JSON data
// files a user can extend without recompiling (allocators/allocators.json,
// workloads/workloads.json, or more with --registry / --workloads).
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstamp {

constexpr int kRegistrySchema = 1;

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

struct Workload {
  std::string name;
  std::string family;
  std::string binary;  // relative to the build folder
  std::string app;     // first argument; empty for none
  std::vector<std::string> args;
  bool tm = false;     // transactional: receives --tm
  bool contract = true;  // takes Contract 3's --threads, --size, --seed; false: a foreign program gets its args only
  // "work": "per-thread" — each thread does the whole work (churn, intset, the
  // stress programs): its ideal time is flat in the thread count, not 1/N.
  bool work_per_thread = false;
  std::string description;
};

// Reads allocators from `file` and resolves each library; later files
// override earlier entries of the same name. Throws UsageError on bad files.
void load_allocators(const std::filesystem::path& file, std::vector<Allocator>& into);
void load_workloads(const std::filesystem::path& file, std::vector<Workload>& into);

// Reads a data file of this repository's shape ({"schema": 1, "<list_key>": [...]}):
// UsageError for an unreadable file, bad JSON, a newer schema or a missing list;
// `shape` names the file to copy the shape from.
nlohmann::json read_data_file(const std::filesystem::path& file, const char* list_key, const char* shape);

// An allocator given as a path to a shared library.
Allocator allocator_from_path(const std::string& path);

// `base` with one more variable, for --alloc=BASE:NAME=VALUE; named so.
Allocator variant_of(const Allocator& base, const std::string& variable, const std::string& value);

// The installed version of a Debian package ("" when unknown).
std::string package_version(const std::string& package);

// The allocator's library as a run preloads it, for runs.csv's alloc_library:
// its resolved path and "(package version)" when its registry entry names an
// installed package, else "build-id <hex>" (the ELF note); for glibc, nothing
// preloaded, "glibc <version>" of the C library; "" when it is not installed.
// Asks dpkg: once per allocator and sweep.
std::string library_identity(const Allocator& allocator);

}  // namespace allocstamp
