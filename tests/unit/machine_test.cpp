// machine_test — the machine's state around a run (machine.h): the share of
// the machine other processes and the hypervisor took, from /proc/stat ticks
// against the run's own CPU time, and the one rule for a busy run; the
// machine's description runs git with the source folder's name as an argument,
// never through a shell (program_output.h), and every helper program bench
// runs is stopped at its time limit with what it started, in an environment
// bench sets.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "run/executor.h"
#include "run/machine.h"
#include "model/program_output.h"

namespace allocstamp {
namespace {

CpuTicks ticks(uint64_t busy, uint64_t steal) {
  CpuTicks t;
  t.busy = busy;
  t.steal = steal;
  t.known = true;
  return t;
}

TEST(MachineShare, IsTheOthersBusyTimeAndTheStealOverWallTimesCores) {
  // 1 s on 2 cores at 100 ticks/s: 200 ticks of machine time. 130 busy ticks
  // (1.3 s), 0.8 s of them the run's own: 0.5 s others = 25%; 30 ticks stolen = 15%.
  MachineShare s = machine_share(ticks(1000, 50), ticks(1130, 80), 0.8, 1.0, 2, 100);
  EXPECT_NEAR(s.others_cpu_pct, 25.0, 1e-9);
  EXPECT_NEAR(s.steal_pct, 15.0, 1e-9);
}

TEST(MachineShare, StaysWithinTheMachine) {
  // The run's own time measured by wait4 to the nanosecond, the machine's in
  // ticks: the difference can fall below 0, never the share.
  EXPECT_EQ(machine_share(ticks(0, 0), ticks(50, 0), 0.7, 1.0, 2, 100).others_cpu_pct, 0.0);
  EXPECT_EQ(machine_share(ticks(0, 0), ticks(500, 0), 0.0, 1.0, 2, 100).others_cpu_pct, 100.0);
}

TEST(MachineShare, IsUnknownForAShortRunOrAnUnreadStat) {
  // 50 ms on 2 cores is 10 ticks of machine time: one tick would be 10%.
  EXPECT_TRUE(std::isnan(machine_share(ticks(0, 0), ticks(2, 0), 0.0, 0.05, 2, 100).others_cpu_pct));
  EXPECT_FALSE(std::isnan(machine_share(ticks(0, 0), ticks(2, 0), 0.0, 0.1, 2, 100).others_cpu_pct)) << "20 ticks";
  CpuTicks unread;
  EXPECT_TRUE(std::isnan(machine_share(unread, ticks(2, 0), 0.0, 1.0, 2, 100).steal_pct));
}

TEST(MachineShare, ReadsThisMachine) {
  const CpuTicks now = cpu_ticks();
  ASSERT_TRUE(now.known) << "/proc/stat has a cpu line";
  EXPECT_GT(now.busy, 0u);
  EXPECT_GE(load_average(), 0.0);
}

// /proc/stat's aggregate line: user nice system idle iowait irq softirq steal
// guest guest_nice. Busy is every field but idle, iowait and steal: a niced
// job (nice make -j2) is another tenant too. Steal is the 8th field, never
// iowait (the 5th); guest time is already in user and nice.
TEST(MachineShare, BusyAndStealAreReadFromTheirFieldsOfTheCpuLine) {
  const CpuTicks t = cpu_ticks_of("cpu  1000 200 300 9000 40 5 6 70 8 9");
  ASSERT_TRUE(t.known);
  EXPECT_EQ(t.busy, 1000u + 200 + 300 + 5 + 6) << "user, nice, system, irq, softirq";
  EXPECT_EQ(t.steal, 70u) << "the 8th field, not iowait (40)";
  const CpuTicks niced = cpu_ticks_of("cpu  0 500 0 9000 0 0 0 0 0 0");
  EXPECT_EQ(niced.busy, 500u) << "niced processes' time is busy";
  EXPECT_FALSE(cpu_ticks_of("cpu0 1000 200 300 9000 40 5 6 70 8 9").known) << "one CPU's line, not the machine's";
  EXPECT_FALSE(cpu_ticks_of("cpu  1 2 3").known) << "too few fields";
}

TEST(BusyRun, IsMoreThanAQuarterToOthersOrMoreThanATenthStolen) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(busy_run(25.0, 10.0)) << "the limits themselves are not busy";
  EXPECT_TRUE(busy_run(25.1, 0.0));
  EXPECT_TRUE(busy_run(0.0, 10.1));
  EXPECT_FALSE(busy_run(nan, nan)) << "unknown is not busy";
  EXPECT_TRUE(busy_run(nan, 50.0));
  EXPECT_TRUE(busy_run(50.0, nan));
}

// The run's own CPU time, taken off the machine's busy ticks: the child's
// user and system time and its client's. A run's own kernel time (page
// faults, munmap, madvise) left out would count as other tenants' and mark a
// kernel-heavy run busy on an idle machine.
TEST(MachineShare, ARunsOwnCpuIsItsUserAndSystemTimeAndItsClients) {
  Finished f;
  f.user_ns = 300'000'000;
  f.sys_ns = 200'000'000;
  EXPECT_DOUBLE_EQ(own_cpu_seconds(f, 0), 0.5);
  EXPECT_DOUBLE_EQ(own_cpu_seconds(f, 100'000'000), 0.6) << "a server's client is the run's own";
  // 1 s on 2 cores, the machine 60 ticks busy at 100/s, all of it the run's: nobody else.
  EXPECT_EQ(machine_share(ticks(0, 0), ticks(60, 0), own_cpu_seconds(f, 100'000'000), 1.0, 2, 100).others_cpu_pct, 0.0);
}

// A clone whose path holds shell syntax: describing the machine must not run it.
TEST(DescribeMachine, ASourceFolderNameIsNeverACommand) {
  namespace fs = std::filesystem;
  const fs::path planted = fs::temp_directory_path() / ("planted-" + std::to_string(getpid()));
  fs::remove(planted);
  const fs::path source =
      fs::temp_directory_path() / ("clone-'$(touch " + planted.string() + ")'-`touch " + planted.string() + "`");
  fs::create_directories(source);
  const nlohmann::json machine = describe_machine(source);
  EXPECT_FALSE(fs::exists(planted)) << "a command in the folder's name ran";
  EXPECT_EQ(machine["git_commit"], "") << "not a git clone";
  fs::remove_all(source);
  fs::remove(planted);
}

// What bench writes into a source folder (a results folder made as the docs
// show, a trace left by `bench trace record`) is not an uncommitted change;
// any other new file is.
TEST(DescribeMachine, WhatBenchWroteIsNotAnUncommittedChange) {
  const std::filesystem::path repo =
      std::filesystem::temp_directory_path() / ("allocstamp_dirty_" + std::to_string(::getpid()));
  std::filesystem::create_directories(repo / "results" / "base" / "logs");
  auto sh = [&](const std::string& command) {
    return program_output({"/bin/sh", "-c", "cd '" + repo.string() + "' && " + command}).status;
  };
  ASSERT_EQ(sh("git init -q . && echo a > source.c && git add source.c && "
               "git -c user.name=t -c user.email=t@t commit -qm one"),
            0);
  EXPECT_FALSE(describe_machine(repo).value("git_dirty", true));
  std::ofstream(repo / "results" / "base" / "meta.json") << R"({"machine": {"allocstamp_version": "0.1.0"}})";
  std::ofstream(repo / "results" / "base" / "runs.csv") << "run_id\n";
  std::ofstream(repo / "results" / "base" / "logs" / "1.log") << "ok\n";
  std::ofstream(repo / "python3.astrace") << "trace";
  std::ofstream(repo / "python3.astrace.plan.0123456789ab") << "plan";
  std::ofstream(repo / "python3.astrace.plan.0123456789ab.ba9876543210.json") << "{}";  // its workload file
  EXPECT_FALSE(describe_machine(repo).value("git_dirty", true));
  std::ofstream(repo / "results" / "notes.txt") << "mine";  // beside the folder, not in it
  EXPECT_TRUE(describe_machine(repo).value("git_dirty", false));
  std::filesystem::remove(repo / "results" / "notes.txt");
  std::ofstream(repo / "source.c") << "b";
  EXPECT_TRUE(describe_machine(repo).value("git_dirty", false));
  std::filesystem::remove_all(repo);
}

TEST(ProgramOutput, ReadsOutputStatusAndStandardError) {
  const ProgramOutput echo = program_output({"printf", "%s\\n%s", "one; touch /nonexistent/x", "two"});
  EXPECT_TRUE(echo.started);
  EXPECT_EQ(echo.status, 0);
  EXPECT_EQ(echo.out, "one; touch /nonexistent/x\ntwo");
  EXPECT_EQ(first_line(echo.out), "one; touch /nonexistent/x");
  const ProgramOutput failing = program_output({"ls", "/nonexistent-allocstamp"});
  EXPECT_TRUE(failing.started);
  EXPECT_NE(failing.status, 0);
  EXPECT_EQ(failing.out, "") << "standard error is dropped";
  EXPECT_NE(program_output({"ls", "/nonexistent-allocstamp"}, true).out, "") << "or kept when asked";
  EXPECT_FALSE(program_output({"no-such-program-allocstamp"}).started);
}

// True while `pid` is a process that has not ended (a zombie has ended).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST(ProgramOutput, AHelperThatHangsIsStoppedAtItsLimitWithWhatItStarted) {
  const auto start = std::chrono::steady_clock::now();
  // The shell starts a sleep beside itself (it keeps the pipe open too), says its pid, and waits.
  const ProgramOutput hung = program_output({"/bin/sh", "-c", "sleep 30 & echo $!; wait"}, false,
                                            ProgramLimits{.timeout_seconds = 0.5, .env = std::nullopt});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(hung.timed_out);
  EXPECT_EQ(hung.status, -1);
  EXPECT_LT(seconds, 10) << "stopped at its limit, not when the sleep ends";
  ASSERT_FALSE(hung.out.empty());
  // Killed when program_output returns, gone a moment later (on a busy machine the check came first).
  const pid_t started = std::stoi(hung.out);
  for (int i = 0; i < 100 && running(started); ++i) usleep(10000);
  EXPECT_FALSE(running(started)) << "the sleep it started is killed with it";
}

