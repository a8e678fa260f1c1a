// command_line.cpp — usage errors, number parsing, --tm checking and the
// transaction metrics shared by the TM workload binaries.
#include "command_line.h"

#include <cstdio>
#include <cstdlib>

#include <memprof/memprof.h>

namespace allocstamp::tm {

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

Method method_for(const Common& common) {
  Method method;
  if (!parse_method(common.method, method)) usage_error("unknown --tm '" + common.method + "'");
  if (method.build == Build::seq && common.threads != 1) usage_error("--tm seq runs one thread only");
  apply(method);
  return method;
}

void report_transactions() {
  Totals t = totals();
  memprof::metric("tx_attempts_count", int64_t(t.attempts));
  memprof::metric("tx_commits_count", int64_t(t.commits));
}

double abort_rate() {
  Totals t = totals();
  return t.attempts ? 1.0 - double(t.commits) / double(t.attempts) : 0.0;
}

}  // namespace allocstamp::tm
