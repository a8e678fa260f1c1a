// commands/check.cpp — `bench check`, the regression gate: thresholds from the
// command line and the file, both sides read, compared, reported; the exit
// status says pass (0) or fail (1); unusable input is a UsageError (2).
#include <fstream>
#include <set>

#include "check.h"
#include "micro_results.h"
#include "check_report.h"
#include "commands.h"
#include "errors.h"
#include "runs.h"

namespace allocstamp {

int command_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  CheckConfig config;
  for (const std::string& t : options.thresholds) add_threshold(t, config.thresholds);
  if (!options.thresholds_file.empty()) add_thresholds_file(options.thresholds_file, config.thresholds);
  config.alpha = options.alpha;
  config.deterministic_only = options.deterministic_only;
  config.fail_on_missing = options.fail_on_missing;
  config.fail_on_change = options.fail_on_change;
  config.allow_different.insert(options.allow_different.begin(), options.allow_different.end());

  const RunsTable baseline = load_runs(options.baseline, "baseline");
  const RunsTable current = load_runs(options.current, "current");
  // Another machine changes every time: compared only when the user says so.
  if (const std::string machine = machine_difference(baseline, current); !machine.empty()) {
    if (!config.allow_different.count("machine"))
      throw UsageError("the two sides are not comparable: " + machine,
                       "compare folders measured on one machine, or allow it: --allow-different machine");
    err << "warning: " << machine << " (allowed by --allow-different machine)\n";
  }
  const CheckResult result =
      compare_runs(baseline, current, config, load_micro(options.baseline), load_micro(options.current));
  // A different allocator or compiler changes what even deterministic metrics are.
  std::vector<std::string> setup = setup_differences(baseline, current);

  if (!options.csv.empty() && options.csv != "-") {
    std::ofstream csv(options.csv, std::ios::trunc);
    write_check_csv(result, csv);
    csv.close();
    if (!csv) throw UsageError("cannot write " + options.csv, "choose a writable path for --csv");
  }
  if (options.csv == "-") {
    write_check_csv(result, out);
  } else {
    out << "comparing " << current.source << " with the baseline " << baseline.source << ": " << result.cells_compared
        << " cell(s) in both" << (config.deterministic_only ? ", deterministic metrics only" : "") << '\n';
    print_check_table(result, options.all, out);
  }
  // Warnings after the table, right above the verdict, where they are read.
  out.flush();
  for (const std::string& w : result.warnings) err << "warning: " << w << '\n';
  for (const std::string& d : setup)
    err << "warning: the two sides ran on different setups (" << d
        << "): a difference may come from there — re-record the baseline on this setup if so\n";
  for (const std::string& n : result.notes) err << "note: " << n << '\n';
  err.flush();
  (options.csv == "-" ? err : out) << check_verdict_line(result, config) << '\n';
  if (!result.not_comparable.empty()) {
    // Never compared silently: what differed, by name, and how to allow it.
    std::string names, what;
    for (const auto& [name, texts] : result.not_comparable) {
      names += (names.empty() ? "" : ",") + name;
      std::set<std::string> distinct(texts.begin(), texts.end());
      for (const std::string& t : distinct) what += (what.empty() ? "" : "; ") + t;
    }
    std::size_t cells = 0;
    for (const CheckRow& r : result.rows) cells += r.verdict == Verdict::not_comparable ? 1 : 0;
    throw UsageError(std::to_string(cells) + " cell(s) ran differently and were not compared (" + what + ")",
                     "compare folders run the same way, or allow the difference: --allow-different " + names);
  }
  return result.failed(config) ? 1 : 0;
}

}  // namespace allocstamp
