// run_one.cpp — one planned run made and judged (run_one.h).
#include "run/run_one.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <optional>

#include "key_names.h"
#include "keys.h"
#include "model/errors.h"
#include "model/own_folder.h"
#include "run/callgrind_output.h"
#include "run/environment.h"
#include "run/program_result.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// A private folder for one run of a program that writes files (db_bench's
// database): made when an argument names {scratch}, 0700 under the system's
// temporary folder, removed with everything in it when the run is over (no
// link inside followed).
class ScratchFolder {
 public:
  explicit ScratchFolder(std::vector<std::string>& args) {
    bool named = false;
    for (const std::string& arg : args) named |= arg.find("{scratch}") != std::string::npos;
    if (!named) return;
    std::string pattern = (fs::temp_directory_path() / "allocstamp-scratch-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw RunError("cannot make a scratch folder in " + fs::temp_directory_path().string(),
                     "check that TMPDIR (or /tmp) is writable");
    path_ = pattern;
    for (std::string& arg : args)
      for (std::size_t at; (at = arg.find("{scratch}")) != std::string::npos;) arg.replace(at, 9, path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

 private:
  std::string path_;
};

// A free TCP port on 127.0.0.1 for a server workload, put in for {port}:
// the kernel's pick for a socket bound to port 0 (free a moment later too,
// unless another process takes it first: the server then fails to listen and
// the run says so).
int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = s >= 0 && bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                  getsockname(s, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (s >= 0) close(s);
  if (!ok) throw RunError("cannot find a free port on 127.0.0.1 for the server", "check the loopback interface");
  return ntohs(address.sin_port);
}

void put_port(std::vector<std::string>& args, int port) {
  for (std::string& arg : args)
    for (std::size_t at; (at = arg.find("{port}")) != std::string::npos;) arg.replace(at, 6, std::to_string(port));
}

}  // namespace

std::string measurement_problem(const Run& run, const Records& records, const fs::path& log) {
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.find("cannot be preloaded") != std::string::npos) return "the allocator library was not preloaded: " + line;
  if (!records.errors.empty()) return "the run's records are incomplete: " + records.errors.front().substr(1);
  if (run.kind == RunKind::profiled && !records.has_memprof) return "memprof did not report (see the log)";
  if (run.kind == RunKind::profiled && records.root_without_record)
    return "the program's own process wrote no memprof record (" + std::to_string(records.processes) +
           " process(es) it started did): its figures are not taken from theirs — a process killed by a signal, "
           "or one that ends with a raw exit_group system call, leaves none; see its log";
  if (records.has_memprof) {
    auto format = records.memprof.find(keys::format);
    std::string got = format == records.memprof.end() ? "none" : format->second;
    if (got != std::to_string(contract::kRecordFormat))
      return "memprof wrote record format " + got + ", this bench reads " + std::to_string(contract::kRecordFormat) +
             ": rebuild libmemprof.so with this allocstamp ('make build')";
  }
  return "";
}

std::string skip_reason(const Run& run) {
  if (!run.allocator.installed) return "allocator not installed: " + install_hint(run.allocator);
  if (run.kind == RunKind::simulated && !run.allocator.no_simulation.empty())
    return "not simulated: " + run.allocator.no_simulation;
  // Measured 2026-12-05: redis-server under callgrind and the virtual clock
  // did not stop within 10 s of SIGTERM (its timers never fire while it
  // waits), and a server's instructions depend on when its client's requests
  // arrive, which no clock of the run fixes.
  if (run.kind == RunKind::simulated && !run.workload.client_binary.empty())
    return "not simulated: a server (its timers never fire under the virtual clock, and its instructions depend on "
           "when its client's requests arrive)";
  return "";
}