TEST(ProgramOutput, WhatAHelperLeavesRunningIsKilledWhenItEnds) {
  const ProgramOutput quick = program_output({"/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"});
  EXPECT_FALSE(quick.timed_out);
  EXPECT_EQ(quick.status, 0);
  ASSERT_FALSE(quick.out.empty());
  const pid_t left = std::stoi(quick.out);
  for (int i = 0; i < 100 && running(left); ++i) usleep(10000);
  EXPECT_FALSE(running(left)) << "a helper's leftovers do not outlive it";
}

TEST(ProgramOutput, AHelperGetsTheEnvironmentBenchGivesIt) {
  const ProgramOutput given = program_output({"/usr/bin/env"}, false, ProgramLimits{.env = std::vector<std::string>{"A=1"}});
  EXPECT_EQ(given.out, "A=1\n");
  ASSERT_EQ(setenv("LD_PRELOAD", "/nonexistent-allocstamp.so", 1), 0);
  ASSERT_EQ(setenv("ALLOCSTAMP_TEST_KEPT", "yes", 1), 0);
  const ProgramOutput inherited = program_output({"/usr/bin/env"});
  unsetenv("LD_PRELOAD");
  unsetenv("ALLOCSTAMP_TEST_KEPT");
  EXPECT_NE(inherited.out.find("ALLOCSTAMP_TEST_KEPT=yes\n"), std::string::npos) << inherited.out;
  EXPECT_EQ(inherited.out.find("LD_PRELOAD"), std::string::npos) << "bench's preload reaches no helper";
}

}  // namespace
}  // namespace allocstamp
