// command_line.cpp — usage errors, number parsing and the size ladder's
// words, shared by every workload binary.
#include "command_line.h"

#include <cstdio>
#include <cstdlib>

namespace allocstamp::workload {

namespace {
Program current{"workload", ""};
}  // namespace

void set_program(const Program& program) { current = program; }

void usage_error(const std::string& problem) {
  std::fprintf(stderr, "%s: %s\n%s", current.name, problem.c_str(), current.usage);
  std::exit(2);
}

long whole_number(const std::string& option, const char* text, long min, long max) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!*text || *end || v < min || v > max)
    usage_error(option + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                ", not '" + text + "'");
  return v;
}

int size_rung(const std::string& size) {
  if (size == "tiny") return 0;
  if (size == "small") return 1;
  if (size == "medium") return 2;
  if (size == "large") return 3;
  usage_error("--size takes tiny, small, medium or large, not '" + size + "'");
}

}  // namespace allocstamp::workload
