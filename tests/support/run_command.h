// run_command.h — runs a program the way a user's shell would (fork + execve, its
// stdout and stderr captured through files), for the end-to-end tests that drive
// the real bench binary.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace allocstamp::testing {

struct CommandResult {
  int exit_code = -1;  // 128 + signal when it was killed
  std::string out, err;
};

struct CommandOptions {
  std::vector<std::string> env;  // NAME=value, replacing any inherited NAME
  int interrupt_after_ms = 0;    // > 0: send SIGINT after that long
};

// argv[0] is the program's path.
CommandResult run_command(std::vector<std::string> argv, const CommandOptions& options = {});

std::string slurp(const std::filesystem::path& file);

}  // namespace allocstamp::testing
