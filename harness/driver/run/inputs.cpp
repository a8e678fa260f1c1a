// inputs.cpp — generated inputs made once and cached by content (inputs.h).
#include "run/inputs.h"

#include <sys/stat.h>

#include <ostream>

#include "model/digest.h"
#include "model/errors.h"
#include "model/input_file.h"
#include "model/program_output.h"
#include "model/output_file.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

fs::path generator_file(const Workload& workload, const Paths& paths) { return paths.source / workload.input_generator; }

// The largest input (pdf, large) takes about a minute on a loaded machine.
constexpr double kGeneratorSeconds = 600;

// A generator runs in an environment of bench's making, not the user's: no
// PYTHONPATH, no user site-packages (-s), a fixed hash seed (a set's order is
// then the same in every generation), the C locale.
ProgramLimits generator_limits() {
  return ProgramLimits{.timeout_seconds = kGeneratorSeconds,
                       .env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LC_ALL=C", "PYTHONHASHSEED=0",
                                                       "PYTHONDONTWRITEBYTECODE=1"}};
}

}  // namespace

std::string input_path(const Workload& workload, const std::string& size, unsigned seed, const Paths& paths) {
  const std::string text = read_input_file(generator_file(workload, paths), std::size_t(1) << 20);
  const std::string digest = digest_of(text + '\0' + size + '\0' + std::to_string(seed)).substr(0, 12);
  return (paths.build / "inputs" / (workload.name + "-" + size + "-s" + std::to_string(seed) + "-" + digest +
                                     workload.input_suffix))
      .string();
}

std::vector<std::string> generator_command(const Workload& workload, const std::string& size, unsigned seed,
                                           const Paths& paths) {
  return {"/usr/bin/python3", "-s", generator_file(workload, paths).string(), "--size", size, "--seed",
          std::to_string(seed)};
}

void make_input(const Workload& workload, const std::string& size, unsigned seed, const Paths& paths,
                std::ostream& progress) {
  const fs::path file = input_path(workload, size, seed, paths);
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) return;  // made before: the name holds the generator's digest
    throw UsageError(file.string() + " is not a regular file", "remove it; bench makes the input again");
  }
  const fs::path folder = file.parent_path();
  if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST)
    throw UsageError("cannot make " + folder.string(), "check that the build folder is writable");
  if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError(folder.string() + " is not a folder (a link or a file?)", "remove it; bench makes it again");
  progress << "making " << workload.name << "'s " << size << " input (" << file.filename().string() << ")\n";
  const std::vector<std::string> command = generator_command(workload, size, seed, paths);
  const fs::path generator = generator_file(workload, paths);
  const ProgramOutput made = program_output(command, false, generator_limits());
  if (made.timed_out)
    throw UsageError(workload.name + "'s input generator did not finish in " +
                         std::to_string(int(kGeneratorSeconds)) + " s (" + generator.string() + " --size " + size + ")",
                     "run it by hand to see why: python3 " + generator.string() + " --size " + size);
  if (!made.started || made.status != 0 || made.out.empty())
    throw UsageError(workload.name + "'s input generator failed (" + generator.string() + " --size " + size +
                         ", exit " + std::to_string(made.status) + ")",
                     "run it by hand to see why: python3 " + generator.string() + " --size " + size);
  replace_file(file, made.out);
}

}  // namespace allocstamp
