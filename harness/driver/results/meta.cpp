// meta.cpp — the one reader of meta.json (meta.h).
#include "results/meta.h"

#include "model/errors.h"
#include "model/input_file.h"
#include "keys.h"

namespace allocstamp {

namespace fs = std::filesystem;

Meta read_meta(const fs::path& dir, MetaMissing missing) {
  Meta meta;
  const fs::path file = dir / "meta.json";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) {
    if (missing == MetaMissing::refuse)
      throw UsageError(dir.string() + " has no meta.json", "give a results folder bench wrote");
    return meta;
  }
  // A regular file of at most 256 MiB (a plan of a million runs); input_file.h says why not.
  nlohmann::json doc = nlohmann::json::parse(read_input_file(file, std::size_t(256) << 20), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw UsageError(file.string() + " is not a JSON object", "restore it from a copy, or start a new sweep");
  if (doc.contains("schema") && !doc["schema"].is_number_integer())
    throw UsageError(file.string() + "'s schema is not a number", "restore it from a copy, or start a new sweep");
  if (doc.value("schema", 0) > contract::kResultsSchema)
    throw UsageError(file.string() + " has a schema newer than this bench", "read it with a newer allocstamp");
  meta.doc = std::move(doc);
  meta.present = true;
  return meta;
}

std::map<std::string, std::string> Meta::allocator_versions() const {
  std::map<std::string, std::string> out;
  if (!doc.contains("allocators") || !doc["allocators"].is_array()) return out;
  for (const auto& a : doc["allocators"])
    if (a.is_object() && a.contains("name") && a["name"].is_string())
      out[a["name"].get<std::string>()] = a.value("version", std::string());
  return out;
}

std::string Meta::compiler() const {
  if (!doc.contains("machine") || !doc["machine"].is_object()) return "";
  const auto& machine = doc["machine"];
  return machine.contains("compiler") && machine["compiler"].is_string() ? machine["compiler"].get<std::string>() : "";
}

std::string Meta::kernel_setup() const {
  if (!doc.contains("machine") || !doc["machine"].is_object()) return "";
  const auto& machine = doc["machine"];
  if (!machine.contains("kernel") || !machine["kernel"].is_string()) return "";
  std::string out = machine["kernel"].get<std::string>();
  if (machine.contains("transparent_hugepages") && machine["transparent_hugepages"].is_string())
    out += " (transparent huge pages " + machine["transparent_hugepages"].get<std::string>() + ")";
  return out;
}

std::string Meta::preset() const {
  if (!doc.contains("options") || !doc["options"].is_object()) return "";
  const auto& options = doc["options"];
  return options.contains("preset") && options["preset"].is_string() ? options["preset"].get<std::string>() : "";
}

std::vector<std::string> Meta::machine_warnings() const {
  std::vector<std::string> out;
  auto add = [&](const nlohmann::json& holder, const std::string& prefix) {
    if (!holder.is_object() || !holder.contains("machine_warnings") || !holder["machine_warnings"].is_array()) return;
    for (const auto& w : holder["machine_warnings"])
      if (w.is_string()) out.push_back(prefix + w.get<std::string>());
  };
  add(doc, "");
  if (doc.contains("resumed") && doc["resumed"].is_array())
    for (const auto& r : doc["resumed"])
      add(r, "when resumed" + (r.is_object() && r.contains("at") && r["at"].is_string() ? " at " + r["at"].get<std::string>() : "") + ": ");
  return out;
}

Meta::BusyRuns Meta::busy_runs() const {
  auto count = [&](const char* key) {
    return doc.contains(key) && doc[key].is_number_integer() ? doc[key].get<int>() : 0;
  };
  return {count("busy_runs"), count("runs_with_machine_state")};
}

bool Meta::no_plot() const {
  if (!doc.contains("options") || !doc["options"].is_object()) return false;
  const auto& options = doc["options"];
  return options.contains("no_plot") && options["no_plot"].is_boolean() && options["no_plot"].get<bool>();
}

bool Meta::unprofiled() const {
  if (!doc.contains("options") || !doc["options"].is_object()) return false;
  const nlohmann::json& o = doc["options"];
  return o.value("profile", std::string()) == "none" || o.value("no_profile", false) ||
         (o.contains("profile_reps") && o["profile_reps"].is_number() && o["profile_reps"].get<int>() == 0);
}

bool Meta::work_per_thread(const std::string& workload) const {
  if (!doc.contains("workloads") || !doc["workloads"].is_object()) return false;
  auto it = doc["workloads"].find(workload);
  return it != doc["workloads"].end() && it->is_object() && it->value("work", std::string()) == "per-thread";
}

}  // namespace allocstamp
