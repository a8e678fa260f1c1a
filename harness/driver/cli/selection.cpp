// selection.cpp — name resolution against the loaded registries, and `bench --list`.
#include "cli/selection.h"
#include "cli/registry.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <fmt/printf.h>

#include "model/elf_library.h"
#include "model/errors.h"
#include "cli/spelling.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// "did you mean 'X'? " for the candidate nearest a mistyped name, or "".
template <typename Named>
std::string did_you_mean(const std::string& name, const std::vector<Named>& candidates,
                         std::vector<std::string> more = {}) {
  for (const auto& c : candidates) more.push_back(c.name);
  return allocstamp::did_you_mean(name, more);
}

// A library given by path that defines no malloc or no free would leave
// glibc's allocator measured under the library's name.
void refuse_unless_allocator(const Allocator& a) {
  const ElfLibrary elf = read_elf_library(a.library);
  if (!elf.shared_library)
    throw UsageError(a.name + " is not a shared library", "give an allocator library (a .so that defines malloc and free)");
  std::string missing;
  for (const char* function : {"malloc", "free"})
    if (!elf.functions.count(function)) missing += (missing.empty() ? "no " : " and no ") + std::string(function);
  if (!missing.empty()) throw UsageError(a.name + " defines " + missing, "give an allocator library");
}

}  // namespace

Paths default_paths() {
  Paths p;
  const char* source = std::getenv("ALLOCSTAMP_SOURCE_DIR");
  const char* build = std::getenv("ALLOCSTAMP_BUILD_DIR");
  p.source = source ? source : ALLOCSTAMP_SOURCE_DIR;
  p.build = build ? build : ALLOCSTAMP_BUILD_DIR;
  p.memprof = p.build / "lib" / "libmemprof.so";
  p.sim_clock = p.build / "lib" / "libsim_clock.so";
  return p;
}

namespace {

template <typename T>
std::string names_of(const std::vector<T>& list) {
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : ", ") + item.name;
  return out;
}

}  // namespace

