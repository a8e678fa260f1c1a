// cli.h — the pieces of bench's command line that every verb shares; each
// verb adds its own flags as a subcommand (commands/), and
// commands/command_line.cpp puts them together.
#pragma once
#include <string>
#include <vector>

#include "model/options.h"

namespace CLI {
class App;
}

namespace allocstamp {

// Flags of the main command line that are not options of a sweep.
struct SweepFlags {
  bool no_profile = false;  // --no-profile
  bool list = false;        // --list
  bool columns = false;     // --columns
};

// The words of the command line as CLI11 is to read them: list items trimmed
// ("tcmalloc, jemalloc"), thread ranges expanded ("1-4" → "1,2,3,4"); the
// ALLOCSTAMP_ALLOC, _WORKLOAD and _THREADS variables likewise (set again).
std::vector<std::string> normalized_words(int argc, char** argv);

// bench's name, examples, --version.
void configure_bench_app(CLI::App& app);

// The sweep's flags (the run verb's, and the registries other verbs read).
void add_sweep_flags(CLI::App& app, Options& options, SweepFlags& flags);

// Parses `argv`; false when --help or --version answered. A bad word is a
// UsageError naming the nearest flag and the verb's --help.
bool parse_words(CLI::App& app, int argc, char** argv);

// The sweep's options after parsing: the command line as typed
// (`typed_argv`), the flags given, paths made absolute (meta.json is read
// from anywhere), thread lists sorted; UsageError for what CLI11 let through
// (empty list items, an empty or non-UTF-8 --out, a timeout that is no number).
void finish_sweep_options(Options& options, const SweepFlags& flags, int argc, char** argv, char** typed_argv);

// "tcmalloc, jemalloc" -> "tcmalloc,jemalloc"; "1-4" -> "1,2,3,4" (UsageError for a bad range).
std::string trim_items(const std::string& list);
std::string expand_thread_ranges(const std::string& list);

}  // namespace allocstamp
