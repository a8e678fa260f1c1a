// overhead.cpp — `bench overhead`: what libmemprof.so costs. churn runs under
// each allocator alone and with each variant preloaded in front of it (memprof's
// modes, and two yardstick interposers), every variant once per round in an
// order rotated from round to round, and the table gives per allocator and
// variant the median over the rounds of (time with it / time alone in the same
// round), with the median's order-statistic interval. With `--load idle,busy`
// every round is run twice, once idle and once with one core kept busy by a
// spinning process, so the two conditions are measured side by side. The one
// place bench times memprof: the sweep's published times never come from it.
#include <CLI/CLI.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <cmath>
#include <map>
#include <optional>

#include "cli/numbers.h"
#include "cli/registry.h"
#include "cli/spelling.h"
#include "commands/commands.h"
#include "run/busy_core.h"
#include "run/environment.h"
#include "model/errors.h"
#include "run/executor.h"
#include "model/format.h"
#include "model/output_file.h"
#include "run/records.h"
#include "model/statistics.h"
#include "key_names.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// What a variant preloads in front of the allocator (a library of the build's
// lib/, or --baseline's for "baseline") and the variables it adds; {scratch} is
// the run's scratch folder.
struct Variant {
  const char* name;
  const char* library;
  std::vector<std::pair<std::string, std::string>> env;
  bool memprof;  // a run must leave a @memprof record counting every allocation
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all = {
      {"full", "libmemprof.so", {}, true},
      {"counts", "libmemprof.so", {{"MEMPROF_HEAP", "0"}}, true},
      {"forward", "libforward_only.so", {}, false},  // only forwards: what any interposer pays
      {"atomic", "libatomic_counters.so", {}, false},  // shared counters, as malloc_count keeps them
      {"sample", "libmemprof.so", {{"MEMPROF_SAMPLE_BYTES", "512K"}, {"MEMPROF_CALLSITES", "{scratch}/churn.sites"}}, true},
      {"trace", "libmemprof.so", {{"MEMPROF_TRACE", "{scratch}/churn.astrace"}}, true},
      {"baseline", "libmemprof.so", {}, true},  // full mode, from another build
  };
  return all;
}

const Variant& variant_named(const std::string& name) {
  for (const Variant& v : variants())
    if (name == v.name) return v;
  throw std::logic_error("unknown overhead variant " + name);
}

// With a baseline, full mode is also divided by the baseline's in each round.
constexpr const char* kVersusBaseline = "full/baseline";

fs::path library_of(const OverheadOptions& o, const fs::path& build, const Variant& v) {
  return (v.name == std::string("baseline") ? fs::path(o.baseline) : build) / "lib" / v.library;
}

// A run that failed or left no trustworthy record.
RunError run_failed(const std::string& what) {
  return RunError(what, "run churn by hand with the same LD_PRELOAD to see why");
}

class Timer {
 public:
  Timer(const OverheadOptions& o, fs::path churn, fs::path scratch) : o_(o), churn_(std::move(churn)), scratch_(std::move(scratch)) {}

  // Seconds of one churn run: wall clock, or the child's user + system time.
  double run(const Allocator& allocator, const std::string& in_front, const std::vector<std::string>& extra,
             bool memprof, const std::string& what) {
    Launch launch;
    launch.program = churn_.string();
    launch.args = {"--threads", std::to_string(o_.threads), "--iterations", std::to_string(o_.iterations), "--slots",
                   std::to_string(o_.slots), "--use", o_.use};
    launch.env = preloaded_environment(allocator, in_front, extra);
    launch.log_path = (scratch_ / "churn.log").string();
    launch.timeout_seconds = 3600;
    Finished f = executor_.run(launch);
    std::ifstream log(launch.log_path);
    std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    if (f.interrupted) throw RunError("interrupted during " + what, "run bench overhead again");
    if (f.start_failed || f.timed_out || f.signal != 0 || f.exit_code != 0 || output.rfind("churn: ", 0) != 0)
      throw run_failed(what + ": churn " +
                     (f.start_failed ? "did not start (" + f.error + ")"
                      : f.timed_out  ? "timed out"
                      : f.signal     ? "was killed by signal " + std::to_string(f.signal)
                                     : "exited with status " + std::to_string(f.exit_code)) +
                     "; its output: " + output.substr(0, 400));
    if (memprof) check_counted(parse_records(f.records, getpid()), what);
    return o_.clock == "cpu" ? double(f.user_ns + f.sys_ns) / 1e9 : double(f.wall_ns) / 1e9;
  }

