// command_line.h — Contract 3's command line, shared by every workload
// family: the common options (--threads, --size, --seed, --tm), the size
// ladder (what tiny, small, medium and large mean to one program), whole
// numbers, and usage errors that name the program and exit 2.
#pragma once
#include <cstdint>
#include <string>

namespace allocstamp::workload {

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

// The rung of the size ladder --size names: 0 tiny, 1 small, 2 medium, 3
// large; any other word is a usage error.
int size_rung(const std::string& size);

// What --size means to a program, one value per rung (a number, or a struct
// of the program's parameters): by_size(common.size, tiny, small, medium, large).
template <typename T>
T by_size(const std::string& size, T tiny, T small, T medium, T large) {
  switch (size_rung(size)) {
    case 0: return tiny;
    case 1: return small;
    case 2: return medium;
    default: return large;
  }
}

}  // namespace allocstamp::workload
