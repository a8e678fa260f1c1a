// commands/trace.cpp — `bench trace record|stats|replay`: record a program's
// allocation calls once (memprof with MEMPROF_TRACE), compute memprof's figures
// from the trace, and replay it under the allocators of --alloc as a workload
// like any other (the replay program, workloads/replay).
#include <CLI/CLI.hpp>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/numbers.h"
#include "cli/spelling.h"
#include "commands/commands.h"
#include "model/digest.h"
#include "model/errors.h"
#include "model/output_file.h"
#include "run/process_tree.h"
#include "run/records.h"
#include "replay_plan.h"
#include "trace_compress.h"
#include "trace_reader.h"
#include "trace_agreement.h"
#include "trace_stats.h"
#include "keys.h"
#include "memprof_limits.h"
#include "model/format.h"
#include "key_names.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

trace::Trace load(const std::string& file) {
  try {
    return trace::read_trace(file);
  } catch (const trace::TraceError& e) {
    std::string message = e.what();  // "what — how to fix"
    std::size_t dash = message.rfind(" — ");
    if (dash == std::string::npos) throw UsageError(message, "record the trace again");
    throw UsageError(message.substr(0, dash), message.substr(dash + std::strlen(" — ")));
  }
}

// A figure's unit: keys.def's, else what its name ends in.
std::string unit_of(const std::string& key) {
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == key) return std::string(k.unit);
  auto ends = [&](const std::string& tail) {
    return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends("_bytes") ? "bytes" : ends("_ns") ? "ns" : "count";
}

int stats(const TraceOptions& o, std::ostream& out) {
  trace::Trace t = load(o.file);
  trace::Figures figures = trace::compute_figures(t);
  if (o.as_record) {
    out << "@memprof format=1 program=" << (t.program.empty() ? "?" : fs::path(t.program).filename().string())
        << " source=trace";
    for (const auto& [key, value] : figures) out << ' ' << key << '=' << value;
    out << '\n';
    return 0;
  }
  std::size_t calls = 0;
  for (const auto& th : t.threads) calls += th.calls.size();
  out << o.file << ": " << t.program << " (pid " << t.pid << "), " << t.threads.size() << " thread(s), " << calls
      << " calls, " << t.blocks << " blocks, " << std::fixed << std::setprecision(1) << double(t.duration_ns) / 1e6
      << " ms recorded\n";
  // In a person's units, the figures that are 0 (a program without
  // transactions has every tx_* figure 0) left out and counted.
  std::size_t zero = 0;
  for (const auto& [key, value] : figures) {
    if (value == 0) {
      ++zero;
      continue;
    }
    out << "  " << std::left << std::setw(34) << key << human_text(double(value), unit_of(key)) << '\n';
  }
  if (zero > 0) out << "  (" << zero << " figure(s) are 0 and not shown; --record prints every one, exact)\n";
  return 0;
}