 private:
  // Every malloc of churn was seen: none optimised away, none missed.
  void check_counted(const Records& r, const std::string& what) const {
    if (!r.has_memprof) throw run_failed(what + ": no @memprof record: libmemprof.so did not load or did not report");
    unsigned long long counted = 0;
    for (const char* key : {keys::allocs_seq_count, keys::allocs_par_count, keys::allocs_tx_count}) {
      auto it = r.memprof.find(key);
      if (it == r.memprof.end()) throw run_failed(what + ": the @memprof record lacks " + key);
      counted += std::stoull(it->second);
    }
    const unsigned long long expected = (unsigned long long)o_.threads * (unsigned long long)o_.iterations;
    if (counted < expected)
      throw run_failed(what + ": memprof counted " + std::to_string(counted) + " allocations, expected at least " +
                     std::to_string(expected) + " (threads x iterations)");
  }

  const OverheadOptions& o_;
  fs::path churn_, scratch_;
  ProcessExecutor executor_;
};

struct Row {
  std::string allocator, load, mode;
  std::size_t rounds;
  double median_without, median_with;
  double ratio_median, ratio_min, ratio_max;
  stats::MedianInterval interval;
  double busy_share;  // the spinner's mean share of a core in these rounds; NaN when idle
};


// What one load's rounds measured under one allocator: seconds per variant
// ("without" and each mode), and the spinner's share of a core per round.
struct LoadSeconds {
  std::map<std::string, std::vector<double>> seconds;
  std::vector<double> busy_shares;
};

double mean(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double sum = 0;
  for (double x : v) sum += x;
  return sum / double(v.size());
}

Row summarise(const std::string& allocator, const std::string& load, const std::string& mode,
              const LoadSeconds& measured, const std::string& reference_name, const std::string& with_name) {
  // The divisor's own median beside the variant's (the allocator alone, or
  // the baseline for full/baseline): the two times give the ratio.
  const std::vector<double>& reference = measured.seconds.at(reference_name);
  const std::vector<double>& with = measured.seconds.at(with_name);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < with.size(); ++i) ratios.push_back(with[i] / reference[i]);
  double lo = *std::min_element(ratios.begin(), ratios.end()), hi = *std::max_element(ratios.begin(), ratios.end());
  return {allocator, load, mode, ratios.size(), stats::median(reference), stats::median(with), stats::median(ratios), lo,
          hi, stats::median_interval(ratios), mean(measured.busy_shares)};
}

// One variant's run in the current round.
double time_variant(const OverheadOptions& o, const fs::path& build, const Allocator& allocator, Timer& timer,
                    const fs::path& scratch, const std::string& name, const std::string& what) {
  if (name == "without") return timer.run(allocator, "", {}, false, what);
  const Variant& v = variant_named(name);
  std::vector<std::string> extra;
  for (auto [key, value] : v.env) {
    if (auto at = value.find("{scratch}"); at != std::string::npos) value.replace(at, 9, scratch.string());
    extra.push_back(key + "=" + value);
  }
  return timer.run(allocator, library_of(o, build, v).string(), extra, v.memprof, what);
}

// Rounds under one allocator, per load: every round runs each load once (in
// an order rotated from round to round), and within it every variant once
// (rotated too); a busy load has the spinner running through all its variants.
std::map<std::string, LoadSeconds> measure(const OverheadOptions& o, const fs::path& build, const Allocator& allocator,
                                           Timer& timer, const fs::path& scratch, std::ostream& err) {
  std::vector<std::string> order = {"without"};
  order.insert(order.end(), o.modes.begin(), o.modes.end());
  std::map<std::string, LoadSeconds> measured;
  for (int round = 0; round < o.rounds; ++round) {
    err << "overhead: " << allocator.name << " round " << round + 1 << "/" << o.rounds << "\n";
    for (std::size_t l = 0; l < o.loads.size(); ++l) {
      const std::string& load = o.loads[(l + std::size_t(round)) % o.loads.size()];
      std::optional<BusyCore> spinner;
      if (load == "busy") spinner.emplace(3600.0 * double(order.size()));
      LoadSeconds& here = measured[load];
      for (std::size_t i = 0; i < order.size(); ++i) {
        const std::string& name = order[(i + std::size_t(round)) % order.size()];
        std::string what = allocator.name + ", round " + std::to_string(round + 1) + ", " + name;
        if (o.loads.size() > 1 || load != "idle") what += ", " + load;
        here.seconds[name].push_back(time_variant(o, build, allocator, timer, scratch, name, what));
      }
      if (spinner) here.busy_shares.push_back(spinner->stop());
    }
  }
  return measured;
}