std::vector<Allocator> select_allocators(const Options& options, const Catalog& catalog) {
  std::vector<std::string> wanted = options.allocators;
  if (wanted.empty()) wanted = {"all"};
  std::vector<Allocator> out;
  for (const auto& name : wanted) {
    if (name == "all") {  // the allocators; their variants are asked for by name or by "variants"
      for (const auto& a : catalog.allocators)
        if (a.base.empty()) out.push_back(a);
      continue;
    }
    if (name == "variants") {  // each variant after its base
      for (const auto& base : catalog.allocators)
        for (const auto& v : catalog.allocators)
          if (v.base == base.name) {
            if (!base.installed)
              throw UsageError("the variants of '" + base.name + "' need it, and it is not installed",
                               "install it: " + install_hint(base));
            out.push_back(base);
            out.push_back(v);
          }
      continue;
    }
    if (const std::size_t colon = name.find(':'), equals = name.find('=');
        colon != std::string::npos && equals != std::string::npos && colon < equals &&
        std::none_of(catalog.allocators.begin(), catalog.allocators.end(), [&](const Allocator& a) { return a.name == name; })) {
      // BASE:VARIABLE=VALUE: a variant given on the command line.
      const std::string base_name = name.substr(0, colon);
      auto base = std::find_if(catalog.allocators.begin(), catalog.allocators.end(),
                               [&](const Allocator& a) { return a.name == base_name; });
      if (base == catalog.allocators.end())
        throw UsageError("--alloc=" + name + ": unknown allocator '" + base_name + "'",
                         did_you_mean(base_name, catalog.allocators) + "choose from: " + names_of(catalog.allocators));
      if (!base->installed)
        throw UsageError("allocator '" + base_name + "' is not installed", "install it: " + install_hint(*base));
      out.push_back(variant_of(*base, name.substr(colon + 1, equals - colon - 1), name.substr(equals + 1)));
      continue;
    }
    if (name.find('/') != std::string::npos || name.ends_with(".so") || name.find(".so.") != std::string::npos) {
      if (name.find_first_of(": \t") != std::string::npos)
        throw UsageError("the library path '" + name + "' holds a colon or a space, which LD_PRELOAD cannot carry",
                         "link or copy it to a path without them");
      Allocator a = allocator_from_path(name);
      if (!a.installed) throw UsageError("no allocator library at " + name, "give the path of an existing .so");
      refuse_unless_allocator(a);
      out.push_back(a);
      continue;
    }
    const Allocator* found = nullptr;
    for (const auto& a : catalog.allocators)
      if (a.name == name) found = &a;
    if (!found && name.find(':') != std::string::npos && name.find('=') == std::string::npos)
      throw UsageError("unknown allocator '" + name + "'",
                       did_you_mean(name, catalog.allocators) + "a variant is a registry entry (bench --list), or " +
                           "ALLOCATOR:VARIABLE=VALUE; a value with a comma needs a registry line (docs/allocators.md)");
    // After a variant given on the command line, an unknown name is most
    // likely the rest of its value, cut at a comma (MALLOC_CONF=a,b).
    const std::size_t at = std::size_t(&name - wanted.data());
    const bool after_variant = at > 0 && wanted[at - 1].find(':') < wanted[at - 1].find('=') &&
                               wanted[at - 1].find('=') != std::string::npos;
    if (!found && after_variant) {
      const std::string& variant = wanted[at - 1];
      const std::string base = variant.substr(0, variant.find(':')),
                        variable = variant.substr(variant.find(':') + 1, variant.find('=') - variant.find(':') - 1);
      throw UsageError("unknown allocator '" + name + "': --alloc's list is cut at commas, so the value of " + variant +
                           " ended before it",
                       "a value with a comma needs a registry line (docs/allocators.md), e.g. {\"name\": \"" + base +
                           ":mine\", \"base\": \"" + base + "\", \"env\": {\"" + variable +
                           "\": \"...\"}} in a file given with --registry");
    }
    if (!found)
      throw UsageError("unknown allocator '" + name + "'",
                       did_you_mean(name, catalog.allocators) + "choose from: " + names_of(catalog.allocators) +
                           ", all, variants, ALLOCATOR:VARIABLE=VALUE, or a path to a .so");
    if (!found->installed)
      throw UsageError("allocator '" + name + "' is not installed (no " +
                           (found->candidates.empty() ? std::string("library") : found->candidates.front()) + ")",
                       "install it: " + install_hint(*found));
    out.push_back(*found);
  }
  if (out.empty()) throw UsageError("no allocator selected", "see 'bench --list'");
  // The same allocator twice ("all,jemalloc") runs once; two different
  // libraries under one name would merge into one cell.
  std::vector<Allocator> unique;
  for (auto& a : out) {
    auto same = std::find_if(unique.begin(), unique.end(), [&](const Allocator& u) { return u.name == a.name; });
    if (same == unique.end()) {
      unique.push_back(std::move(a));
    } else if (same->library != a.library) {
      throw UsageError("two allocators are both named '" + a.name + "' (" + same->library + ", " + a.library + ")",
                       "give them distinct names in a --registry file");
    }
  }
  return unique;
}

