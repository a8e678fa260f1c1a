// program_output.h — what a helper program prints (git, dpkg-query, sbatch, an
// input generator), run with an argument vector and no shell: no word of it is
// ever parsed as a command, whatever a path or a user's value holds. Like every
// child of bench it runs with a time limit, in a process group of its own that
// ends with it, and dies with bench (parent-death signal).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace allocstamp {

struct ProgramOutput {
  bool started = false;    // the program was found and started
  int status = -1;         // its exit status; -1 when it did not exit normally
  bool timed_out = false;  // stopped (with its group) at the time limit
  std::string out;         // its standard output (and its standard error, with `with_stderr`)
};

struct ProgramLimits {
  double timeout_seconds = 60;  // then it and its process group are killed
  // The child's complete environment ("KEY=value"); unset: bench's own
  // without LD_PRELOAD and LD_AUDIT (nothing bench was started with is
  // loaded into git or dpkg-query).
  std::optional<std::vector<std::string>> env;
};

// Runs argv[0] (looked up in PATH) with argv, stdin from /dev/null, and reads
// its standard output to the end; its standard error goes to /dev/null, or
// into `out` with `with_stderr`. Whatever the program leaves running in its
// group when it ends (or at the limit) is killed.
ProgramOutput program_output(const std::vector<std::string>& argv, bool with_stderr = false,
                             const ProgramLimits& limits = {});

// The first line of `text`, without its line break.
std::string first_line(const std::string& text);

}  // namespace allocstamp
