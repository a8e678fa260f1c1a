// commands.h — bench's verbs, one module each (commands/*.cpp); main parses
// the command line and calls one. Each returns the exit status: 0 ok, 1 a run
// or a check failed; bad input throws UsageError (exit 2).
#pragma once
#include <filesystem>
#include <ostream>
#include <string>

#include "document.h"
#include "options.h"
#include "selection.h"

namespace allocstamp {

// `bench [flags]`: the sweep (the default job when no workload is named), then
// figures and the report if the preset asks for them.
int command_run(Options options, const Paths& paths, std::ostream& out);
// `bench plot [DIR]`: figures and the report of a results folder (default results/latest).
int command_plot(const std::string& dir, const Paths& paths, std::ostream& out);
// `bench check --baseline A --current B`.
int command_check(const CheckOptions& options, std::ostream& out, std::ostream& err);
// `bench summarize DIR`: summary.csv again, and the ranking.
int command_summarize(const std::filesystem::path& dir, std::ostream& out);
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