std::vector<Workload> select_workloads(const Options& options, const Catalog& catalog, const Paths& paths) {
  if (options.workloads.empty())
    throw UsageError("no workload chosen", "pass --workload=NAME (names: " + names_of(catalog.workloads) + ", or all)");
  std::vector<Workload> out;
  for (const auto& name : options.workloads) {
    if (name == "all") {
      out.insert(out.end(), catalog.workloads.begin(), catalog.workloads.end());
      continue;
    }
    const Workload* found = nullptr;
    for (const auto& w : catalog.workloads)
      if (w.name == name) found = &w;
    if (found) {
      out.push_back(*found);
      continue;
    }
    // A glob ("maps-*", "intset-?ist"), a family ("stamp") or a stem
    // ("vacation" for vacation-low and vacation-high).
    size_t before = out.size();
    const bool glob = name.find_first_of("*?[") != std::string::npos;
    for (const auto& w : catalog.workloads)
      if (glob ? ::fnmatch(name.c_str(), w.name.c_str(), 0) == 0 : w.family == name || w.name.rfind(name + "-", 0) == 0)
        out.push_back(w);
    if (glob && out.size() == before)
      throw UsageError("--workload '" + name + "' matches no workload",
                       "choose from: " + names_of(catalog.workloads) + " (bench --list), a family, or all");
    if (out.size() == before)
    {
      // The other names a workload answers to: its family, and each stem of
      // its name ("vacation" of vacation-low, "maps-insert" of maps-insert-std_map).
      std::vector<std::string> families_and_stems;
      auto add = [&](const std::string& n) {
        if (std::find(families_and_stems.begin(), families_and_stems.end(), n) == families_and_stems.end())
          families_and_stems.push_back(n);
      };
      for (const auto& w : catalog.workloads) {
        add(w.family);
        for (auto dash = w.name.find('-'); dash != std::string::npos; dash = w.name.find('-', dash + 1))
          add(w.name.substr(0, dash));
      }
      throw UsageError("unknown workload '" + name + "'", did_you_mean(name, catalog.workloads, families_and_stems) +
                                                              "choose from: " + names_of(catalog.workloads) +
                                                              ", a family, or all");
    }
  }
  std::vector<Workload> unique;
  for (auto& w : out)
    if (std::none_of(unique.begin(), unique.end(), [&](const Workload& u) { return u.name == w.name; }))
      unique.push_back(std::move(w));
  out = std::move(unique);
  for (const auto& w : out)
    if (!w.package.empty() && !fs::exists(paths.build / w.binary))
      throw UsageError("workload '" + w.name + "' needs " + w.binary + ", which is not installed",
                       "install it: apt-get install " + w.package + " (scripts/install-deps installs every one)");
    else if (!fs::exists(paths.build / w.binary))
      throw UsageError("workload '" + w.name + "' is not built (" + (paths.build / w.binary).string() + ")", "run 'make build'");
    else if (!w.client_binary.empty() && !fs::exists(w.client_binary))
      throw UsageError("workload '" + w.name + "' needs its client " + w.client_binary + ", which is not installed",
                       "install it: apt-get install " + (w.package.empty() ? "its package" : w.package) +
                           " (scripts/install-deps installs every one)");
  return out;
}

void print_list(const Catalog& catalog, const Paths& paths, std::ostream& out) {
  out << fmt::sprintf("Allocators (allocators/allocators.json; more with --registry FILE or --alloc=/path/lib.so):\n");
  out << fmt::sprintf("  %-14s %-9s %-22s %s\n", "name", "installed", "version", "library / package");
  for (const auto& a : catalog.allocators) {
    if (!a.base.empty()) continue;
    std::string version = package_version(a.package);
    std::string where = a.candidates.empty() ? "(nothing preloaded)" : (a.installed ? a.library : a.candidates.front());
    out << fmt::sprintf("  %-14s %-9s %-22s %s  [%s]\n", a.name.c_str(), a.installed ? "yes" : "no",
                version.empty() ? "-" : version.c_str(), where.c_str(), a.package.c_str());
  }
  out << fmt::sprintf("\nVariants (an allocator with settings; --alloc=variants runs each after its base, and\n"
              "--alloc=ALLOCATOR:VARIABLE=VALUE makes one on the command line):\n");
  int variant_width = 14;
  for (const auto& a : catalog.allocators)
    if (!a.base.empty()) variant_width = std::max(variant_width, int(a.name.size()));
  for (const auto& a : catalog.allocators) {
    if (a.base.empty()) continue;
    std::string sets;
    for (const auto& [key, value] : a.settings) sets += (sets.empty() ? "" : " ") + key + "=" + value;
    out << fmt::sprintf("  %-*s %-9s %s\n  %-*s %-9s %s\n", variant_width, a.name.c_str(), a.installed ? "yes" : "no",
                sets.c_str(), variant_width, "", "", a.description.c_str());
  }
  out << fmt::sprintf("\nWorkloads (workloads/workloads.json; more with --workloads FILE):\n");
  int width = 20;
  for (const auto& w : catalog.workloads) width = std::max(width, int(w.name.size()));
  out << fmt::sprintf("  %-*s %-8s %-6s %s\n", width, "name", "family", "built", "description");
  for (const auto& w : catalog.workloads)
    out << fmt::sprintf("  %-*s %-8s %-6s %s\n", width, w.name.c_str(), w.family.c_str(),
                fs::exists(paths.build / w.binary) ? "yes" : "no", w.description.c_str());
  out << fmt::sprintf("\nlibmemprof.so: %s%s\n", paths.memprof.c_str(), fs::exists(paths.memprof) ? "" : " (not built: make build)");
}

}  // namespace allocstamp
