// edited_folder_e2e_test — the fourth reliability attack (issue 55) on a
// results folder someone else can write to: links, FIFOs and /dev/zero planted
// among the call-site files (item 2: replaced, or the run failed, never
// written or read through, never a stall), meta.json's options edited before a
// resume (item 12: refused by name), and a control byte of meta.json in
// merge's refusal (item 13: the whole message, the byte shown escaped).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "planted_files.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;
using testing::kind_at;
using testing::kVictimText;
using testing::slurp;

Result bench(std::vector<std::string> args) {
  args.insert(args.begin(), BENCH_BINARY);
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
  options.timeout_seconds = 90;  // a FIFO that blocked bench would end here, red
  return testing::run_command(args, options);
}

// A path as a shell word (the test's own paths hold no quote).
std::string quoted(const fs::path& path) {
  std::string word = "'";
  word += path.string();
  word += '\'';
  return word;
}

class EditedFolder : public ::testing::Test {
 protected:
  // test-alloc at one thread: one timed run and `profiled` profiled runs that
  // sample call sites (each writes callsites/<run_id>.txt).
  static void callsites_sweep(const fs::path& out, int profiled = 4) {
    Result r = bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1", "--reps=1",
                      "--profile-reps=" + std::to_string(profiled), "--callsites=16K", "--timeout=10",
                      "--out=" + out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // The run ids of the call-site files, in order.
  static std::vector<std::string> callsite_ids(const fs::path& out) {
    std::vector<std::string> ids;
    for (const auto& e : fs::directory_iterator(out / "callsites"))
      if (e.path().extension() == ".txt") ids.push_back(e.path().stem().string());
    std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); });
    return ids;
  }
  // runs.csv without the rows of `ids`: --resume makes those runs again.
  static void forget_runs(const fs::path& out, const std::set<std::string>& ids) {
    std::istringstream in(slurp(out / "runs.csv"));
    std::string kept;
    for (std::string line; std::getline(in, line);)
      if (!ids.count(line.substr(0, line.find(',')))) kept += line + "\n";
    std::ofstream(out / "runs.csv", std::ios::trunc) << kept;
  }
  // A sweep whose first workload, a shell running `command`, acts on the
  // folder while it is written; then test-alloc's runs, profiled with call sites.
  static Result sweep_after_shell(const fs::path& out, const std::string& command) {
    const fs::path registry = out.string() + "-workloads.json";
    const nlohmann::json shell = {
        {"name", "shell-plants"}, {"binary", "/bin/sh"}, {"args", {"-c", command}}, {"contract", false}};
    std::ofstream(registry) << nlohmann::json{{"schema", 1}, {"workloads", {shell}}}.dump(2);
    return bench({"--workloads=" + std::string(TEST_WORKLOADS), "--workloads=" + registry.string(),
                  "--workload=shell-plants,test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1", "--reps=1",
                  "--profile-reps=1", "--callsites=16K", "--timeout=10", "--out=" + out.string()});
  }
  static void SetUpTestSuite() { scratch_ = new testing::ScratchDir("edited-folder-e2e"); }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }
  static fs::path dir() { return scratch_->path(); }
  static testing::ScratchDir* scratch_;
};

testing::ScratchDir* EditedFolder::scratch_ = nullptr;

