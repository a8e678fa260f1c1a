// registry.cpp — parsing and validating the registry files with nlohmann-json,
// resolving allocator libraries, naming their builds (dpkg's package versions,
// else the ELF build-id).
#include "cli/registry.h"
#include "model/program_output.h"

#include <gnu/libc-version.h>

#include <algorithm>
#include <functional>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "model/fields.h"
#include "model/input_file.h"
#include "model/elf_library.h"
#include "model/errors.h"

namespace allocstamp {

namespace fs = std::filesystem;
using nlohmann::json;

json read_data_file(const fs::path& file, const char* list_key, const char* shape) {
  const std::string text = read_input_file(file, std::size_t(16) << 20);  // a regular file (input_file.h)
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number out of range (1e999)
    throw UsageError(file.string() + " is not valid JSON: " + e.what(), "fix the file");
  }
  int schema = doc.is_object() && doc.contains("schema") && doc["schema"].is_number_integer() ? doc["schema"].get<int>() : 0;
  if (schema > kRegistrySchema)
    throw UsageError(file.string() + " has schema " + std::to_string(schema) + ", newer than this bench (" +
                         std::to_string(kRegistrySchema) + ")",
                     "update allocstamp");
  if (!doc.is_object() || !doc.contains(list_key) || !doc[list_key].is_array())
    throw UsageError(file.string() + " has no \"" + list_key + "\" list", std::string("see ") + shape + " for the shape");
  // No string may hold a NUL byte: no path, argument or variable can, and one
  // that reached runs.csv would leave it unreadable.
  std::function<void(const json&, const std::string&)> no_nul = [&](const json& node, const std::string& where) {
    if (node.is_string() && node.get_ref<const std::string&>().find('\0') != std::string::npos)
      throw UsageError(file.string() + ": " + where + " holds a NUL byte",
                       "remove the \\u0000 (no path, argument or variable can hold one)");
    if (node.is_array())
      for (std::size_t i = 0; i < node.size(); ++i) no_nul(node[i], where + "[" + std::to_string(i) + "]");
    if (node.is_object())
      for (const auto& [key, value] : node.items()) {
        if (key.find('\0') != std::string::npos)
          throw UsageError(file.string() + ": a key in " + where + " holds a NUL byte", "remove the \\u0000");
        no_nul(value, where + "." + key);
      }
  };
  no_nul(doc, list_key);
  return doc;
}

namespace {

std::string required(const json& entry, const char* key, const fs::path& file) {
  if (!entry.is_object()) throw UsageError(file.string() + ": an entry is not an object", "write each entry as {...}");
  if (!entry.contains(key) || (entry[key].is_string() && entry[key].get<std::string>().empty()))
    throw UsageError(file.string() + ": an entry lacks \"" + key + "\"", "every entry needs it");
  if (!entry[key].is_string())
    throw UsageError(file.string() + ": an entry's \"" + key + "\" is " + entry[key].type_name() + ", not a string",
                     "write it as a string");
  return entry[key].get<std::string>();
}

// A name that labels rows and names files (logs/, figures): fields.h's character set.
std::string required_name(const json& entry, const fs::path& file, const char* what) {
  std::string name = required(entry, "name", file);
  if (std::string problem = name_problem(name); !problem.empty())
    throw UsageError(file.string() + ": the " + what + " entry '" + name + "': " + problem,
                     "name it with letters, digits and ._+- only (it names files in the results folder)");
  return name;
}

// A candidate is one library, or several joined by ':' (preloaded in that
// order, e.g. a shim in front of an allocator): it is there when all are.
bool candidate_exists(const std::string& candidate) {
  std::size_t from = 0;
  for (std::size_t colon; (colon = candidate.find(':', from)) != std::string::npos; from = colon + 1)
    if (!fs::exists(candidate.substr(from, colon - from))) return false;
  return fs::exists(candidate.substr(from));
}

void resolve(Allocator& a) {
  a.installed = a.candidates.empty();  // glibc: nothing to preload
  for (const auto& candidate : a.candidates)
    if (candidate_exists(candidate)) {
      a.library = candidate;
      a.installed = true;
      break;
    }
}

// A name is given once: an entry that took a built-in's name (or another
// entry's) would label one allocator's rows with another's name.
template <typename T>
void add_new(std::vector<T>& list, T item, const fs::path& file, const char* what) {
  for (const auto& existing : list)
    if (existing.name == item.name)
      throw UsageError(file.string() + ": the " + what + " '" + item.name + "' is defined already",
                       std::string("give the entry another name (bench --list shows the ") + what + "s)");
  list.push_back(std::move(item));
}

}  // namespace