// The load column is shown unless every round ran idle, as bench overhead always did.
bool shows_load(const std::vector<std::string>& loads) { return !(loads.size() == 1 && loads[0] == "idle"); }

Block results_table(const std::vector<Row>& rows, const std::vector<std::string>& modes, const std::string& clock,
                    bool with_load) {
  const std::string unit = clock == "cpu" ? "CPU s" : "s";
  std::vector<std::string> header = {"allocator"};
  if (with_load) header.push_back("load");
  header.push_back("without memprof (" + unit + ")");
  for (const std::string& m : modes) header.insert(header.end(), {m + " (" + unit + ")", m + " ratio, median [CI]"});
  std::vector<std::vector<std::string>> cells = {header};
  for (std::size_t i = 0; i < rows.size(); i += modes.size()) {
    std::vector<std::string> line = {rows[i].allocator};
    if (with_load) line.push_back(rows[i].load);
    line.push_back(number_text("%.3f", rows[i].median_without));
    for (std::size_t m = 0; m < modes.size(); ++m) {
      const Row& r = rows[i + m];
      line.push_back(number_text("%.3f", r.median_with));
      line.push_back(number_text("%.3f", r.ratio_median) + " [" + number_text("%.2f", r.interval.low) + "–" +
                     number_text("%.2f", r.interval.high) + "]");
    }
    cells.push_back(line);
  }
  return table(cells, with_load ? 2 : 1);
}

Block csv_table(const std::vector<Row>& rows, const std::string& clock) {
  std::vector<std::vector<std::string>> cells = {
      {"allocator", "mode", "clock", "rounds", "median_without_s", "median_with_s", "ratio_median", "ratio_min",
       "ratio_max", "ratio_median_ci_low", "ratio_median_ci_high", "ratio_median_ci_level", "load",
       "busy_core_share"}};
  auto six = [](double v) { return number_text("%.6f", v); };
  for (const Row& r : rows)
    cells.push_back({r.allocator, r.mode, clock, std::to_string(r.rounds), six(r.median_without), six(r.median_with),
                     six(r.ratio_median), six(r.ratio_min), six(r.ratio_max), six(r.interval.low),
                     six(r.interval.high), six(r.interval.coverage), r.load,
                     std::isnan(r.busy_share) ? std::string() : six(r.busy_share)});
  return table(cells);
}

}  // namespace