// The replay as a workload of its own, in a file beside the trace's results.
int replay(const Command& command, const Paths& paths, std::ostream& out) {
  const TraceOptions& o = command.trace;
  trace::Trace t = load(o.file);  // refuse a damaged trace before anything runs
  Options run = command.run;
  // The replay runs the recorded threads as they ran: a thread count would
  // label the same replay as other cells (t=4, three profiled runs).
  if (run.threads != std::vector<int>{1})
    throw UsageError("--threads does not go with bench trace replay: the replay runs the trace's " +
                         std::to_string(t.threads.size()) + " thread(s) as they were recorded",
                     "leave out --threads");
  // Its one workload is the trace, at the size it was recorded: another
  // --workload was replaced silently, a --size only labelled the cells.
  for (const char* flag : {"--workload", "--size"})
    if (std::find(run.given.begin(), run.given.end(), flag) != run.given.end())
      throw UsageError(std::string(flag) + " does not go with bench trace replay: the replay's one workload is the "
                                           "trace, as it was recorded",
                       std::string("leave out ") + flag + "; --alloc and --reps choose its runs");
  // Its cells are labelled as it runs: at the most threads the trace had
  // alive at once (it was labelled 1 thread, given the profiled runs of one),
  // and at the default size, whatever ALLOCSTAMP_SIZE says (it only labelled them).
  int most_threads = 1;
  for (const auto& [key, value] : trace::compute_figures(t))
    if (key == keys::threads_peak_count) most_threads = std::max(1, int(value));
  run.threads = {most_threads};
  run.size = Options{}.size;
  const std::string file = fs::absolute(o.file).string();
  // The replay maps a plan of the trace written here, outside the measured
  // process: beside the trace (kept for --resume), else in the temporary
  // folder. Named by its content: another trace recorded to the same path
  // has another plan, so a resume of this replay replays this trace (one
  // plan for every trace there once made a resume replay the newer one), and
  // written as a fresh file renamed into place (a link there is replaced, not followed).
  const std::string bytes = trace::plan_bytes(t);
  const std::string plan_name = fs::path(file).filename().string() + ".plan." + digest_of(bytes).substr(0, 12);
  std::string plan = (fs::path(file).parent_path() / plan_name).string();
  try {
    replace_file(plan, bytes);
  } catch (const RunError&) {
    plan = (fs::temp_directory_path() / plan_name).string();
    try {
      replace_file(plan, bytes);
    } catch (const RunError& e) {
      throw RunError(e.what(), "the replay needs room for its plan (about 60 bytes per call)");
    }
  }
  const std::string program = t.program.empty() ? "?" : t.program;
  t = trace::Trace{};  // the trace's memory back before the runs
  nlohmann::json entry = {
      {"name", "replay"},
      {"family", "replay"},
      {"binary", "bin/replay"},
      {"args", {plan, "--timing", o.timing, "--gap-ms", std::to_string(o.gap_ms), "--touch", o.touch}},
      {"contract", false},
      // The replay marks its measured phase (workloads/replay/replay.cpp): a
      // simulated replay counts that, not its start-up and the plan's mapping.
      {"marks_phase", true},
      {"description", "replay of " + file + " (" + program + ")"}};
  nlohmann::json doc = {{"schema", 1}, {"workloads", {entry}}};
  // Kept beside the plan, named by its content (replays of one trace with
  // other options do not share it): meta.json names it, and bench --resume
  // DIR --workloads FILE finishes an interrupted replay with it.
  const std::string text = doc.dump(2) + "\n";
  const fs::path listing = plan + "." + digest_of(text).substr(0, 12) + ".json";
  replace_file(listing, text);
  run.workloads = {"replay"};
  run.workload_files.push_back(listing.string());
  run.own_job = true;  // the replay's own matrix, not the default job's
  return command_run(run, paths, out);
}

// The program being recorded, for the signal handler (0: none).
volatile sig_atomic_t recorded_pid = 0;
void forward_to_recorded(int sig) {
  if (recorded_pid > 0 && sig != SIGINT) kill(pid_t(recorded_pid), sig);  // Ctrl-C reaches it from the terminal itself
}

