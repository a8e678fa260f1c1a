// sanitized_workloads_test — in a sanitized build (the asan and tsan presets)
// every workload of workloads/workloads.json runs at `tiny` through bench, under
// glibc (the sanitizer's own malloc) and without memprof, at 1 and 2 threads
// and, for the transactional ones, under every TM method; every run must end
// ok: it verified its result, and the sanitizer found nothing (a report makes
// the workload exit non-zero). memprof's figures are the other tests' concern,
// in the normal build: preloaded in front of a sanitizer's runtime, memprof
// would start inside that runtime's own start-up.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_command.h"
#include "results/runs.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

struct Selection {
  std::vector<std::string> tm, plain;  // workload names
};

Selection registry_workloads() {
  std::ifstream in(WORKLOADS_FILE);
  nlohmann::json doc = nlohmann::json::parse(in);
  Selection s;
  for (const auto& w : doc.at("workloads")) (w.value("tm", false) ? s.tm : s.plain).push_back(w.at("name"));
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

class SanitizedWorkloads : public ::testing::TestWithParam<const char*> {
 protected:
  testing::ScratchDir scratch_{"sanitized-workloads"};
};

// The runs of one bench sweep; every one must be ok (the log of one that is not is shown).
void expect_all_ok(const std::vector<std::string>& args, const fs::path& out) {
  std::vector<std::string> argv = {BENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile", "--no-plot", "--out=" + out.string()});
  testing::CommandOptions options;
  options.timeout_seconds = 1200;
  testing::CommandResult r = testing::run_command(argv, options);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  RunsTable runs = load_runs(out, "sanitized");
  EXPECT_FALSE(runs.rows.empty());
  for (const CsvRow& row : runs.rows) {
    const std::string status = runs.text(row, "status");
    if (status == "ok") continue;
    std::string log;
    for (const auto& entry : fs::directory_iterator(out / "logs"))
      if (entry.path().filename().string().rfind(runs.text(row, "run_id") + "-", 0) == 0)
        if (std::ifstream in(entry.path()); in) log.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ADD_FAILURE() << runs.text(row, "workload") << " t" << runs.text(row, "threads") << " " << runs.text(row, "tm")
                  << ": " << status << "\n" << log.substr(0, 4000);
  }
}

TEST_P(SanitizedWorkloads, EveryTransactionalWorkloadEndsOk) {
#if defined(ALLOCSTAMP_TSAN)
  GTEST_SKIP() << "tsan preset: ThreadSanitizer sees neither libitm's commits nor std::barrier's waits; the "
                  "transactional workloads are the asan preset's";
#endif
  const std::string method = GetParam();
  expect_all_ok({"--workload=" + joined(registry_workloads().tm), "--tm=" + method,
                 method == "seq" ? "--threads=1" : "--threads=1,2"},
                scratch_.path() / method);
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, SanitizedWorkloads,
                         ::testing::Values("ml_wt", "gl_wt", "serialirr", "lock", "seq"));

TEST(SanitizedPlainWorkloads, EveryOtherWorkloadEndsOk) {
  testing::ScratchDir scratch("sanitized-plain");
  expect_all_ok({"--workload=" + joined(registry_workloads().plain), "--threads=1,2"}, scratch.path() / "plain");
}

}  // namespace
}  // namespace allocstamp
