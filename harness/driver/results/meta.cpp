// meta.cpp — the one reader of meta.json (meta.h).
#include "results/meta.h"

#include "model/digest.h"
#include "model/errors.h"
#include "model/fields.h"
#include "model/format.h"
#include "model/input_file.h"
#include "keys.h"
#include "meta_names.h"

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
  if (doc.contains(meta::schema) && !doc[meta::schema].is_number_integer())
    throw UsageError(file.string() + "'s schema is not a number", "restore it from a copy, or start a new sweep");
  if (doc.value(meta::schema, 0) > contract::kResultsSchema)
    throw UsageError(file.string() + " has a schema newer than this bench", "read it with a newer allocstamp");
  // The simulator's identity decides whether simulated figures compare
  // (scripts/same-simulator reads it too): a damaged one is refused, not compared.
  if (doc.contains(meta::simulator) && !doc[meta::simulator].is_null()) {
    const nlohmann::json& sim = doc[meta::simulator];
    std::string problem;
    if (!sim.is_object()) problem = "simulator is not an object";
    else if (!sim.contains(meta::simulator_identity) || !sim[meta::simulator_identity].is_string())
      problem = "simulator has no identity text";
    else if (std::string what = identity_problem(sim[meta::simulator_identity].get<std::string>()); !what.empty())
      problem = "simulator's identity is " + what;
    if (!problem.empty())
      throw UsageError(file.string() + ": its " + problem,
                       "the file is damaged: restore it from a copy, or rerun the sweep");
  }
  meta.doc = std::move(doc);
  meta.present = true;
  return meta;
}

namespace {

// Options a resume may change without changing a result: figures drawn or not.
bool sealed(const std::string& option) { return option != meta::option_no_plot; }

}  // namespace

nlohmann::json options_seal(const nlohmann::json& options) {
  nlohmann::json seal = nlohmann::json::object();
  if (!options.is_object()) return seal;
  for (const auto& [name, value] : options.items())
    if (sealed(name)) seal[name] = digest_of(name + "=" + value.dump());
  return seal;
}

void check_options_seal(const nlohmann::json& doc, const fs::path& dir) {
  const fs::path file = dir / "meta.json";
  if (doc.value(meta::schema, 0) < contract::kResultsSchema && !doc.contains(meta::options_seal)) return;
  if (!doc.contains(meta::options_seal) || !doc[meta::options_seal].is_object())
    throw UsageError(file.string() + " carries no options_seal: its options cannot be told from options edited since "
                         "the sweep started (a folder of a bench older than this one, or an edited meta.json)",
                     "finish it with the bench that started it, or start a new sweep");
  const nlohmann::json& seal = doc[meta::options_seal];
  const nlohmann::json options = doc.value(meta::options, nlohmann::json::object());
  const nlohmann::json now = options_seal(options);
  std::vector<std::string> edited;
  for (const auto& [name, digest] : now.items())
    if (!seal.contains(name) || seal[name] != digest) edited.push_back(name);
  for (const auto& [name, digest] : seal.items())
    if (!now.contains(name)) edited.push_back(name);
  if (edited.empty()) return;
  std::string names;
  for (const std::string& name : edited) names += (names.empty() ? "" : ", ") + ("options." + name);
  throw UsageError(file.string() + ": " + names + (edited.size() == 1 ? " was" : " were") +
                       " edited since the sweep started (its options_seal says otherwise): a resume runs on with the "
                       "options the sweep started with",
                   "restore " + (edited.size() == 1 ? std::string("its value") : std::string("their values")) +
                       " in meta.json, or start a new sweep with the options you want");
}

std::map<std::string, std::string> Meta::allocator_versions() const {
  std::map<std::string, std::string> out;
  if (!doc.contains(meta::allocators) || !doc[meta::allocators].is_array()) return out;
  for (const auto& a : doc[meta::allocators])
    if (a.is_object() && a.contains(meta::allocator_name) && a[meta::allocator_name].is_string())
      out[a[meta::allocator_name].get<std::string>()] = a.value(meta::allocator_version, std::string());
  return out;
}