// Item 2: what is planted at the names memprof and bench write — a run's
// callsites/<id>.txt (a link to a victim, a FIFO, a link to /dev/zero), a
// .folded and callsites.csv (links) — is replaced by the resumed sweep, the
// victims left as they were, and nothing waits on the FIFO.
TEST_F(EditedFolder, PlantedCallsiteFilesAreReplacedNotWrittenThrough) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path out = dir() / "planted";
  callsites_sweep(out);
  const std::vector<std::string> ids = callsite_ids(out);
  ASSERT_EQ(ids.size(), 4u);
  forget_runs(out, {ids[1], ids[2], ids[3]});
  const fs::path victim = testing::victim_file(dir() / "victim-txt");
  const fs::path folded_victim = testing::victim_file(dir() / "victim-folded");
  const fs::path callsites = out / "callsites";
  testing::plant_link(victim, callsites / (ids[1] + ".txt"));
  testing::plant_fifo(callsites / (ids[2] + ".txt"));
  testing::plant_link("/dev/zero", callsites / (ids[3] + ".txt"));
  testing::plant_link(folded_victim, callsites / (ids[0] + ".folded"));
  Result r = bench({"--resume", out.string()});
  ASSERT_FALSE(r.timed_out) << "bench stalled: " << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(slurp(victim), kVictimText) << "memprof wrote through the link";
  EXPECT_EQ(slurp(folded_victim), kVictimText) << "bench wrote the .folded through the link";
  for (const std::string& id : {ids[1], ids[2], ids[3]}) {
    ASSERT_EQ(kind_at(callsites / (id + ".txt")), "file") << id << ": the planted name is replaced";
    EXPECT_EQ(slurp(callsites / (id + ".txt")).rfind("# allocstamp callsites format=1\n", 0), 0u) << id;
  }
  EXPECT_EQ(kind_at(callsites / (ids[0] + ".folded")), "file");
}

// Item 2: callsites.csv planted as a link during the sweep (a resume refuses
// a link there before it starts) is replaced at the sweep's end, its victim
// left as it was.
TEST_F(EditedFolder, APlantedCallsitesCsvIsReplacedNotWrittenThrough) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path out = dir() / "planted-csv";
  const fs::path victim = testing::victim_file(dir() / "victim-csv");
  Result r = sweep_after_shell(out, "ln -sfn " + quoted(victim) + " " + quoted(out / "callsites.csv"));
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(slurp(victim), kVictimText) << "bench wrote callsites.csv through the link";
  EXPECT_EQ(kind_at(out / "callsites.csv"), "file");
  EXPECT_NE(slurp(out / "callsites.csv").find("run_id"), std::string::npos);
}

// Item 2: a call-site file that is not the folder's own regular file when
// bench reads it back (a link to a valid file elsewhere, a FIFO, a link to
// /dev/zero) is refused with exit 2 naming it: never read through, never a
// stall or a gigabyte read.
TEST_F(EditedFolder, CallsiteFilesAreReadOnlyAsThemselves) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path out = dir() / "read-back";
  callsites_sweep(out, 1);
  const std::vector<std::string> ids = callsite_ids(out);
  ASSERT_EQ(ids.size(), 1u);
  const fs::path file = out / "callsites" / (ids[0] + ".txt");
  const fs::path elsewhere = dir() / "elsewhere.txt";
  fs::copy_file(file, elsewhere);
  const std::pair<std::function<void()>, std::string> plants[] = {
      {[&] { testing::plant_link(elsewhere, file); }, "is a symbolic link"},
      {[&] { testing::plant_fifo(file); }, "is a FIFO"},
      {[&] { testing::plant_link("/dev/zero", file); }, "is a symbolic link"},
  };
  for (const auto& [plant, says] : plants) {
    plant();
    Result r = bench({"--resume", out.string()});  // nothing left to run: the folder's files written again
    ASSERT_FALSE(r.timed_out) << says << ": bench stalled";
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(file.string() + " " + says), std::string::npos) << r.err;
  }
}

