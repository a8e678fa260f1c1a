// main.cpp — bench: arguments → options → sweep (or --list, summarize, check, plot). Typed
// errors are caught here once: "error: what — how to fix", exit 2 for bad usage.
#include <iostream>

#include "check_report.h"
#include "document.h"
#include "errors.h"
#include "executor.h"
#include "options.h"
#include "plot.h"
#include "presets.h"
#include "ranking.h"
#include "results.h"
#include "selection.h"
#include "sweep.h"

int main(int argc, char** argv) {
  using namespace allocstamp;
  try {
    Options options;
    if (!parse_command_line(argc, argv, options)) return 0;
    if (options.check) return run_check(options, std::cout, std::cerr);
    Paths paths = default_paths();
    if (options.plot) {
      std::filesystem::path dir = options.plot_dir;
      return run_plot(dir.empty() ? paths.source / "results" / "latest" : dir, paths, std::cout);
    }
    if (!options.summarize.empty()) {
      auto summary = write_summary(options.summarize);
      print_ranking(options.summarize, std::cout);
      std::cout << "\nwrote " << summary.string() << "\n";
      return 0;
    }
    if (options.columns) {
      Block columns = table({{"column", "meaning"}}, 2);
      columns.code_columns = 1;
      for (const Column& c : run_columns()) columns.rows.push_back({c.name, c.meaning});
      std::cout << render_markdown({columns});
      return 0;
    }
    const std::filesystem::path presets_file = paths.source / "workloads" / "presets.json";
    if (options.list) {
      print_list(load_catalog(options, paths), paths);
      print_presets(load_presets(presets_file));
      return 0;
    }
    choose_preset(options, presets_file, std::cout);
    ProcessExecutor executor;
    std::filesystem::path results;
    int status = run_sweep(options, paths, executor, std::cout, &results);
    if (!options.plot_after || results.empty() || status > 1) return status;
    std::cout << "\ndrawing the figures and the report (bench plot " << results.string() << ")\n";
    int drawn = run_plot(results, paths, std::cout);
    return status != 0 ? status : drawn;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const RunError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << " — this is a bug in bench; please report it\n";
    return 1;
  }
}
