// commands/check.cpp — `bench check`, the regression gate: thresholds from the
// command line and the file, both sides read, compared, reported; the exit
// status says pass (0) or fail (1); unusable input is a UsageError (2).
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include "cli/spelling.h"
#include "analysis/check.h"
#include "analysis/check_pairing.h"
#include "analysis/check_rules.h"
#include "results/micro_results.h"
#include "output/check_report.h"
#include "commands/commands.h"
#include "model/errors.h"
#include "model/output_file.h"
#include "results/side_tables.h"
#include "results/runs.h"

namespace allocstamp {

namespace fs = std::filesystem;

int command_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  // Two folders or none said which is missing (CLI11's "--current is required"
  // named a flag the user may never have heard of).
  if (options.baseline.empty() && options.current.empty())
    throw UsageError("bench check compares two results folders and was given none",
                     "name the known-good runs and the runs to judge: bench check BASELINE CURRENT");
  if (options.baseline.empty())
    throw UsageError("bench check was given the runs to judge (" + options.current + ") but no baseline",
                     "name the known-good runs too: bench check BASELINE " + options.current);
  if (options.current.empty())
    throw UsageError("bench check compares two results folders and was given one (" + options.baseline +
                         ", taken as the baseline)",
                     "name the runs to judge after it: bench check " + options.baseline + " CURRENT");
  CheckConfig config;
  for (const std::string& t : options.thresholds) add_threshold(t, config.thresholds);
  if (!options.thresholds_file.empty()) add_thresholds_file(options.thresholds_file, config.thresholds);
  config.alpha = options.alpha;
  config.deterministic_only = options.deterministic_only;
  config.fail_on_missing = options.fail_on_missing;
  config.fail_on_change = options.fail_on_change;
  config.fail_on_undecided = options.fail_on_undecided;
  config.trust_busy = options.trust_busy;
  config.allow_different.insert(options.allow_different.begin(), options.allow_different.end());

  // The CSV goes beside the folders, never into one: bench check A B --csv
  // B/runs.csv replaced the runs it had just read. Its folder is checked
  // before anything is compared: a CSV that cannot be written is bad usage
  // (exit 2), never the exit 1 of a regression a gate would read.
  if (!options.csv.empty() && options.csv != "-") {
    const fs::path csv_parent = fs::absolute(options.csv).parent_path();
    std::error_code ec;
    if (!fs::is_directory(csv_parent, ec) || ::access(csv_parent.c_str(), W_OK) != 0)
      throw UsageError("--csv " + options.csv + ": " + csv_parent.string() + " is not a folder bench can write in",
                       "give a path in a writable folder, or --csv - for standard output");
    const fs::path csv_folder = fs::weakly_canonical(fs::absolute(options.csv).parent_path(), ec);
    for (const std::string& side : {options.baseline, options.current}) {
      const fs::path folder = fs::is_directory(side, ec) ? fs::path(side) : fs::path(side).parent_path();
      const fs::path resolved = fs::weakly_canonical(fs::absolute(folder), ec);
      const auto [end, _] = std::mismatch(resolved.begin(), resolved.end(), csv_folder.begin(), csv_folder.end());
      if (end == resolved.end())
        throw UsageError("--csv " + options.csv + " is inside the results folder " + folder.string() +
                             ", whose files bench reads",
                         "write the CSV outside both folders, e.g. --csv check.csv");
    }
  }
  const RunsTable baseline = load_runs(options.baseline, "baseline");
  const RunsTable current = load_runs(options.current, "current");
  check_side_tables(options.current);  // the folders' other files, read by one reader each
  check_side_tables(options.baseline);
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
    std::ostringstream csv;
    write_check_csv(result, csv);
    try {
      replace_file(options.csv, csv.str());  // a fresh file renamed into place: a link there is replaced, not followed
    } catch (const RunError& e) {
      throw UsageError(std::string("--csv: ") + e.what(), "give a path in a writable folder with room, or --csv - for standard output");
    }
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
  if (const std::string unknown = unknown_machine(baseline, current); !unknown.empty()) err << "warning: " << unknown << '\n';
  for (const std::string& d : setup)
    err << "warning: the two sides ran on different setups (" << d
        << "): a difference may come from there — re-record the baseline on this setup if so\n";
  for (const std::string& n : result.notes) err << "note: " << n << '\n';
  if (const std::string seen = check_detectable_line(result); !seen.empty()) err << seen << '\n';
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
    throw UsageError(std::to_string(result.cells_not_compared()) + " cell(s) ran differently and were not compared (" + what + ")",
                     "compare folders run the same way, or allow the difference: --allow-different " + names);
  }
  return result.failed(config) ? 1 : 0;
}