// Item 2: callsites/ swapped for a link during the sweep (by the first
// workload, a shell): memprof does not follow it, each later profiled run
// fails naming it while the sweep goes on, and bench refuses to read through
// it at the end (exit 2); the folder it points at stays empty.
TEST_F(EditedFolder, ALinkedCallsitesFolderFailsItsRunsAndIsNotFollowed) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path out = dir() / "linked-folder", victim = dir() / "victim-folder";
  fs::create_directories(victim);
  Result r = sweep_after_shell(out, "rm -rf " + quoted(out / "callsites") + " && ln -s " + quoted(victim) + " " +
                                       quoted(out / "callsites"));
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(testing::flat(r.err).find((out / "callsites").string() + " is a symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(victim)) << "a call-site file was written through the link";
  const std::string runs = slurp(out / "runs.csv");
  int rows = 0;
  for (char c : runs) rows += c == '\n';
  EXPECT_EQ(rows, 2 + 4) << "every run of the plan is recorded: the sweep went on\n" << runs;
  EXPECT_NE(runs.find("callsites is a symbolic link"), std::string::npos) << "a profiled run failed, naming it\n" << runs;
}

// Item 2, memprof alone: MEMPROF_CALLSITES in a folder that is a link is not
// written (a warning says so); a link at the file's name is replaced.
TEST_F(EditedFolder, MemprofWritesItsCallsiteFileOnlyIntoARealFolder) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const fs::path victim = dir() / "memprof-victim", folder = dir() / "memprof-folder";
  fs::create_directories(victim);
  fs::create_directories(folder);
  fs::create_directory_symlink(victim, dir() / "memprof-link");
  auto run = [](const fs::path& file) {
    testing::CommandOptions options;
    options.env = {"LD_PRELOAD=" + std::string(MEMPROF_LIBRARY), "MEMPROF_SAMPLE_BYTES=16K",
                   "MEMPROF_CALLSITES=" + file.string(), "MEMPROF_OUT=/dev/null"};
    options.timeout_seconds = 30;
    return testing::run_command({"/bin/true"}, options);
  };
  Result linked = run(dir() / "memprof-link" / "1.txt");
  EXPECT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_TRUE(fs::is_empty(victim)) << "memprof followed the folder's link";
  EXPECT_NE(testing::flat(linked.err).find("cannot be written"), std::string::npos) << linked.err;
  const fs::path file_victim = testing::victim_file(dir() / "memprof-file-victim");
  testing::plant_link(file_victim, folder / "1.txt");
  Result replaced = run(folder / "1.txt");
  EXPECT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_EQ(slurp(file_victim), kVictimText) << "memprof wrote through the link";
  EXPECT_EQ(kind_at(folder / "1.txt"), "file");
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1) << "no temporary left";
}