std::set<std::string> Meta::inherited_tunings() const {
  std::set<std::string> out;
  if (!doc.contains(meta::inherited_environment) || !doc[meta::inherited_environment].is_array()) return out;
  for (const auto& e : doc[meta::inherited_environment])
    if (e.is_string()) out.insert(e.get<std::string>());
  return out;
}

std::string tunings_text(const std::set<std::string>& tunings) {
  std::string out;
  for (const std::string& t : tunings) {
    if (!out.empty()) out += ' ';
    out += printable_text(t);
  }
  return out.empty() ? std::string("none") : out;
}

std::string Meta::compiler() const {
  if (!doc.contains(meta::machine) || !doc[meta::machine].is_object()) return "";
  const auto& machine = doc[meta::machine];
  return machine.contains(meta::machine_compiler) && machine[meta::machine_compiler].is_string()
             ? machine[meta::machine_compiler].get<std::string>()
             : "";
}

std::string Meta::kernel_setup() const {
  if (!doc.contains(meta::machine) || !doc[meta::machine].is_object()) return "";
  const auto& machine = doc[meta::machine];
  if (!machine.contains(meta::machine_kernel) || !machine[meta::machine_kernel].is_string()) return "";
  std::string out = machine[meta::machine_kernel].get<std::string>();
  if (machine.contains(meta::machine_transparent_hugepages) && machine[meta::machine_transparent_hugepages].is_string())
    out += " (transparent huge pages " + machine[meta::machine_transparent_hugepages].get<std::string>() + ")";
  return out;
}

std::string Meta::preset() const {
  if (!doc.contains(meta::options) || !doc[meta::options].is_object()) return "";
  const auto& options = doc[meta::options];
  return options.contains(meta::option_preset) && options[meta::option_preset].is_string()
             ? options[meta::option_preset].get<std::string>()
             : "";
}

std::vector<std::string> Meta::machine_warnings() const {
  std::vector<std::string> out;
  auto add = [&](const nlohmann::json& holder, const std::string& prefix) {
    if (!holder.is_object() || !holder.contains(meta::machine_warnings) || !holder[meta::machine_warnings].is_array())
      return;
    for (const auto& w : holder[meta::machine_warnings])
      if (w.is_string()) out.push_back(prefix + w.get<std::string>());
  };
  add(doc, "");
  if (doc.contains(meta::resumed) && doc[meta::resumed].is_array())
    for (const auto& r : doc[meta::resumed])
      add(r, "when resumed" +
                 (r.is_object() && r.contains(meta::resume_at) && r[meta::resume_at].is_string()
                      ? " at " + r[meta::resume_at].get<std::string>()
                      : "") +
                 ": ");
  return out;
}

Meta::BusyRuns Meta::busy_runs() const {
  auto count = [&](const char* key) {
    return doc.contains(key) && doc[key].is_number_integer() ? doc[key].get<int>() : 0;
  };
  return {count(meta::busy_runs), count(meta::runs_with_machine_state)};
}

bool Meta::no_plot() const {
  if (!doc.contains(meta::options) || !doc[meta::options].is_object()) return false;
  const auto& options = doc[meta::options];
  return options.contains(meta::option_no_plot) && options[meta::option_no_plot].is_boolean() &&
         options[meta::option_no_plot].get<bool>();
}

bool Meta::unprofiled() const {
  if (!doc.contains(meta::options) || !doc[meta::options].is_object()) return false;
  const nlohmann::json& o = doc[meta::options];
  return o.value(meta::option_profile, std::string()) == "none" || o.value(meta::option_no_profile, false) ||
         (o.contains(meta::option_profile_reps) && o[meta::option_profile_reps].is_number() &&
          o[meta::option_profile_reps].get<int>() == 0);
}

bool Meta::work_per_thread(const std::string& workload) const {
  if (!doc.contains(meta::workloads) || !doc[meta::workloads].is_object()) return false;
  auto it = doc[meta::workloads].find(workload);
  return it != doc[meta::workloads].end() && it->is_object() &&
         it->value(meta::workload_work, std::string()) == "per-thread";
}

}  // namespace allocstamp