// Runs the program with memprof and the trace on; its record goes beside the trace.
int record(const TraceOptions& o, const Paths& paths, std::ostream& out) {
  if (o.program.empty()) throw UsageError("no program to record", "give it after --: bench trace record -- ls -l");
  if (!fs::exists(paths.memprof))
    throw UsageError(paths.memprof.string() + " is missing", "build first: make build");
  // Absolute before the program starts: a wrapper that changes directory
  // (cd sub && exec python3 "$@") would have memprof write a relative path there.
  std::string file =
      fs::absolute(o.file.empty() ? fs::path(o.program[0]).filename().string() + ".astrace" : o.file).string();
  std::string record_file = file + ".memprof";
  std::string raw_file = o.raw ? file : file + ".raw";  // memprof writes it uncompressed
  for (const std::string& path : {raw_file, record_file})
    if (path.size() >= ALLOCSTAMP_MEMPROF_PATH_BYTES)
      throw UsageError("--trace: memprof would write " + path + ", " + std::to_string(path.size()) +
                           " bytes long; it takes paths of at most " + std::to_string(ALLOCSTAMP_MEMPROF_PATH_BYTES - 1) +
                           " bytes",
                       "give a shorter --trace path");
  // Where the recording goes, checked before the program runs (a run of an
  // hour is not lost to a path that cannot take its trace).
  const fs::path folder = fs::path(file).parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw UsageError("--trace: the folder " + folder.string() + " does not exist", "create it, or give another --trace path");
  if (::access(folder.c_str(), W_OK) != 0)
    throw UsageError("--trace: cannot write in " + folder.string(), "give a --trace path in a writable folder");
  for (const std::string& path : {file, raw_file, record_file})
    if (const fs::file_status s = fs::symlink_status(path, ec); fs::is_directory(s))
      throw UsageError("--trace: " + path + " is a folder", "give --trace the path of a file (e.g. " +
                                                                 fs::path(o.program[0]).filename().string() + ".astrace)");
  // This recording's files only: a stale trace left at the path (--raw writes
  // the trace itself there) was read as this one's when the program could not start.
  fs::remove(record_file);
  fs::remove(raw_file);
  std::string preload = paths.memprof.string();
  if (const char* had = std::getenv("LD_PRELOAD"); had && *had) preload += std::string(":") + had;

  const pid_t bench_pid = getpid();
  // bench is the subreaper of what the program starts: a background job a
  // killed shell leaves comes back to bench and is killed with the recording
  // (it once ran on under init).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const std::set<pid_t> children_before = children_of_bench();
  pid_t pid = fork();
  if (pid < 0) throw RunError(std::string("fork failed: ") + std::strerror(errno), "free some memory or processes");
  if (pid == 0) {
    // bench gone (killed, its terminal closed, a test that gave up on it):
    // the recorded program goes too, never left running on its own.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != bench_pid) _exit(1);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("MEMPROF_TRACE", raw_file.c_str(), 1);
    setenv("MEMPROF_OUT", record_file.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : o.program) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "error: cannot run %s: %s — give a program on PATH or its path\n", argv[0],
                 std::strerror(errno));
    _exit(127);
  }
  // SIGTERM or SIGHUP to bench goes on to the program (Ctrl-C reaches it from
  // the terminal), and bench waits for it to end.
  recorded_pid = pid;
  struct sigaction forward {};
  forward.sa_handler = forward_to_recorded;
  sigemptyset(&forward.sa_mask);
  struct sigaction was_term {}, was_hup {}, was_int {};
  sigaction(SIGTERM, &forward, &was_term);
  sigaction(SIGHUP, &forward, &was_hup);
  sigaction(SIGINT, &forward, &was_int);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGTERM, &was_term, nullptr);
  sigaction(SIGHUP, &was_hup, nullptr);
  sigaction(SIGINT, &was_int, nullptr);
  recorded_pid = 0;
  kill_orphans(children_before);
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127 && !fs::exists(raw_file)) return 2;
  // A program that failed is recorded as far as it ran, and bench says so
  // last and exits 1: a script recording it sees the failure.
  const bool program_failed = !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0;
  const std::string how_it_ended = WIFEXITED(wstatus) ? "exit status " + std::to_string(WEXITSTATUS(wstatus))
                                                      : "signal " + std::to_string(WTERMSIG(wstatus));
  if (program_failed) out << "note: " << o.program[0] << " ended with " << how_it_ended << "\n";
  trace::Trace t = load(raw_file);
  uint64_t raw_bytes = fs::file_size(raw_file), bytes = raw_bytes;
  if (!o.raw) {
    try {
      bytes = trace::compress_trace(raw_file, file).compressed_bytes;
    } catch (const trace::TraceError& e) {
      throw RunError(e.what(), "the uncompressed trace is kept in " + raw_file);
    }
    fs::remove(raw_file);
  }
  std::ifstream in(record_file);
  std::stringstream text;
  text << in.rdbuf();
  KeyValues live = parse_records(text.str()).memprof;
  if (live.empty())
    throw RunError("memprof wrote no record to " + record_file,
                   "the program may have been killed by a signal, ended with a raw exit_group or execve system call "
                   "(which memprof cannot see), or exec'd a program without memprof (an environment without its "
                   "LD_PRELOAD, as env -i gives: that program is not traced, and exec skips the record the exit "
                   "would have written)");

  // The trace's figures beside memprof's live ones: they must be equal.
  trace::Figures figures = trace::compute_figures(t);
  std::size_t compared = 0, differ = 0, bounded = 0;
  const double events = double(t.events ? t.events : 1);
  out << "recorded " << t.events << " events of " << t.threads.size() << " thread(s) into " << file << ": "
      << bytes << " bytes, " << std::fixed << std::setprecision(1) << double(bytes) / events << " bytes per event";
  if (!o.raw) out << " (zstd; " << double(raw_bytes) / events << " uncompressed)";
  out << "; memprof's record: " << record_file << "\n";
  // A wrapper (a shim, env, nice, a script) that execs the program hands the
  // trace on (memprof's exec hooks): the trace is the last program's.
  if (fs::path(t.program).filename() != fs::path(o.program[0]).filename())
    out << "traced " << t.program << " (pid " << t.pid << "), which " << o.program[0]
        << " ran by exec: the calls before the exec are left out\n";
  out << "  " << std::left << std::setw(34) << "figure" << std::right << std::setw(16) << "memprof" << std::setw(16)
      << "trace" << "\n";
  auto number = [&](const char* key) {
    auto it = live.find(key);
    return it == live.end() ? 0.0 : std::stod(it->second);
  };
  // Each figure beside memprof's, judged by trace_agreement.h's rules.
  for (const trace::FigureVerdict& v : trace::judge_against_memprof(figures, live)) {
    ++compared;
    using How = trace::FigureVerdict::How;
    if (v.how == How::missing) {
      out << "  " << std::left << std::setw(34) << v.key << std::right << std::setw(16) << "-" << std::setw(16)
          << v.trace << "  missing from memprof's record\n";
      ++differ;
      continue;
    }
    std::string verdict;
    if (v.how == How::within) {
      std::ostringstream note;
      note << std::fixed << std::setprecision(0);
      if (v.bound == trace::FigureVerdict::Bound::threads) note << "  within its bound (the trace's is at most memprof's)";
      else if (v.bound == trace::FigureVerdict::Bound::stated_error) note << "  within memprof's stated bound (" << v.above << ")";
      else note << "  within its bound (" << v.above << ": the slack of " << number(keys::peak_slack_bytes) << " bytes)";
      ++bounded;
      verdict = note.str();
    } else if (v.how == How::differs) {
      verdict = "  differs";
      ++differ;
    }
    out << "  " << std::left << std::setw(34) << v.key << std::right << std::setw(16) << v.memprof << std::setw(16)
        << v.trace << verdict << "\n";
  }
  if (differ) out << "trace: " << differ << " of " << compared << " figures differ from memprof's\n";
  else if (bounded) out << "trace: all " << compared << " figures agree with memprof's (" << bounded
                        << " within their bounds, the others equal)\n";
  else out << "trace: all " << compared << " figures equal memprof's\n";
  if (program_failed)
    out << "trace: " << o.program[0] << " ended with " << how_it_ended
        << ": the trace holds its calls until then; exit status 1\n";
  return differ || program_failed ? 1 : 0;
}

}  // namespace

