// commands/run.cpp — `bench [flags]`: the preset (the default job, narrowed by
// the flags, when none is named), the sweep with the real process executor, then the
// figures and the report when the preset asks for them.
#include "commands.h"
#include "run/executor.h"
#include "figures/plot.h"
#include "cli/presets.h"
#include "run/sweep.h"

namespace allocstamp {

int command_run(Options options, const Paths& paths, std::ostream& out) {
  choose_preset(options, paths.source / "workloads" / "presets.json", out);
  ProcessExecutor executor;
  std::filesystem::path results;
  int status = run_sweep(options, paths, executor, out, &results);
  if (!options.plot_after || results.empty() || status > 1) return status;
  out << "\ndrawing the figures and the report (bench plot " << results.string() << ")\n";
  int drawn = run_plot(results, paths, out);
  return status != 0 ? status : drawn;
}

}  // namespace allocstamp
