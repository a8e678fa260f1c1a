// program_output.h — what a helper program prints (git, dpkg-query, sbatch),
// run with an argument vector and no shell: no word of it is ever parsed as a
// command, whatever a path or a user's value holds.
#pragma once
#include <string>
#include <vector>

namespace allocstamp {

struct ProgramOutput {
  bool started = false;  // the program was found and started
  int status = -1;       // its exit status; -1 when it did not exit normally
  std::string out;       // its standard output (and its standard error, with `with_stderr`)
};

// Runs argv[0] (looked up in PATH) with argv, stdin from /dev/null, and reads
// its standard output to the end; its standard error goes to /dev/null, or
// into `out` with `with_stderr`.
ProgramOutput program_output(const std::vector<std::string>& argv, bool with_stderr = false);

// The first line of `text`, without its line break.
std::string first_line(const std::string& text);

}  // namespace allocstamp
