// commands.h — bench's verbs, one module each (commands/*.cpp); main parses
// the command line and calls one. Each returns the exit status: 0 ok, 1 a run
// or a check failed; bad input throws UsageError (exit 2).
#pragma once
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "output/document.h"
#include "model/catalog.h"
#include "model/options.h"
#include "run/executor.h"

namespace CLI {
class App;
}

namespace allocstamp {

struct ResultsView;   // results/results_view.h
struct CellSummary;   // analysis/cell_summary.h

// Each verb's flags, added to bench's command line as its subcommand by the
// verb's own module; command_line.cpp calls them and tells from the returned
// subcommand which verb was given.
CLI::App* add_summarize_command(CLI::App& app, Command& command);
CLI::App* add_plot_command(CLI::App& app, Command& command);
CLI::App* add_check_command(CLI::App& app, CheckOptions& options);
CLI::App* add_merge_command(CLI::App& app, MergeOptions& options);
CLI::App* add_slurm_command(CLI::App& app, SlurmOptions& options);
CLI::App* add_trace_command(CLI::App& app, TraceOptions& options);
CLI::App* add_overhead_command(CLI::App& app, OverheadOptions& options);

// Parses the command line (flags fall back to ALLOCSTAMP_* variables) into
// the verb and its options; the verb is `answered` when --help or --version
// was. Throws UsageError on bad input.
Command parse_command_line(int argc, char** argv);

// The run verb's preset: choose_preset (cli/presets.h) for a new sweep; none
// for --resume, whose options (the preset's among them) are its folder's.
void choose_run_preset(Options& options, const Paths& paths, std::ostream& out);
// One bench invocation from validated options to a results folder: plan, run
// each cell in a fresh child, append every row as it ends, then summary.csv
// and the ranking. Exit status: 0 done, 1 some run did not succeed, 130
// interrupted (resume with --resume). `results_dir`, when given, receives the
// folder the sweep wrote (empty for --dry-run).
int run_sweep(Options options, const Paths& paths, Executor& executor, std::ostream& out,
              std::filesystem::path* results_dir = nullptr);

// `bench [flags]`: the sweep (the default job when no workload is named), then
// figures and the report if the preset asks for them.
int command_run(Options options, const Paths& paths, std::ostream& out);
// `bench plot [DIR]`: figures and the report of a results folder (default results/latest).
int command_plot(const std::string& dir, const Paths& paths, std::ostream& out, bool per_comparison = false);
// The figures and the report of `dir`: 0 when every figure that applies was
// drawn, 1 when gnuplot failed on one. UsageError for a missing or malformed
// folder, RunError when gnuplot is not installed, both before anything is written.
int plot_folder(const std::filesystem::path& dir, const Paths& paths, std::ostream& out, bool per_comparison = false);
// What drawing a folder's figures and report gave: the figures drawn, those
// that did not apply, whether gnuplot failed on one. Each figure's line goes
// to `log`; errors as plot_folder's.
struct DrawnFolder {
  std::size_t figures = 0, not_drawn = 0;
  bool failed = false;
};
DrawnFolder draw_folder(const std::filesystem::path& dir, const Paths& paths, std::ostream& log, bool per_comparison);
// The same for a folder already read, its cells summarized.
DrawnFolder draw_folder(const ResultsView& view, const std::vector<CellSummary>& cells, const Paths& paths,
                        std::ostream& log);
// `bench check --baseline A --current B`.
int command_check(const CheckOptions& options, std::ostream& out, std::ostream& err);
// `bench summarize DIR`: summary.csv again, and the ranking.
int command_summarize(const std::filesystem::path& dir, bool wide, bool per_comparison, std::ostream& out);
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
