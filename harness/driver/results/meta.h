// meta.h — meta.json of a results folder (Contract 4), read by one reader: the
// sweep's provenance (command line, machine, allocators with their versions,
// options, resumes), with typed answers to what the commands ask of it.
#pragma once
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstamp {

struct Meta {
  nlohmann::json doc = nlohmann::json::object();  // as written; empty when the folder has none
  bool present = false;

  // name -> version of the allocators the sweep used.
  std::map<std::string, std::string> allocator_versions() const;
  // The allocator tunings bench inherited from its shell ("MALLOC_CONF=...":
  // every run's setup), sorted; empty when none or not recorded.
  std::set<std::string> inherited_tunings() const;
  // The compiler that built the workloads ("" when unknown).
  std::string compiler() const;
  // The kernel the sweep ran on and its transparent huge pages mode, e.g.
  // "Linux 6.1.0 (transparent huge pages madvise)"; "" when unknown. Page
  // faults and the allocator's kernel calls depend on both.
  std::string kernel_setup() const;
  // The preset the sweep ran ("" when none).
  std::string preset() const;
  // Whether the sweep was started with --no-plot (false when the folder does not say).
  bool no_plot() const;
  // The warnings about the machine bench printed when the sweep started, then
  // those of each resume ("when resumed at <time>: ..."); empty for a folder
  // older than the record.
  std::vector<std::string> machine_warnings() const;
  // How many runs were measured on a busy machine (busy_run, machine.h), of
  // how many whose machine state was measured; 0 of 0 when unknown.
  struct BusyRuns {
    int busy = 0, of = 0;
  };
  BusyRuns busy_runs() const;
  // A folder of schema 1 or 2 (no `kind` column): memprof was not preloaded.
  bool unprofiled() const;
  // Whether every thread of the workload does the whole work (registry
  // "work": "per-thread"); false when the folder does not say.
  bool work_per_thread(const std::string& workload) const;
};

// Tunings as a message shows them: "MALLOC_CONF=a TCMALLOC_X=1", or "none".
std::string tunings_text(const std::set<std::string>& tunings);

// meta.json's options_seal: a digest of each option the sweep recorded
// (model/digest.h) but those that cannot change its results (no_plot). It
// catches an option edited by hand, which --resume would otherwise run on
// with; it is no defence against one who computes the digests again.
nlohmann::json options_seal(const nlohmann::json& options);

// UsageError naming every option of meta.json `doc` (in folder `dir`) whose
// value its seal does not match — edited, added or removed; a folder of this
// schema without a seal is refused too (one of an older schema has none).
void check_options_seal(const nlohmann::json& doc, const std::filesystem::path& dir);

enum class MetaMissing { allow, refuse };

// Reads DIR/meta.json. A missing file is an empty Meta (MetaMissing::allow) or
// a UsageError; a damaged one, or one of a newer schema, is a UsageError.
Meta read_meta(const std::filesystem::path& dir, MetaMissing missing = MetaMissing::allow);

}  // namespace allocstamp
