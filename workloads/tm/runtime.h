// runtime.h — what a TM workload's main needs around its variants: parsing
// --tm, selecting the build, setting libitm's method explicitly, and summing
// the per-thread transaction counts (reported as @metric lines).
#pragma once
#include <cstdint>
#include <string>

#include "command_line.h"

namespace allocstamp::tm {

enum class Build { stm, lock, seq };

struct Method {
  Build build;
  std::string name;  // ml_wt, gl_wt, serialirr, lock, seq
};

// Parses a --tm value; an empty optional-like result (false) for unknown names.
bool parse_method(const std::string& name, Method& out);
// For the stm build: sets ITM_DEFAULT_METHOD unless the environment already
// says it (libitm reads it at its first transaction). Never left to libitm's default.
void apply(const Method& method);

// Each worker thread adds its counts when it ends its measured work.
void publish_thread_counts();
struct Totals {
  uint64_t attempts, commits;
};
Totals totals();
void reset_totals();

// The build and method --tm names (checked, ITM_DEFAULT_METHOD set).
Method method_for(const workload::Common& common);
// @metric tx_attempts_count and tx_commits_count.
void report_transactions();
double abort_rate();

}  // namespace allocstamp::tm
