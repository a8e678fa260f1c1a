// registry.h — the allocators and workloads bench knows, read from JSON data
// files a user can extend without recompiling (allocators/allocators.json,
// workloads/workloads.json, or more with --registry / --workloads).
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/catalog.h"
#include "model/options.h"

namespace allocstamp {

constexpr int kRegistrySchema = 1;

// The built-in registries (allocators/allocators.json, workloads/workloads.json)
// and those `options` name (--registry, --workloads), in that order.
Catalog load_catalog(const Options& options, const Paths& paths);

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
