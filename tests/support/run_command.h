// run_command.h — runs a program the way a user's shell would (fork + execve, its
// stdout and stderr captured through files), for the end-to-end tests that drive
// the real bench binary.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

// In a sanitized build (presets asan, tsan) the workloads carry the
// sanitizer's runtime, and neither memprof nor another allocator can be
// preloaded in front of it: a test that needs that skips there
// (tests/sanitized runs every workload in such a build instead).
#if defined(ALLOCSTAMP_SANITIZED)
#define SKIP_WHEN_WORKLOADS_ARE_SANITIZED() \
  GTEST_SKIP() << "sanitized build: workloads cannot take a preload (tests/sanitized covers them)"
#else
#define SKIP_WHEN_WORKLOADS_ARE_SANITIZED() static_cast<void>(0)
#endif

// A prerequisite scripts/install-deps installs (a package, an allocator):
// where it is missing, a test skips on a developer's machine but fails under
// CI=true, where install-deps ran, so that no test stops running unnoticed.
#define SKIP_UNLESS_INSTALLED(present, what)                                                           \
  do {                                                                                                 \
    if (present) break;                                                                                \
    if (::allocstamp::testing::in_ci()) FAIL() << (what) << " is missing under CI=true: scripts/install-deps installs it"; \
    GTEST_SKIP() << (what) << " is not installed (scripts/install-deps installs it)";                   \
  } while (0)

namespace allocstamp::testing {

// CI=true in the environment (.ci/run).
bool in_ci();

// `text` with every run of white space as one space: a message as said, however
// bench wrapped it to the terminal's 120 columns (output/terminal_lines.h).
std::string flat(const std::string& text);

struct CommandResult {
  int exit_code = -1;  // 128 + signal when it was killed
  int signal = 0;      // the signal that ended it, or 0
  bool timed_out = false;
  std::string out, err;
};

struct CommandOptions {
  std::vector<std::string> env;            // NAME=value, replacing an inherited or earlier NAME
  std::vector<std::string> drop_prefixes;  // inherited entries starting so are left out
  std::function<bool()> interrupt_when;    // polled while it runs: SIGINT once it says true (an event, not a time)
  int timeout_seconds = 0;                 // > 0: SIGKILL after that long (timed_out)
};

// argv[0] is the program's path.
CommandResult run_command(std::vector<std::string> argv, const CommandOptions& options = {});

std::string slurp(const std::filesystem::path& file);

// Whether `pid` is a process that has not ended (a zombie no one reaps yet,
// as pid 1 of a container may leave it, has ended).
bool still_running(pid_t pid);

// Waits up to `seconds` for `pid` to end; true when it did.
bool ends_within(pid_t pid, double seconds);

// A fresh folder of a test's own under the temporary folder (<stem>-<pid>),
// removed when the test ends.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& stem);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace allocstamp::testing