// Runs `read` on each entry; a wrong type names the file and the entry.
template <typename Read>
void each_entry(const json& list, const fs::path& file, Read read) {
  size_t index = 0;
  for (const json& e : list) {
    ++index;
    try {
      read(e);
    } catch (const json::exception& error) {
      std::string which = e.is_object() && e.contains("name") && e["name"].is_string() ? "'" + e["name"].get<std::string>() + "'"
                                                                                      : "#" + std::to_string(index);
      throw UsageError(file.string() + ": entry " + which + " has a value of the wrong type (" + error.what() + ")",
                       "compare with allocators/allocators.json or workloads/workloads.json");
    }
  }
}

namespace {

// A variable a variant may set: a C identifier (the child's environment takes it).
bool variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A variable bench sets in the child itself (what to preload, memprof's
// options and output files, the TM method, a simulated run's padding): an
// allocator entry or variant that set it would misroute or mislabel the run.
// Empty when the name is free, else why not.
std::string harness_variable(const std::string& name) {
  for (const char* prefix : {"LD_", "MEMPROF_", "ITM_", "ALLOCSTAMP_"})
    if (name.rfind(prefix, 0) == 0)
      return std::string("bench sets the ") + prefix + "* variables of every run itself (what it preloads, memprof's "
             "options and files, the TM method, a simulated run's padding)";
  return "";
}

// The entry `variant` (name BASE:VARIANT, "base": BASE) completed from its base,
// an allocator entry read before it: library, package, and the base's
// variables under the variant's own.
void complete_variant(Allocator& variant, const std::vector<Allocator>& known, const fs::path& file) {
  const std::string stem = variant.name.substr(0, variant.name.find(':'));
  if (variant.base.find(':') != std::string::npos)
    throw UsageError(file.string() + ": the variant '" + variant.name + "' has the variant '" + variant.base +
                         "' as its base, not an allocator",
                     "base it on '" + variant.base.substr(0, variant.base.find(':')) +
                         "' and give it every setting it needs in \"env\"");
  if (variant.base != stem)
    throw UsageError(file.string() + ": the variant '" + variant.name + "' has \"base\": \"" + variant.base + "\"",
                     "name a variant BASE:VARIANT after its base (here '" + variant.base + ":...'), or set \"base\": \"" +
                         stem + "\"");
  auto base = std::find_if(known.begin(), known.end(), [&](const Allocator& a) { return a.name == variant.base; });
  if (base == known.end() || !base->base.empty())
    throw UsageError(file.string() + ": the variant '" + variant.name + "' names the base '" + variant.base +
                         "', which is not an allocator defined before it",
                     "define the allocator first (bench --list shows them), or add its entry above the variant");
  if (!variant.candidates.empty())
    throw UsageError(file.string() + ": the variant '" + variant.name + "' lists \"libraries\"",
                     "a variant preloads its base's library: drop \"libraries\" (or make it an allocator of its own)");
  if (variant.settings.empty())
    throw UsageError(file.string() + ": the variant '" + variant.name + "' sets nothing",
                     "give its settings in \"env\", e.g. {\"MALLOC_CONF\": \"background_thread:true\"}");
  variant.package = base->package;
  if (variant.no_simulation.empty()) variant.no_simulation = base->no_simulation;
  variant.candidates = base->candidates;
  variant.env = base->env;
  for (const auto& [key, value] : variant.settings) variant.env[key] = value;
}

}  // namespace

void load_allocators(const fs::path& file, std::vector<Allocator>& into) {
  json doc = read_data_file(file, "allocators", "allocators/allocators.json");
  each_entry(doc["allocators"], file, [&](const json& e) {
    Allocator a;
    a.name = required(e, "name", file);
    if (std::string problem = allocator_name_problem(a.name); !problem.empty())
      throw UsageError(file.string() + ": the allocator entry '" + a.name + "': " + problem,
                       "name it with letters, digits and ._+- only, a variant BASE:VARIANT (it names files in the results folder)");
    a.base = e.value("base", "");
    a.description = e.value("description", "");
    a.package = e.value("package", "");
    a.candidates = e.value("libraries", std::vector<std::string>{});
    a.no_simulation = e.value("no_simulation", std::string());
    const json env = e.value("env", json::object());
    for (const auto& [key, value] : env.items()) {
      if (!variable_name(key))
        throw UsageError(file.string() + ": the allocator '" + a.name + "' sets '" + key + "', not a variable name",
                         "name variables with letters, digits and _");
      if (std::string why = harness_variable(key); !why.empty())
        throw UsageError(file.string() + ": the allocator '" + a.name + "' sets " + key + ", which " + why,
                         "drop it from \"env\" (use --tm for the TM method; an allocator's library goes in "
                         "\"libraries\")");
      a.env[key] = value.is_string() ? value.get<std::string>() : value.dump();  // numbers are fine too
      if (a.env[key].find('\0') != std::string::npos)
        throw UsageError(file.string() + ": the allocator '" + a.name + "' sets " + key + " to a value with a NUL byte",
                         "remove the \\u0000 from the value (no environment variable can hold it)");
    }
    if (a.name.find(':') != std::string::npos || !a.base.empty()) {
      if (a.base.empty())
        throw UsageError(file.string() + ": the entry '" + a.name + "' is named as a variant but has no \"base\"",
                         "add \"base\": \"" + a.name.substr(0, a.name.find(':')) + "\" (or name it without ':')");
      a.settings = a.env;
      complete_variant(a, into, file);
    } else if (a.candidates.empty() && a.name != "glibc") {
      // Only the C library's own malloc needs nothing preloaded: any other entry names its library.
      throw UsageError(file.string() + ": the allocator '" + a.name + "' has no \"libraries\"",
                       "list the .so to preload, e.g. \"libraries\": [\"/usr/lib/x86_64-linux-gnu/libfoo.so\"]");
    }
    resolve(a);
    add_new(into, std::move(a), file, "allocator");
  });
}

namespace {

std::vector<std::string> string_list(const json& node, const fs::path& file, const std::string& where) {
  if (!node.is_array() || std::any_of(node.begin(), node.end(), [](const json& v) { return !v.is_string(); }))
    throw UsageError(file.string() + ": " + where + " is not a list of strings", "write it as [\"...\", ...]");
  return node.get<std::vector<std::string>>();
}

// The fields only someone else's program takes (catalog.h): its package,
// variables, arguments by size, generated input and output check.
void read_program_fields(const json& e, const fs::path& file, Workload& w) {
  const std::string where = "workload '" + w.name + "'";
  for (const char* key : {"package", "env", "sizes", "input", "check_output", "output_ignore", "output_keep", "measured",
                          "single_thread", "client", "links_allocator", "marks_phase"})
    if (e.contains(key) && w.contract)
      throw UsageError(file.string() + ": " + where + " has \"" + key + "\", which only a program without the contract "
                       "takes", std::string("add \"contract\": false, or drop \"") + key + "\"");
  if (w.contract) return;
  if (e.contains("package")) w.package = required(e, "package", file);
  if (e.contains("measured")) w.measured = required(e, "measured", file);
  if (e.contains("env")) {
    if (!e["env"].is_object()) throw UsageError(file.string() + ": " + where + "'s \"env\" is not an object", "write {\"NAME\": \"value\"}");
    for (const auto& [key, value] : e["env"].items()) {
      if (!variable_name(key) || !value.is_string())
        throw UsageError(file.string() + ": " + where + " sets '" + key + "': not a variable name with a string value",
                         "name variables with letters, digits and _, and quote the value");
      if (std::string why = harness_variable(key); !why.empty())
        throw UsageError(file.string() + ": " + where + " sets " + key + ", which " + why, "drop it from \"env\"");
      for (const char* prefix : {"MALLOC_", "GLIBC_TUNABLES", "MIMALLOC_", "TCMALLOC_", "JEMALLOC_", "TBB_"})
        if (key.rfind(prefix, 0) == 0)
          throw UsageError(file.string() + ": " + where + " sets " + key + ", which tunes an allocator: its rows would "
                           "carry another allocator's setting", "make it a variant: --alloc=ALLOCATOR:" + key + "=VALUE");
      w.env[key] = value.get<std::string>();
    }
  }
  if (e.contains("sizes")) {
    if (!e["sizes"].is_object()) throw UsageError(file.string() + ": " + where + "'s \"sizes\" is not an object",
                                                  "write {\"small\": [\"--num=1000\"], ...}");
    for (const auto& [size, args] : e["sizes"].items()) {
      if (size != "tiny" && size != "small" && size != "medium" && size != "large")
        throw UsageError(file.string() + ": " + where + " has the size '" + size + "'", "use tiny, small, medium, large");
      w.size_args[size] = string_list(args, file, where + "'s size " + size);
    }
  }
  if (e.contains("input")) {
    const json& input = e["input"];
    if (!input.is_object()) throw UsageError(file.string() + ": " + where + "'s \"input\" is not an object",
                                             "write {\"generator\": \"workloads/real/x.py\", \"suffix\": \".x\"}");
    w.input_generator = required(input, "generator", file);
    w.input_suffix = input.value("suffix", "");
    if (fs::path(w.input_generator).is_absolute() || w.input_generator.find("..") != std::string::npos)
      throw UsageError(file.string() + ": " + where + "'s generator '" + w.input_generator + "' is not under the sources",
                       "give a path relative to the repository, e.g. workloads/real/lua_input.py");
    if (std::string problem = name_problem("x" + w.input_suffix); !problem.empty())
      throw UsageError(file.string() + ": " + where + "'s input suffix '" + w.input_suffix + "': " + problem,
                       "use letters, digits and . only, e.g. \".lua\"");
  }
  if (e.contains("links_allocator")) w.links_allocator = required(e, "links_allocator", file);
  if (e.contains("client")) {
    const json& client = e["client"];
    if (!client.is_object() || !client.contains("binary"))
      throw UsageError(file.string() + ": " + where + "'s \"client\" is not an object with a binary",
                       "write {\"binary\": \"/usr/bin/redis-benchmark\", \"args\": [\"-p\", \"{port}\", ...]}");
    w.client_binary = required(client, "binary", file);
    if (!fs::path(w.client_binary).is_absolute())
      throw UsageError(file.string() + ": " + where + "'s client '" + w.client_binary + "' is not an absolute path",
                       "give the client's absolute path: a shim on PATH would run instead");
    if (client.contains("args")) w.client_args = string_list(client.at("args"), file, where + "'s client args");
    if (client.contains("sizes")) {
      if (!client["sizes"].is_object())
        throw UsageError(file.string() + ": " + where + "'s client \"sizes\" is not an object",
                         "write {\"small\": [\"-n\", \"100000\"], ...}");
      for (const auto& [size, args] : client["sizes"].items()) {
        if (size != "tiny" && size != "small" && size != "medium" && size != "large")
          throw UsageError(file.string() + ": " + where + "'s client has the size '" + size + "'",
                           "use tiny, small, medium, large");
        w.client_size_args[size] = string_list(args, file, where + "'s client size " + size);
      }
    }
    bool server_port = false, client_port = false;
    for (const auto& arg : w.args) server_port |= arg.find("{port}") != std::string::npos;
    for (const auto& arg : w.client_args) client_port |= arg.find("{port}") != std::string::npos;
    if (!server_port || !client_port)
      throw UsageError(file.string() + ": " + where + " has a client, but " +
                           (server_port ? "the client's" : "the server's") + " arguments do not name {port}",
                       "name {port} in both: the server listens there, the client connects there");
  }
  bool uses_input = false;
  for (const auto& arg : w.args) uses_input |= arg.find("{input}") != std::string::npos;
  for (const auto& [size, args] : w.size_args)
    for (const auto& arg : args) uses_input |= arg.find("{input}") != std::string::npos;
  if (uses_input != !w.input_generator.empty())
    throw UsageError(file.string() + ": " + where + (uses_input ? " names {input} but has no \"input\"" : " has an \"input\" no argument names"),
                     "give both: \"input\": {\"generator\": ...} and {input} in an argument");
  w.check_output = e.value("check_output", false);
  w.single_thread = e.value("single_thread", false);
  if (e.contains("marks_phase")) {
    if (!e["marks_phase"].is_boolean())
      throw UsageError(file.string() + ": " + where + "'s \"marks_phase\" is not true or false",
                       "write \"marks_phase\": true for a program that calls memprof::phase_begin/phase_end");
    w.marks_phase = e["marks_phase"].get<bool>();
  }
  if (e.contains("output_keep")) {
    w.output_keep = required(e, "output_keep", file);
    try {
      std::regex check(w.output_keep);
    } catch (const std::regex_error& error) {
      throw UsageError(file.string() + ": " + where + "'s output_keep '" + w.output_keep + "' is not a regex (" +
                       error.what() + ")", "write an ECMAScript regular expression");
    }
  }
  if ((!w.output_ignore.empty() || !w.output_keep.empty()) && !e.value("check_output", false))
    throw UsageError(file.string() + ": " + where + " says which output to compare but not to compare it",
                     "add \"check_output\": true, or drop output_ignore and output_keep");
  if (e.contains("output_ignore")) {
    w.output_ignore = string_list(e["output_ignore"], file, where + "'s \"output_ignore\"");
    for (const std::string& pattern : w.output_ignore) {
      try {
        std::regex check(pattern);
      } catch (const std::regex_error& error) {
        throw UsageError(file.string() + ": " + where + "'s output_ignore '" + pattern + "' is not a regex (" +
                         error.what() + ")", "write an ECMAScript regular expression");
      }
    }
  }
}

}  // namespace

void load_workloads(const fs::path& file, std::vector<Workload>& into) {
  json doc = read_data_file(file, "workloads", "workloads/workloads.json");
  each_entry(doc["workloads"], file, [&](const json& e) {
    Workload w;
    w.name = required_name(e, file, "workload");
    w.binary = required(e, "binary", file);
    w.family = e.value("family", "");
    w.app = e.value("app", "");
    w.args = e.value("args", std::vector<std::string>{});
    w.tm = e.value("tm", false);
    w.contract = e.value("contract", true);
    w.marks_phase = w.contract;
    w.description = e.value("description", "");
    const std::string work = e.value("work", std::string("total"));
    if (work != "total" && work != "per-thread")
      throw UsageError(file.string() + ": workload '" + w.name + "' has \"work\": \"" + work + "\"",
                       "use \"total\" (the threads share the work, the default) or \"per-thread\"");
    w.work_per_thread = work == "per-thread";
    read_program_fields(e, file, w);
    add_new(into, std::move(w), file, "workload");
  });
}

Allocator allocator_from_path(const std::string& path) {
  Allocator a;
  a.name = fs::path(path).filename().string();
  if (std::string problem = name_problem(a.name); !problem.empty())
    throw UsageError("--alloc=" + path + ": the library's file name: " + problem,
                     "link or copy it to a name of letters, digits and ._+- (the name labels its rows and logs)");
  a.description = "given by path";
  a.candidates = {path};
  resolve(a);
  return a;
}

Allocator variant_of(const Allocator& base, const std::string& variable, const std::string& value) {
  const std::string name = base.name + ":" + variable + "=" + value;
  if (!base.base.empty())
    throw UsageError("--alloc=" + name + ": '" + base.name + "' is a variant already",
                     "add the setting to its registry entry, or give it to the base: --alloc=" + base.base + ":" +
                         variable + "=" + value);
  if (!variable_name(variable))
    throw UsageError("--alloc=" + name + ": '" + variable + "' is not a variable name",
                     "write --alloc=ALLOCATOR:VARIABLE=VALUE, e.g. --alloc=jemalloc:MALLOC_CONF=background_thread:true");
  if (std::string why = harness_variable(variable); !why.empty())
    throw UsageError("--alloc=" + name + ": " + variable + " cannot be a variant's setting: " + why,
                     "set the allocator's own variables only (MALLOC_CONF, MIMALLOC_*, TCMALLOC_*, ...); --tm sets the "
                     "TM method");
  if (std::string problem = allocator_name_problem(name); !problem.empty())
    throw UsageError("--alloc=" + name + ": " + problem,
                     "a value with other characters (or a comma) needs a registry line: see docs/allocators.md");
  Allocator v = base;
  v.name = name;
  v.base = base.name;
  v.description = base.name + " with " + variable + "=" + value + " (given on the command line)";
  v.settings = {{variable, value}};
  v.env[variable] = value;
  return v;
}

std::string package_version(const std::string& package) {
  if (package.empty()) return "";
  for (char c : package)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '+')) return "";
  const ProgramOutput version = program_output({"dpkg-query", "-W", "--showformat=${Version}", package});
  return version.status == 0 ? version.out : "";
}

std::string library_identity(const Allocator& allocator) {
  if (!allocator.installed) return "";
  if (allocator.library.empty()) return std::string("glibc ") + gnu_get_libc_version();
  if (std::string version = package_version(allocator.package); !version.empty())
    return allocator.library + " (" + allocator.package + " " + version + ")";
  const std::string build_id = read_elf_library(allocator.library).build_id;
  return build_id.empty() ? allocator.library : allocator.library + " build-id " + build_id;
}

Catalog load_catalog(const Options& options, const Paths& paths) {
  Catalog c;
  load_allocators(paths.source / "allocators" / "allocators.json", c.allocators);
  for (const auto& file : options.registries) load_allocators(file, c.allocators);
  load_workloads(paths.source / "workloads" / "workloads.json", c.workloads);
  for (const auto& file : options.workload_files) load_workloads(file, c.workloads);
  return c;
}

}  // namespace allocstamp