int command_trace(const Command& command, const Paths& paths, std::ostream& out) {
  const TraceOptions& o = command.trace;
  if (o.action == "stats") return stats(o, out);
  if (o.action == "replay") return replay(command, paths, out);
  return record(o, paths, out);
}

namespace {

const char* const kTraceFooter = R"(A trace holds every allocation call a program made: its thread, time, size,
alignment and region, and the block it made or released. Record once, then
compute memprof's figures from it or replay it under every allocator:
  bench trace record --trace /tmp/py.astrace -- python3 -c 'print(sum(range(10**6)))'
  bench trace stats /tmp/py.astrace
  bench trace replay /tmp/py.astrace --alloc=all --reps=5
MEMPROF_TRACE=path with libmemprof.so preloaded records any program too.
Exit status of record: 0 when the program ended well and every figure agrees
with memprof's; 1 when the program failed (its trace holds its calls until
then) or a figure differs. A damaged or truncated trace is refused with exit
status 2.)";


}  // namespace

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines). the replay's run flags fall through to bench's.
CLI::App* add_trace_command(CLI::App& app, TraceOptions& options) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Record a program's allocation calls once; compute memprof's figures from the trace, or replay it "
               "under any allocator");
  trace->require_subcommand(1);
  trace->fallthrough();
  trace->footer(kTraceFooter);
  CLI::App* trace_stats = trace->add_subcommand("stats", "memprof's figures computed from a trace");
  trace_stats->add_option("file", options.file, "The trace")->required();
  trace_stats->add_flag("--record", options.as_record, "Print one @memprof line (memprof's record format) instead of the table");
  CLI::App* trace_replay = trace->add_subcommand(
      "replay", "Replay a trace under the allocators of --alloc, like any workload (results folder, figures, check)");
  trace_replay->fallthrough();
  trace_replay->add_option("file", options.file, "The trace")->required();
  trace_replay->add_option("--timing", options.timing, "as-fast-as-possible, or recorded: sleep where the recording was idle")
      ->check(one_of({"as-fast-as-possible", "recorded"}));
  trace_replay->add_option("--gap-ms", options.gap_ms, "With --timing recorded: idle gaps longer than this are slept")
      ->check(whole_number(0, 3600000));
  trace_replay->add_option("--touch", options.touch, "ends: write each block's first and last byte; all: every byte")
      ->check(one_of({"ends", "all"}));
  CLI::App* trace_record = trace->add_subcommand(
      "record", "Run a program once with memprof and the trace on: bench trace record --trace F -- PROGRAM ARGS");
  trace_record->add_option("--trace", options.file, "Where the trace goes (default: <program>.astrace here)");
  trace_record->add_flag("--raw", options.raw, "Keep the trace as memprof writes it (no zstd): 40 bytes per event");
  trace_record->add_option(keys::program, options.program, "The program and its arguments, after --")->required();
  // Which of the three ran.
  for (CLI::App* sub : {trace_stats, trace_replay, trace_record})
    sub->callback([&options, sub] { options.action = sub->get_name(); });
  return trace;
}

}  // namespace allocstamp
