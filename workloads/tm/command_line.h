// command_line.h — Contract 3's command line for the TM workload binaries:
// the common options (--threads, --size, --seed, --tm), whole numbers, and
// usage errors that name the program and exit 2; plus the transaction metrics.
#pragma once
#include <cstdint>
#include <string>

#include "runtime.h"

namespace allocstamp::tm {

struct Program {
  const char* name;   // "stamp", "intset"
  const char* usage;  // printed after a usage error
};
void set_program(const Program& program);  // once, at the top of main

[[noreturn]] void usage_error(const std::string& problem);
long whole_number(const std::string& option, const char* text, long min, long max);

struct Common {
  int threads = 1;
  std::string size = "small";
  uint64_t seed = 1;
  std::string method = "ml_wt";
};

// Reads argv[2..] (argv[1] is the app); app options go to `app_option`,
// which returns false for an option it does not know.
template <typename AppOption>
Common parse_common(int argc, char** argv, AppOption app_option) {
  Common common;
  for (int i = 2; i < argc; ++i) {
    std::string option = argv[i];
    if (i + 1 >= argc) usage_error("missing value for " + option);
    const char* value = argv[++i];
    if (option == "--threads") common.threads = int(whole_number(option, value, 1, 1024));
    else if (option == "--size") common.size = value;
    else if (option == "--seed") common.seed = uint64_t(whole_number(option, value, 0, 1L << 62));
    else if (option == "--tm") common.method = value;
    else if (!app_option(option, value)) usage_error("unknown option " + option);
  }
  return common;
}

// The build and method --tm names (checked, ITM_DEFAULT_METHOD set).
Method method_for(const Common& common);
// @metric tx_attempts_count and tx_commits_count.
void report_transactions();
double abort_rate();

}  // namespace allocstamp::tm