namespace {

// The names --allow-different accepts, as its parser takes them (difference_names()).
std::string difference_list() {
  std::string list;
  for (const std::string& name : difference_names()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

const char* const kCheckFooterPairing = R"(Cells are paired by workload, app, size, allocator and threads, and compared only
  when they ran the same way: the same workload arguments (runs.csv's args), the
  same allocator library and allocator environment (MALLOC_CONF, MIMALLOC_*, ...),
  the same TM method, simulated on the same simulator (bench --simulate), on the
  same machine (meta.json). A pair that differs is listed as "not comparable",
  naming the difference, and the check exits 2 unless --allow-different names
  every difference ()";

const char* const kCheckFooter = R"().
Each compared cell is judged on its ok runs:
  deterministic metrics (counts, requested bytes, live blocks) at 1 thread exactly,
  or against the range the baseline's allocators span where they disagree on one
  (it then depends on the allocator: libitm's logs follow where blocks land);
  times and memory (and every metric at threads > 1) by one estimate, the
  geometric mean (the median where a value is 0), with a threshold (time 5%,
  memory and counts 20%) and Welch's t on the logs (the U-test where a value is
  0): the change shown is the quotient of the two estimates shown. An allocator's
  times are compared as its ratio to the reference's in the same repetition
  (drift cancels; both columns show that ratio), the reference's after the
  sweep-wide drift is taken out of the current side (the column shows it so);
  p-values are adjusted by Benjamini-Hochberg per family (time, memory, counts):
  a change is significant when q < --alpha (a level for the q-values, not for
  each test). Cells measured on a busy machine are named.
  Simulated figures (bench --simulate) and kernel counts (minor faults of the
  timed runs, the allocator's kernel calls by kind) by the two sides' medians
  against their repeatability: the larger of a floor (simulated 0.5-5%, minor
  faults 5%, kernel calls 10% and 2 calls; more where workers ran side by side)
  and three times the widest spread of either side's repetitions. Kernel counts
  are compared only between sweeps on one kernel and huge-page mode, and not
  where the allocator's library or tuning differs (docs/check.md).
  Each time also gets the smallest slowdown its repetitions could detect (power
  0.8, at alpha over the number of times tested: one change alone must pass the
  correction): "detects" in the table, detectable_pct in the CSV.
Verdicts: ok, regressed (worse beyond the threshold: exactly, or significantly),
  improved, noisy (beyond the threshold, not significant), undecided (a time
  whose repetitions could not have detected a change of its threshold: more
  --reps, or a quieter machine, decide it), suspect (a time that moved beyond
  its threshold on a busy machine: not a failure unless --trust-busy), missing (a cell or metric on one
  side only), failed (runs that were ok in the baseline now fail), not
  comparable (the cells ran differently).
Exit status: 0 pass, 1 regressed or failed (missing too with --fail-on-missing, a
  deterministic metric that fell too with --fail-on-change, an undecided time
  too with --fail-on-undecided),
  2 unusable input (missing file, not runs.csv, another schema, damaged rows) or
  cells that ran differently.

Examples:
  bench check --baseline results/base --current results/latest
  bench check results/base results/latest   (the same)
  bench check --baseline a --current b --threshold elapsed_ns=10 --threshold memory=8
  bench check --baseline results/base --current results/latest --deterministic-only   (CI)
  bench check --baseline old --current new --allow-different library   (an allocator upgrade)
  git bisect run sh -c 'make build >/dev/null || exit 125
    ./bench --alloc=glibc --workload=churn --size=tiny --out=/tmp/bisect-$$ >/dev/null
    ./bench check --baseline /tmp/good --current /tmp/bisect-$$ --deterministic-only')";


}  // namespace

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines).
CLI::App* add_check_command(CLI::App& app, CheckOptions& options) {
  CLI::App* check = app.add_subcommand(
      "check", "Compare two results folders cell by cell: the regression gate (exit 0 pass, 1 regressed, 2 bad input)");
  check->footer(kCheckFooterPairing + difference_list() + kCheckFooter);
  // Either as flags or in that order as the first two words: bench check BASE CURRENT.
  check->add_option("baseline,--baseline", options.baseline, "The known-good results: a folder or its runs.csv (the first word)");
  check->add_option("current,--current", options.current, "The results to judge: a folder or its runs.csv (the second word)");
  check->add_option("--threshold", options.thresholds,
                    "metric=percent, or a group (time, memory, deterministic, simulated, kernel)=percent; repeat or "
                    "comma-separate")
      ->delimiter(',');
  check->add_option("--thresholds", options.thresholds_file,
                    "JSON file of thresholds, {\"elapsed_ns\": 10, \"memory\": 8}; --threshold wins")
      ->envname("ALLOCSTAMP_CHECK_THRESHOLDS");
  check->add_option("--alpha", options.alpha,
                    "False-discovery level: a change is significant when its Benjamini-Hochberg q-value is below it")
      ->envname("ALLOCSTAMP_CHECK_ALPHA")
      // Below 1e-6 the power and quantiles behind a verdict leave double's range (--alpha 0 overflowed).
      ->check(CLI::Validator(
          [](std::string& value) {
            char* end = nullptr;
            const double alpha = std::strtod(value.c_str(), &end);
            if (*end != '\0' || alpha != alpha) return std::string();  // not a number: said as such below
            return alpha >= 1e-6 && alpha <= 0.5 ? std::string()
                                                 : "'" + value + "' is not a level from 0.000001 to 0.5 (e.g. 0.05)";
          },
          "LEVEL"));
  check->add_option("--allow-different", options.allow_different,
                    "Compare cells that ran differently in these ways: " + difference_list() +
                        " (comma-separated); by default such cells are not comparable (exit 2)")
      ->delimiter(',')->check(one_of(difference_names()));
  check->add_flag("--deterministic-only", options.deterministic_only,
                  "Compare only the deterministic metrics (counts and requested bytes at 1 thread), the simulated "
                  "ones (bench --simulate), the kernel counts (minor faults, the allocator's kernel calls) and "
                  "whether the runs failed")
      ->envname("ALLOCSTAMP_CHECK_DETERMINISTIC_ONLY");
  check->add_flag("--fail-on-missing", options.fail_on_missing, "A cell or metric absent from --current fails the check");
  check->add_flag("--fail-on-change", options.fail_on_change,
                  "A deterministic metric that moved either way fails (fewer allocations too: for a CI gate, "
                  "where an intended change re-records the baseline)");
  check->add_flag("--fail-on-undecided", options.fail_on_undecided,
                  "A time whose repetitions could not have detected a change of its threshold fails (a gate that "
                  "must see the threshold, not only not see a change)");
  check->add_flag("--trust-busy", options.trust_busy,
                  "Judge times measured on a busy machine too (by default a time that moved while other processes "
                  "took the CPU is 'suspect', which does not fail the check)");
  check->add_flag("--all", options.all, "Print every row, not only those that are not ok");
  check->add_option("--csv", options.csv, "Also write every row as CSV to this file (-: CSV on stdout instead of the table)");
  return check;
}

}  // namespace allocstamp
