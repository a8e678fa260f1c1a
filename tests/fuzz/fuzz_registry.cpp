// fuzz_registry — any bytes as an allocator or workload registry (--registry,
// --workloads): refused with a UsageError, or read into entries.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model/errors.h"
#include "cli/registry.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path file = fs::temp_directory_path() / ("fuzz-registry-" + std::to_string(getpid()) + ".json");
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  using namespace allocstamp;
  try {
    std::vector<Allocator> allocators;
    load_allocators(file, allocators);
  } catch (const UsageError&) {
  }
  try {
    std::vector<Workload> workloads;
    load_workloads(file, workloads);
  } catch (const UsageError&) {
  }
  return 0;
}
