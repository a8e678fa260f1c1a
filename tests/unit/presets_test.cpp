// presets_test — workloads/presets.json and the rules a preset follows: it fills in
// only what the command line and ALLOCSTAMP_* variables left unset, and a bad file
// is refused with a message naming the preset and the value.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/errors.h"
#include "cli/presets.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

fs::path write_file(const std::string& name, const std::string& text) {
  fs::path file = fs::temp_directory_path() / ("allocstamp-presets-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(file) << text;
  return file;
}

TEST(Presets, TheShippedFileLoadsAndHasTheDefaultJob) {
  std::vector<Preset> presets = load_presets(fs::path(ALLOCSTAMP_SOURCE_DIR) / "workloads" / "presets.json");
  const Preset& p = find_preset(presets, "default");
  EXPECT_EQ(p.size, "small");
  EXPECT_EQ(p.threads, (std::vector<int>{1, 2}));
  EXPECT_TRUE(p.plot);
  EXPECT_GE(p.reps, 5) << "enough repetitions for intervals and the U-test";
  EXPECT_NO_THROW(find_preset(presets, "ci"));
  EXPECT_THROW(find_preset(presets, "nosuch"), UsageError);
}

// The preset's description ("about thirty minutes" for the default job) is
// printed only when its whole job runs; a flag or variable that changes the
// job is named instead.
TEST(Presets, TheBannerDescribesOnlyTheWholeJob) {
  const fs::path shipped = fs::path(ALLOCSTAMP_SOURCE_DIR) / "workloads" / "presets.json";
  for (const char* v : {"ALLOCSTAMP_ALLOC", "ALLOCSTAMP_WORKLOAD", "ALLOCSTAMP_THREADS", "ALLOCSTAMP_SIZE", "ALLOCSTAMP_REPS",
                        "ALLOCSTAMP_NO_PLOT", "ALLOCSTAMP_SHARD", "ALLOCSTAMP_SERIES"})
    unsetenv(v);
  const std::string description = find_preset(load_presets(shipped), "default").description;
  {
    Options whole;
    std::ostringstream out;
    choose_preset(whole, shipped, out);
    EXPECT_EQ(out.str(), "preset default: " + description + "\n");
  }
  {
    Options narrowed;
    narrowed.given = {"--workload", "--out"};
    std::ostringstream out;
    choose_preset(narrowed, shipped, out);
    EXPECT_EQ(out.str(), "preset default, changed by --workload (bench --dry-run lists the runs)\n");
  }
  {
    Options by_variable;
    setenv("ALLOCSTAMP_REPS", "2", 1);
    std::ostringstream out;
    choose_preset(by_variable, shipped, out);
    unsetenv("ALLOCSTAMP_REPS");
    EXPECT_EQ(out.str(), "preset default, changed by ALLOCSTAMP_REPS (bench --dry-run lists the runs)\n");
  }
}

TEST(Presets, FillOnlyWhatWasNotChosen) {
  Preset p;
  p.allocators = {"all"};
  p.workloads = {"churn"};
  p.threads = {2, 1, 2};
  p.size = "tiny";
  p.reps = 7;
  p.profile = "none";
  p.series = 0;
  p.timeout_seconds = 3600;
  p.plot = true;
  Options o;
  o.allocators = {"jemalloc"};
  o.given = {"--alloc"};
  // An empty variable sets nothing (CLI11 takes no value from it): the
  // preset's value stays. (Counted as chosen, it left the built-in default.)
  setenv("ALLOCSTAMP_REPS", "", 1);
  setenv("ALLOCSTAMP_SIZE", "small", 1);
  o.size = "small";
  apply_preset(p, o);
  unsetenv("ALLOCSTAMP_SIZE");
  unsetenv("ALLOCSTAMP_REPS");
  EXPECT_EQ(o.allocators, (std::vector<std::string>{"jemalloc"})) << "typed on the command line";
  EXPECT_EQ(o.size, "small") << "set through ALLOCSTAMP_SIZE";
  EXPECT_EQ(o.workloads, (std::vector<std::string>{"churn"}));
  EXPECT_EQ(o.threads, (std::vector<int>{1, 2})) << "sorted, duplicates dropped";
  EXPECT_EQ(o.reps, 7);
  EXPECT_FALSE(o.profiled()) << "profile none means no memprof";
  EXPECT_FALSE(o.series);
  EXPECT_EQ(o.timeout_seconds, 3600);
  EXPECT_TRUE(o.plot_after);
}

// A preset's per-workload sizes and arguments apply unless --size was chosen,
// which sets every workload's size; profile_reps unless chosen.
TEST(Presets, PerWorkloadSizesAndArguments) {
  Preset p;
  p.size = "small";
  p.sizes = {{"genome", "medium"}};
  p.args = {{"vacation-low", {"--transactions", "65536"}}};
  p.profile_reps = 2;
  unsetenv("ALLOCSTAMP_SIZE");
  unsetenv("ALLOCSTAMP_PROFILE_REPS");
  Options o;
  apply_preset(p, o);
  EXPECT_EQ(o.size_of("genome"), "medium");
  EXPECT_EQ(o.size_of("vacation-low"), "small");
  EXPECT_EQ(o.workload_args["vacation-low"], (std::vector<std::string>{"--transactions", "65536"}));
  EXPECT_EQ(o.profiled_runs(1), 2);
  Options sized;
  sized.size = "tiny";
  sized.given = {"--size", "--profile-reps"};
  sized.profile_reps = 0;
  apply_preset(p, sized);
  EXPECT_EQ(sized.size_of("genome"), "tiny") << "--size sets every workload's size";
  EXPECT_TRUE(sized.workload_args.empty());
  EXPECT_EQ(sized.profiled_runs(2), 0) << "typed on the command line";
  // The shipped default job: each workload long enough to time.
  const std::vector<Preset> presets = load_presets(fs::path(ALLOCSTAMP_SOURCE_DIR) / "workloads" / "presets.json");
  const Preset& shipped = find_preset(presets, "default");
  EXPECT_EQ(shipped.sizes.at("genome"), "medium");
  EXPECT_FALSE(shipped.args.at("vacation-low").empty());
}

TEST(Presets, BadFilesAreRefusedWithTheReason) {
  auto refused = [](const std::string& text) -> std::string {
    fs::path file = write_file("bad.json", text);
    try {
      load_presets(file);
    } catch (const UsageError& e) {
      fs::remove(file);
      return e.what();
    }
    fs::remove(file);
    return "";
  };
  EXPECT_NE(refused("{not json").find("is not valid JSON"), std::string::npos);
  EXPECT_NE(refused(R"({"schema": 1})").find("no \"presets\" list"), std::string::npos);
  EXPECT_NE(refused(R"({"schema": 9, "presets": []})").find("newer"), std::string::npos);
  EXPECT_NE(refused(R"({"presets": [{"name": "x", "size": "huge"}]})").find("preset 'x' has size 'huge'"),
            std::string::npos);
  EXPECT_NE(refused(R"({"presets": [{"name": "x", "threads": [0]}]})").find("below 1"), std::string::npos);
  EXPECT_NE(refused(R"({"presets": [{"name": "x", "timeout": -1}]})").find("negative timeout"), std::string::npos);
  EXPECT_NE(refused(R"({"presets": [{"name": "x", "reps": "many"}]})").find("wrong type"), std::string::npos);
  EXPECT_NE(refused(R"({"presets": [{"size": "tiny"}]})").find("lacks its \"name\""), std::string::npos);
  EXPECT_THROW(load_presets("/nonexistent/presets.json"), UsageError);
}

}  // namespace
}  // namespace allocstamp