namespace {

// The run as launched: its recorded command line (a server's, then its
// client's: "... ; redis-benchmark -p {port} ..."), the allocator's build and
// the variables that tune it.
RunSetting setting_of(const Run& run, const RunContext& context, const ChildCommand& command) {
  const auto library = context.libraries.find(run.allocator.name);
  return RunSetting{command.recorded, library == context.libraries.end() ? std::string() : library->second,
                    allocator_environment(command.env, run.allocator)};
}

std::string unquoted(const std::string& text) {
  return text.size() >= 2 && text.front() == '"' && text.back() == '"' ? text.substr(1, text.size() - 2) : text;
}

// Why the run failed, into its records (runs.csv's extra `failure`) and on
// standard error after the run's name.
void record_failure(Records& records, const std::string& run_name, const std::string& problem) {
  records.metrics["failure"] = "\"" + problem + "\"";
  std::cerr << run_name << ": " << problem << "\n";
}

// The run made: launched, its records read, its status decided.
RunOutcome launch_and_judge(const Run& run, const RunContext& context, const ChildCommand& command,
                            const fs::path& log_path) {
  const Options& options = context.options;
  const fs::path& dir = context.dir;
  const std::string run_name = describe(run);
  RunOutcome outcome;
  outcome.setting = setting_of(run, context, command);
  Launch launch;
  launch.program = (context.paths.build / run.workload.binary).string();
  launch.args = command.args;
  const ScratchFolder scratch(launch.args);
  launch.env = command.env;
  if (run.kind == RunKind::profiled && !options.callsites.empty()) {
    // memprof writes into callsites/ (os/own_file.h) and bench reads it back:
    // a link or a file planted at its name fails this run, never followed.
    if (const std::string problem = make_own_folder(dir / "callsites"); !problem.empty()) {
      outcome.finished.start_failed = true;
      outcome.finished.error = problem;
      record_failure(outcome.records, run_name, problem);
      return outcome;
    }
    launch.env.push_back("MEMPROF_SAMPLE_BYTES=" + options.callsites);
    launch.env.push_back("MEMPROF_CALLSITES=" + (dir / "callsites" / (std::to_string(run.id) + ".txt")).string());
  }
  launch.log_path = log_path.string();
  const std::string compared_output = fs::path(log_path).replace_extension(".out").string();
  if (run.workload.check_output && run.workload.client_binary.empty()) launch.stdout_path = compared_output;
  if (!run.workload.client_binary.empty()) {
    // A server: its client connects on a port of this run's own.
    const int port = free_port();
    put_port(launch.args, port);
    Launch::Client client{run.workload.client_binary, command.client_args, client_environment(),
                          run.workload.check_output ? compared_output : std::string(), port};
    put_port(client.args, port);
    launch.client = std::move(client);
  }
  launch.timeout_seconds = options.timeout_seconds;
  std::optional<PrivateFolder> private_folder;
  std::string simulated_out;
  if (run.kind == RunKind::simulated) {
    // valgrind in front; the program's own command after its options. About
    // 50 times slower than natively: the timeout grows with it. Its output
    // goes to a folder of bench's own, moved into the results folder after.
    private_folder.emplace();
    simulated_out = (private_folder->path() / "callgrind.out").string();
    launch.env = without_valgrind_variables(launch.env);
    launch.env.push_back(simulated_padding(launch.env, launch.program, launch.args));
    launch.args = simulated_arguments(simulated_out, !run.workload.marks_phase, launch.program, launch.args);
    launch.program = context.simulator.valgrind;
    launch.fixed_addresses = true;
    launch.timeout_seconds = options.timeout_seconds * kSimulatedTimeoutFactor;
  }
  outcome.finished = context.executor.run(launch);
  const Finished& f = outcome.finished;
  if (f.interrupted) {
    outcome.interrupted = true;
    return outcome;
  }
  Status status = status_of(f);
  if (f.start_failed) std::cerr << "error: " << f.error << "\n";
  Records records = parse_records(f.records);
  if (!f.failure.empty()) record_failure(records, run_name, f.failure);
  std::string simulation_problem;
  if (status == Status::ok && run.kind == RunKind::simulated) {
    // Every process of the run is gone (the executor killed its group and
    // its orphans): the file read and kept is the one no one writes any more.
    simulation_problem = keep_simulation_output(simulated_out, dir / "simulated", std::to_string(run.id) + ".callgrind");
    if (simulation_problem.empty()) records.simulated = read_simulation(simulated_out, simulation_problem);
    if (simulation_problem.empty()) records.simulated[keys::sim_setup] = context.simulator.identity();
  }
  if (status == Status::ok && run.workload.check_output) {
    std::string problem;
    const std::string digest = output_digest(compared_output, run.workload, problem);
    if (problem.empty()) records.metrics["output_digest"] = "\"" + digest + "\"";
    else if (simulation_problem.empty()) simulation_problem = problem;
  }
  if (status == Status::ok) {
    std::string problem = simulation_problem.empty() ? measurement_problem(run, records, launch.log_path)
                                                     : simulation_problem;
    if (!problem.empty()) {
      status = Status::failed;
      record_failure(records, run_name, problem);
    }
  }
  outcome.status = status;
  outcome.records = std::move(records);
  return outcome;
}

}  // namespace

RunOutcome run_one(const Run& run, RunContext& context, const fs::path& log_path) {
  const ChildCommand command = child_command(run, context.options, context.paths);
  if (std::string why = skip_reason(run); !why.empty()) {
    RunOutcome skipped;
    skipped.skipped = std::move(why);
    skipped.setting = setting_of(run, context, command);
    return skipped;
  }
  RunOutcome ran = launch_and_judge(run, context, command, log_path);
  if (ran.interrupted || ran.status != Status::ok) return ran;
  // Another allocator's run of the same cell printed something else: the
  // program's result changed, which is a finding, not a time.
  // The digest as runs.csv's extra holds it, in quotes; judged without them,
  // as a resumed folder's first runs are remembered.
  if (auto quoted = ran.records.metrics.find("output_digest"); quoted != ran.records.metrics.end())
    if (std::string problem = context.program_results.judge(run, ran.setting.args, unquoted(quoted->second));
        !problem.empty()) {
      ran.status = Status::failed;
      record_failure(ran.records, describe(run), problem);
    }
  return ran;
}

}  // namespace allocstamp
