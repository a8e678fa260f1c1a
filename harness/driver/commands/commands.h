// commands.h — bench's verbs, one module each (commands/*.cpp); main parses
// the command line and calls one. Each returns the exit status: 0 ok, 1 a run
// or a check failed; bad input throws UsageError (exit 2).
#pragma once
#include <filesystem>
#include <ostream>
#include <string>

#include "output/document.h"
#include "cli/options.h"
#include "cli/selection.h"

namespace CLI {
class App;
}

namespace allocstamp {

// Each verb's flags, added to bench's command line as its subcommand by the
// verb's own module; cli.cpp calls them and tells from the returned
// subcommand which verb was given.
CLI::App* add_summarize_command(CLI::App& app, Command& command);
CLI::App* add_plot_command(CLI::App& app, Command& command);
CLI::App* add_check_command(CLI::App& app, CheckOptions& options);
CLI::App* add_merge_command(CLI::App& app, MergeOptions& options);
CLI::App* add_slurm_command(CLI::App& app, SlurmOptions& options);
CLI::App* add_trace_command(CLI::App& app, TraceOptions& options);
CLI::App* add_overhead_command(CLI::App& app, OverheadOptions& options);

// `bench [flags]`: the sweep (the default job when no workload is named), then
// figures and the report if the preset asks for them.
int command_run(Options options, const Paths& paths, std::ostream& out);
// `bench plot [DIR]`: figures and the report of a results folder (default results/latest).
int command_plot(const std::string& dir, const Paths& paths, std::ostream& out);
// `bench check --baseline A --current B`.
int command_check(const CheckOptions& options, std::ostream& out, std::ostream& err);
// `bench summarize DIR`: summary.csv again, and the ranking.
int command_summarize(const std::filesystem::path& dir, bool wide, std::ostream& out);
// `bench --list`: allocators, workloads and presets, installed or not.
int command_list(const Options& options, const Paths& paths, std::ostream& out);
// `bench slurm [sweep flags] --shards N`: the sweep as a Slurm job array.
int command_slurm(const Command& command, const Paths& paths, std::ostream& out);
// `bench merge OUT PART...`: one folder from a sharded sweep's parts.
int command_merge(const MergeOptions& options, std::ostream& out);
// `bench trace record|stats|replay` (the replay also reads the run options).
int command_trace(const Command& command, const Paths& paths, std::ostream& out);
// `bench overhead`: churn timed with and without memprof (and the yardstick
// interposers) under each allocator, interleaved; `registries` names the allocators.
int command_overhead(const OverheadOptions& options, const Options& registries, const Paths& paths, std::ostream& out);
// `bench --columns`: runs.csv's columns with their meaning (Markdown).
int command_columns(std::ostream& out);
// The table --columns prints: one row per column of runs.csv.
Block columns_table();

}  // namespace allocstamp