// A small sweep without call sites (or one part of it, --shard K/2), its last run still to make.
void small_sweep(const fs::path& out, const std::string& shard = "") {
  std::vector<std::string> args = {"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1,2",
                                   "--reps=1", "--profile-reps=1", "--out=" + out.string()};
  if (!shard.empty()) args.push_back("--shard=" + shard);
  Result r = bench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// Item 12: each option meta.json records, edited by hand in turn, is refused
// by name on --resume (the attack's: profile edited to counts), before
// anything is written; a meta.json without its seal too. Only no_plot, which
// changes no result, may change.
TEST_F(EditedFolder, AResumeRefusesEachEditedOptionByName) {
  const fs::path out = dir() / "edited-options";
  small_sweep(out);
  {
    std::string text = slurp(out / "runs.csv");  // the last run still to make
    std::ofstream(out / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  }
  const std::string original = slurp(out / "meta.json"), runs = slurp(out / "runs.csv");
  const nlohmann::json meta = nlohmann::json::parse(original);
  ASSERT_TRUE(meta.contains("options_seal")) << original;
  // Another value of the same type: what from_json still reads.
  auto edited = [](const std::string& name, const nlohmann::json& v) -> nlohmann::json {
    if (name == "profile") return "counts";
    if (v.is_boolean()) return !v.get<bool>();
    if (v.is_number_integer()) return v.get<long long>() + 1;
    if (v.is_number_float()) return v.get<double>() * 2 + 1;
    if (v.is_string()) return v.get<std::string>() + "x";
    if (v.is_array()) {
      nlohmann::json a = v;
      const bool numbers = name == "threads" || name == "simulate_threads";
      a.push_back(numbers ? nlohmann::json(3) : nlohmann::json("x"));
      return a;
    }
    if (v.is_object()) {
      nlohmann::json o = v;
      o["x"] = name == "args" ? nlohmann::json::array({"y"}) : nlohmann::json("y");
      return o;
    }
    return nullptr;
  };
  int tried = 0;
  for (const auto& [name, value] : meta["options"].items()) {
    if (name == "no_plot") continue;
    nlohmann::json changed = meta;
    changed["options"][name] = edited(name, value);
    std::ofstream(out / "meta.json", std::ios::trunc) << changed.dump(2);
    Result r = bench({"--resume", out.string()});
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("options." + name + " was edited"), std::string::npos) << name << ": " << r.err;
    EXPECT_EQ(slurp(out / "runs.csv"), runs) << name << ": nothing written";
    ++tried;
  }
  EXPECT_GE(tried, 20) << "meta.json records the sweep's options";
  // Two at once, an option added and the seal removed.
  nlohmann::json two = meta;
  two["options"]["seed"] = 9;
  two["options"]["timeout"] = 1.0;
  two["options"]["no_profile"] = true;
  std::ofstream(out / "meta.json", std::ios::trunc) << two.dump(2);
  Result both = bench({"--resume", out.string()});
  EXPECT_EQ(both.exit_code, 2);
  for (const char* name : {"options.seed", "options.timeout", "options.no_profile"})
    EXPECT_NE(testing::flat(both.err).find(name), std::string::npos) << both.err;
  nlohmann::json unsealed = meta;
  unsealed.erase("options_seal");
  unsealed["options"]["profile"] = "counts";
  std::ofstream(out / "meta.json", std::ios::trunc) << unsealed.dump(2);
  Result none = bench({"--resume", out.string()});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(testing::flat(none.err).find("carries no options_seal"), std::string::npos) << none.err;
  EXPECT_EQ(slurp(out / "runs.csv"), runs);
  // no_plot changes no result: a resume takes it.
  nlohmann::json no_plot = meta;
  no_plot["options"]["no_plot"] = !meta["options"]["no_plot"].get<bool>();
  std::ofstream(out / "meta.json", std::ios::trunc) << no_plot.dump(2);
  Result resumed = bench({"--resume", out.string()});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

// Item 13: a NUL in a part's meta.json (its CPU) cut merge's refusal short;
// the message is whole, the byte shown as \x00. Item 12: merge seals the
// merged folder's options again (its shard cleared), so it resumes.
TEST_F(EditedFolder, MergeShowsAControlByteAndSealsWhatItMerges) {
  const fs::path p1 = dir() / "part1", p2 = dir() / "part2", odd = dir() / "part2-nul";
  small_sweep(p1, "1/2");
  small_sweep(p2, "2/2");
  fs::copy(p2, odd, fs::copy_options::recursive);
  nlohmann::json meta = nlohmann::json::parse(slurp(odd / "meta.json"));
  meta["machine"]["cpu"] = std::string("A\0B", 3);
  std::ofstream(odd / "meta.json", std::ios::trunc) << meta.dump(2);
  Result refused = bench({"merge", (dir() / "merged-nul").string(), p1.string(), odd.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(testing::flat(refused.err).find("ran on a A\\x00B, "), std::string::npos) << refused.err;
  EXPECT_NE(testing::flat(refused.err).find("run every part on identical nodes"), std::string::npos) << "the message goes on: " << refused.err;
  const fs::path merged = dir() / "merged";
  Result good = bench({"merge", merged.string(), p1.string(), p2.string()});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  Result resumed = bench({"--resume", merged.string()});
  EXPECT_EQ(resumed.exit_code, 0) << "the merged folder's options are sealed as merged: " << resumed.err;
}

}  // namespace
}  // namespace allocstamp