int command_overhead(const OverheadOptions& options, const Options& registries, const Paths& paths, std::ostream& out) {
  OverheadOptions o = options;
  // --alloc before the verb, or ALLOCSTAMP_ALLOC, names the allocators when
  // the verb's own --alloc does not ("all": every installed one, as without).
  if (o.alloc.empty() && std::find(registries.allocators.begin(), registries.allocators.end(), "all") ==
                             registries.allocators.end())
    o.alloc = registries.allocators;
  const bool has_baseline = std::find(o.modes.begin(), o.modes.end(), "baseline") != o.modes.end();
  if (!o.baseline.empty() && !has_baseline) o.modes.push_back("baseline");
  if (o.baseline.empty() && has_baseline)
    throw UsageError("the variant 'baseline' needs --baseline DIR", "name the build whose libmemprof.so it runs");
  for (std::size_t i = 0; i < o.loads.size(); ++i)
    if (std::find(o.loads.begin(), o.loads.begin() + long(i), o.loads[i]) != o.loads.begin() + long(i))
      throw UsageError("--load names " + o.loads[i] + " twice", "name each load once: --load idle,busy");
  // (A mode named twice would be timed twice a round, its times paired with
  // the rounds' alone past their end.)
  for (std::size_t i = 0; i < o.modes.size(); ++i)
    if (std::find(o.modes.begin(), o.modes.begin() + long(i), o.modes[i]) != o.modes.begin() + long(i))
      throw UsageError("--modes names " + o.modes[i] + " twice", "name each variant once: --modes full,counts");
  const fs::path build = o.build.empty() ? paths.build : fs::path(o.build);
  const fs::path churn = build / "bin" / "churn";
  std::vector<fs::path> needed = {churn};
  for (const std::string& m : o.modes) needed.push_back(library_of(o, build, variant_named(m)));
  for (const fs::path& p : needed)
    if (!fs::is_regular_file(p))
      throw UsageError(p.string() + " not found", "build first: cmake -S . -B " + build.string() + " && cmake --build " + build.string());

  // The CSV's folder, checked before the measurement (minutes), not after it.
  if (!o.csv.empty()) {
    const fs::path csv_parent = fs::absolute(o.csv).parent_path();
    std::error_code ec;
    if (!fs::is_directory(csv_parent, ec) || ::access(csv_parent.c_str(), W_OK) != 0)
      throw UsageError("--csv " + o.csv + ": " + csv_parent.string() + " is not a folder bench can write in",
                       "give a path in a writable folder");
    if (fs::is_directory(fs::symlink_status(o.csv, ec)))
      throw UsageError("--csv " + o.csv + " is a folder", "give the path of a file, e.g. --csv overhead.csv");
  }

  Catalog catalog = load_catalog(registries, paths);
  std::vector<Allocator> chosen;
  if (o.alloc.empty()) {
    for (const Allocator& a : catalog.allocators)
      if (a.installed) chosen.push_back(a);
      else std::cerr << "overhead: skipping " << a.name << ": not installed (" << install_hint(a) << ")\n";
  } else {
    for (const std::string& name : o.alloc) {
      auto it = std::find_if(catalog.allocators.begin(), catalog.allocators.end(),
                             [&](const Allocator& a) { return a.name == name; });
      if (it == catalog.allocators.end()) {
        std::string known;
        for (const Allocator& a : catalog.allocators) known += (known.empty() ? "" : ", ") + a.name;
        throw UsageError("unknown allocator '" + name + "'", "choose from " + known);
      }
      if (!it->installed)
        throw UsageError(name + " is not installed", install_hint(*it) + ", or leave it out of --alloc");
      chosen.push_back(*it);
    }
  }
  std::vector<std::string> modes = o.modes;
  if (std::find(modes.begin(), modes.end(), "full") != modes.end() && !o.baseline.empty()) modes.push_back(kVersusBaseline);

  std::string mode_list;
  for (const std::string& m : o.modes) mode_list += (mode_list.empty() ? "" : ", ") + m;
  std::cerr << "overhead: churn --threads " << o.threads << " --iterations " << o.iterations << " --slots " << o.slots
            << " --use " << o.use << ", variants " << mode_list << ", " << o.rounds << " rounds per allocator, "
            << o.clock << " clock";
  if (shows_load(o.loads)) {
    std::string load_list;
    for (const std::string& l : o.loads) load_list += (load_list.empty() ? "" : " and ") + l;
    std::cerr << ", each round " << load_list;
  }
  std::cerr << "\n";
  std::string pattern = (fs::temp_directory_path() / "bench-overhead-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))  // a fresh folder, mode 0700: nothing planted there is written through
    throw RunError("cannot make a scratch folder in " + fs::temp_directory_path().string(),
                   "check that TMPDIR (or /tmp) is writable");
  const fs::path scratch = pattern;
  install_interrupt_handlers();
  Timer timer(o, churn, scratch);
  std::vector<Row> rows;
  std::vector<std::string> failed;
  bool stopped = false;
  for (const Allocator& a : chosen) {
    if (stopped) break;
    try {
      auto measured = measure(o, build, a, timer, scratch, std::cerr);
      for (const std::string& load : o.loads)
        for (const std::string& m : modes)
          rows.push_back(m == kVersusBaseline ? summarise(a.name, load, m, measured.at(load), "baseline", "full")
                                              : summarise(a.name, load, m, measured.at(load), "without", m));
    } catch (const RunError& e) {
      if (interrupted()) {
        // The allocators measured before it keep their rows: printed and written below.
        std::cerr << "overhead: " << e.what() << "\n";
        if (!rows.empty()) std::cerr << "overhead: the table holds the allocators measured before it\n";
        stopped = true;
        continue;
      }
      // Reported; the other allocators are measured, and the command fails at the end.
      std::cerr << "error: " << e.what() << "\n";
      failed.push_back(a.name);
    }
  }
  fs::remove_all(scratch);
  if (!rows.empty()) {
    double coverage = 1;
    for (const Row& r : rows) coverage = std::min(coverage, r.interval.coverage);
    Document doc = {results_table(rows, modes, o.clock, shows_load(o.loads)),
                    paragraph("[CI]: the median ratio's interval, from the rounds' order statistics (coverage " +
                              number_text("%.1f", 100 * coverage) + "%; 95% needs at least 6 rounds).")};
    if (std::find(o.loads.begin(), o.loads.end(), "busy") != o.loads.end()) {
      std::string shares;
      for (std::size_t i = 0; i < rows.size(); i += modes.size())
        if (rows[i].load == "busy")
          shares += (shares.empty() ? "" : ", ") + rows[i].allocator + " " + number_text("%.2f", rows[i].busy_share);
      doc.push_back(paragraph("busy: a process spun beside every run of the busy rounds; its mean share of a core "
                              "(CPU s over wall s) per allocator: " + shares + "."));
    }
    out << render_markdown(doc);
    if (!o.csv.empty()) {
      try {
        replace_file(o.csv, render_csv(csv_table(rows, o.clock)));  // renamed into place: a link there is not followed
      } catch (const std::exception& e) {
        throw UsageError(std::string("--csv: ") + e.what(), "choose a writable --csv path");
      }
    }
  }
  if (stopped) return 130;
  if (!failed.empty()) {
    std::string names;
    for (const std::string& n : failed) names += (names.empty() ? "" : ", ") + n;
    std::cerr << "error: no figures for " << names << " (see above)\n";
    return 1;
  }
  return rows.empty() ? 1 : 0;
}

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines).
CLI::App* add_overhead_command(CLI::App& app, OverheadOptions& options) {
  CLI::App* overhead = app.add_subcommand(
      "overhead", "What memprof costs: churn timed with and without it under each allocator, interleaved");
  overhead->add_option("--rounds", options.rounds, "Rounds per allocator, each running every variant once, in rotated "
                       "order; from 9 the median's interval is narrower than the range")->check(whole_number(1, 1000))
      ->capture_default_str();
  overhead->add_option("--iterations", options.iterations, "churn's iterations per thread")->check(whole_number(1, 1LL << 40))
      ->capture_default_str();
  overhead->add_option("--use", options.use, "What churn writes into each new block: all of it, as a program would, or "
                       "its ends only (a bare malloc/free loop, memprof's worst case)")
      ->check(one_of({"all", "ends"}))->capture_default_str();
  overhead->add_option("--slots", options.slots, "Live blocks per thread: 4096 (about 2 MiB a thread) misses the caches, "
                       "256 stays in them")->check(whole_number(1, 1 << 24))->capture_default_str();
  overhead->add_option("--threads", options.threads, "churn's threads")->check(whole_number(1, 1024))->capture_default_str();
  overhead->add_option("--alloc", options.alloc, "Allocators from the registry (default: every installed one)")->delimiter(',');
  overhead->add_option("--modes", options.modes, "Variants timed against the allocator alone: full (memprof), counts "
                       "(memprof, MEMPROF_HEAP=0), forward (an interposer that only forwards: the floor), atomic "
                       "(malloc_count-style shared counters), sample (full mode sampling call sites every 512K), "
                       "trace (full mode writing MEMPROF_TRACE), baseline (full mode from --baseline DIR)")
      ->delimiter(',')->check(one_of({"full", "counts", "forward", "atomic", "sample", "trace", "baseline"}))
      ->capture_default_str();
  overhead->add_option("--baseline", options.baseline, "Another build folder (an earlier commit's) whose "
                       "lib/libmemprof.so runs in full mode as the variant 'baseline' in every round, and "
                       "full/baseline pairs the two round by round")->check(CLI::ExistingDirectory);
  overhead->add_option("--load", options.loads, "What runs beside churn: idle (nothing of bench's), busy (a process "
                       "spinning on one core); idle,busy runs every round both ways, side by side")
      ->delimiter(',')->check(one_of({"idle", "busy"}))->capture_default_str();
  overhead->add_option("--clock", options.clock, "wall: wall-clock time; cpu: the child's user + system time (less noisy "
                       "on a busy machine, blind to waiting)")->check(one_of({"wall", "cpu"}))->capture_default_str();
  overhead->add_option("--csv", options.csv, "Also write the rows as CSV to FILE");
  overhead->add_option("--build", options.build, "Build folder with bin/churn and lib/ (libmemprof.so, "
                       "libforward_only.so, libatomic_counters.so) (default: bench's)")->check(CLI::ExistingDirectory);
  overhead->footer("Prints, per allocator and variant, the median over the rounds of (time with it / time of the "
                   "allocator alone in the same round), with a distribution-free 95% interval for that median "
                   "(the rounds' order statistics). bench's own times never come from memprof; this is the one "
                   "place memprof is timed. With --load idle,busy each round runs both ways, and the spinner's share of a core "
                   "is printed.\n  bench overhead --alloc=glibc,jemalloc --rounds 15 --use ends --load idle,busy");
  return overhead;
}

}  // namespace allocstamp
