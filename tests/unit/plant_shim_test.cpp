// plant_shim_test — libplant_shim.so (tests/support/plant) in front of glibc and
// jemalloc, plant_target's measured() under callgrind: PLANT_WORK=N adds
// exactly 2N instructions to each allocating call, once per call (operator new
// too, which calls malloc under glibc); PLANT_WORK_FILE picks N by the
// process's command line; PLANT_PAD=64 adds D1 misses. Skips without valgrind (fails under CI=true).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/registry.h"
#include "run_command.h"

namespace allocstamp {
namespace {

constexpr int64_t kWork = 100;

struct Simulated {
  int64_t calls = 0;
  std::map<std::string, int64_t> events;  // callgrind's totals by event name (Ir, D1mr, ...)
};

class PlantShim : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    valgrind_ = testing::run_command({"/bin/sh", "-c", "command -v valgrind"}).out;
    valgrind_ = valgrind_.substr(0, valgrind_.find('\n'));
    SKIP_UNLESS_INSTALLED(!valgrind_.empty(), "valgrind");
    std::vector<Allocator> registry;
    load_allocators(ALLOCATORS_JSON, registry);
    for (const Allocator& a : registry)
      if (a.name == GetParam()) allocator_ = a;
    SKIP_UNLESS_INSTALLED(allocator_.installed, GetParam());
  }

  // measured() under callgrind (the first-level data cache pinned) with the
  // shim and `settings` (PLANT_*=...), plant_target given `args`.
  Simulated run(const std::vector<std::string>& settings, const std::vector<std::string>& args = {}) {
    testing::ScratchDir dir("plant-shim");
    const std::string out = dir / "callgrind.out";
    testing::CommandOptions options{settings, {"PLANT_"}, {}, 300};
    // The virtual clock of simulated runs in front: jemalloc's decay acts on
    // elapsed time, which under a loaded machine's valgrind varies.
    options.env.push_back(std::string("LD_PRELOAD=") + SIM_CLOCK + ":" + PLANT_SHIM +
                          (allocator_.library.empty() ? "" : ":" + allocator_.library));
    std::vector<std::string> argv = {valgrind_, "--tool=callgrind", "--callgrind-out-file=" + out,
                                     "--collect-atstart=no", "--toggle-collect=measured", "--cache-sim=yes",
                                     "--D1=32768,8,64", PLANT_TARGET};
    argv.insert(argv.end(), args.begin(), args.end());
    const testing::CommandResult r = testing::run_command(argv, options);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Simulated s;
    if (r.exit_code != 0) return s;
    s.calls = std::stoll(r.out.substr(r.out.find("calls=") + 6));
    // "events: Ir Dr ..." names the columns of "totals: 5618688 1426692 ...".
    std::istringstream lines(testing::slurp(out));
    std::vector<std::string> names;
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line.substr(line.find(':') + 1));
      if (line.rfind("events:", 0) == 0)
        for (std::string w; words >> w;) names.push_back(w);
      if (line.rfind("totals:", 0) == 0)
        for (std::size_t i = 0; i < names.size() && words >> s.events[names[i]]; ++i) {}
    }
    EXPECT_GT(s.events["Ir"], 0) << "callgrind counted nothing in measured()";
    return s;
  }

  std::string valgrind_;
  Allocator allocator_;
};

TEST_P(PlantShim, WorkAddsTwoInstructionsPerIterationToEachCall) {
  Simulated none = run({"PLANT_WORK=0"}), planted = run({"PLANT_WORK=" + std::to_string(kWork)});
  const double expected = 2.0 * kWork * planted.calls;
  ASSERT_GT(planted.calls, 0);
  EXPECT_NEAR(planted.events["Ir"] - none.events["Ir"], expected, expected / 1000);
}

TEST_P(PlantShim, WorkFileChoosesByCommandLine) {
  testing::ScratchDir dir("plant-file");
  const std::string file = dir / "work.txt";
  const std::vector<std::string> args = {"plant", "--threads", "2"};
  std::ofstream(file) << "7 plant --threads 1\n" << kWork << " plant --threads 2\n";
  Simulated listed = run({"PLANT_WORK_FILE=" + file}, args);
  std::ofstream(file, std::ios::trunc) << "7 plant --threads 1\n7 other --threads 2\n";
  Simulated unlisted = run({"PLANT_WORK_FILE=" + file, "PLANT_WORK=0"}, args);
  const double expected = 2.0 * kWork * listed.calls;
  ASSERT_GT(listed.calls, 0);
  EXPECT_NEAR(listed.events["Ir"] - unlisted.events["Ir"], expected, expected / 1000);
}

TEST_P(PlantShim, PadAddsFirstLevelDataMisses) {
  Simulated none = run({"PLANT_PAD=0"}), padded = run({"PLANT_PAD=64"});
  const int64_t before = none.events["D1mr"] + none.events["D1mw"], after = padded.events["D1mr"] + padded.events["D1mw"];
  ASSERT_GT(before, 0);
  EXPECT_GT(after, before * 11 / 10) << "64 bytes more per 16-byte block: at least 10% more D1 misses";
}

INSTANTIATE_TEST_SUITE_P(Allocators, PlantShim, ::testing::Values("glibc", "jemalloc"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace allocstamp
