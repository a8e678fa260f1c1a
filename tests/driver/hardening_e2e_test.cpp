// hardening_e2e_test — the results folder and the command line against what a
// demanding user does: two sweeps on one folder (the second is refused with the
// holder's pid), a row torn by a full disk or a kill (cut off on --resume and
// its run made again), flag values CLI11 alone lets through (an empty
// value, empty list items, an empty or non-UTF-8 --out, nan numbers, a
// timeout of 0, spaces around list items), a library given as an
// allocator that is none, and Slurm values that would end an #SBATCH line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "run_command.h"
#include "results/runs.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

class Hardening : public ::testing::Test {
 protected:
  Result bench(std::vector<std::string> args) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    // The test workloads, one thread and no figures unless a test says otherwise
    // (the default job these flags narrow runs 1 and 2 threads and draws figures).
    options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
    options.timeout_seconds = 120;
    return testing::run_command(args, options);
  }

  testing::ScratchDir scratch_{"hardening-e2e"};
  const fs::path& dir_ = scratch_.path();
};

TEST_F(Hardening, ASecondWriterOfAFolderIsRefused) {
  const std::string out = "--out=" + (dir_ / "busy").string();
  Result first;
  std::thread sweep([&] {
    first = bench({"--workload=test-slow", "--alloc=glibc", "--size=tiny", "--reps=3", "--no-profile", out});
  });
  // Waits for the event, not for a time: the first holds the folder once its
  // .lock carries its pid (written after the lock is taken).
  const fs::path lock = dir_ / "busy" / ".lock";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!(fs::exists(lock) && fs::file_size(lock) > 0) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (!(fs::exists(lock) && fs::file_size(lock) > 0)) {
    sweep.join();
    FAIL() << "the first bench never took the folder: " << first.err;
  }
  Result second = bench({"--resume", (dir_ / "busy").string()});
  sweep.join();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(testing::flat(second.err).find("is being written by another bench (pid "), std::string::npos) << second.err;
  RunsTable runs = load_runs(dir_ / "busy", "busy");
  EXPECT_EQ(runs.rows.size(), 3u) << "no row of a second writer";
  // Once the first has ended, the folder is free again.
  EXPECT_EQ(bench({"--resume", (dir_ / "busy").string()}).exit_code, 0);
}

TEST_F(Hardening, ATornRowIsCutOffAndItsRunMadeAgain) {
  const fs::path folder = dir_ / "torn";
  ASSERT_EQ(bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=2", "--no-series",
                   "--out=" + folder.string()})
                .exit_code,
            0);
  const std::size_t rows = load_runs(folder, "torn").rows.size();
  {
    // The last row cut in the middle, as a full disk leaves it.
    std::string text = testing::slurp(folder / "runs.csv");
    std::size_t last = text.rfind('\n', text.size() - 2);
    std::ofstream(folder / "runs.csv", std::ios::trunc) << text.substr(0, last + 1 + 20);
  }
  Result resumed = bench({"--resume", folder.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  RunsTable runs = load_runs(folder, "torn");  // refuses a row of the wrong width
  EXPECT_EQ(runs.rows.size(), rows);
  Result check = bench({"check", "--baseline", folder.string(), "--current", folder.string()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// A disk that fills at the start (a file-size limit here): meta.json is written
// first, or nothing is left — never a folder --resume cannot take.
TEST_F(Hardening, AFullDiskAtTheStartLeavesNoHalfFolder) {
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/prlimit"), "prlimit (util-linux)");
  for (const char* limit : {"--fsize=100", "--fsize=3000"}) {  // meta.json fails; then the CSVs
    const fs::path folder = dir_ / (std::string("full") + limit);
    testing::CommandOptions options;
    // The test workloads, one thread and no figures unless a test says otherwise
    // (the default job these flags narrow runs 1 and 2 threads and draws figures).
    options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
    Result r = testing::run_command({"/usr/bin/prlimit", limit, "--", BENCH_BINARY, "--workload=test-alloc",
                                     "--alloc=glibc", "--size=tiny", "--reps=1", "--out=" + folder.string()},
                                    options);
    EXPECT_NE(r.exit_code, 0) << limit;
    EXPECT_EQ(r.signal, 0) << limit << ": bench must say what failed, not die by a signal";
    if (fs::exists(folder)) {
      EXPECT_TRUE(fs::exists(folder / "meta.json")) << limit << ": a folder without meta.json was left";
      Result resumed = bench({"--resume", folder.string()});
      EXPECT_EQ(resumed.exit_code, 0) << limit << ": " << resumed.err;
    } else {
      EXPECT_NE(testing::flat(r.err).find("disk full"), std::string::npos) << r.err;
    }
  }
}

// Damaged runs.csv files: check, summarize and plot (one reader) refuse each
// with exit 2, naming the row and the column; CRLF line ends are read as LF.
TEST_F(Hardening, DamagedRunsFilesAreRefusedByEveryCommand) {
  const fs::path good = dir_ / "good";
  ASSERT_EQ(bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=2", "--no-series",
                   "--out=" + good.string()})
                .exit_code,
            0);
  const std::string text = testing::slurp(good / "runs.csv");
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_GE(lines.size(), 4u);
  const std::vector<std::string> header = [&] {
    std::vector<std::string> h;
    std::istringstream cells(lines[1]);
    for (std::string f; std::getline(cells, f, ',');) h.push_back(f);
    return h;
  }();
  auto column = [&](const std::string& name) {
    return std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
  };
  // The file with field `name` of data row 1 set to `value`.
  auto with_field = [&](const std::string& name, const std::string& value) {
    std::vector<std::string> cells;
    std::istringstream in(lines[2]);
    for (std::string f; std::getline(in, f, ',');) cells.push_back(f);
    cells.resize(header.size());
    cells[column(name)] = value;
    std::string row;
    for (const auto& c : cells) row += (row.empty() ? "" : ",") + c;
    std::string out = lines[0] + "\n" + lines[1] + "\n" + row + "\n";
    for (std::size_t i = 3; i < lines.size(); ++i) out += lines[i] + "\n";
    return out;
  };
  std::string duplicate_id = with_field("run_id", "2"), twice_header = text;
  twice_header.replace(twice_header.find("workload,"), 9, "workload,workload,");
  std::string nul_between = text;
  nul_between.insert(nul_between.find('\n', nul_between.find('\n') + 1) + 1, std::string("\0\0\n", 3));
  const std::pair<std::string, std::string> cases[] = {
      {duplicate_id, "appears twice"},
      {twice_header, "twice"},
      {with_field("allocs_seq_count", "0x10"), "column allocs_seq_count"},
      {with_field("allocs_seq_count", std::string("12\0" "3", 4)), "data row 1 (line 3): a NUL byte"},
      {with_field("allocs_seq_count", "-5"), "column allocs_seq_count"},
      {with_field("allocs_seq_count", "2.5"), "column allocs_seq_count"},
      {with_field("requested_seq_bytes", "18446744073709551616"), "column requested_seq_bytes"},
      {with_field("wall_ns", "-1"), "column wall_ns"},
      {with_field("status", "great"), "column status"},
      {with_field("run_id", "one"), "column run_id"},
      {with_field("threads", "0"), "column threads"},
      {nul_between, "data row"},
  };
  int n = 0;
  for (const auto& [content, says] : cases) {
    const fs::path bad = dir_ / ("bad" + std::to_string(++n));
    fs::create_directories(bad);
    std::ofstream(bad / "runs.csv", std::ios::binary) << content;
    fs::copy_file(good / "meta.json", bad / "meta.json");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"check", "--baseline", good.string(), "--current", bad.string()},
          std::vector<std::string>{"summarize", bad.string()}, std::vector<std::string>{"plot", bad.string()}}) {
      Result r = bench(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " of case " << n << " (" << says << "): " << r.out << r.err;
      EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << args[0] << " of case " << n << ": " << r.err;
    }
  }
  // CRLF: the same file with Windows line ends reads as the original.
  const fs::path crlf = dir_ / "crlf";
  fs::create_directories(crlf);
  std::string windows;
  for (const auto& l : lines) windows += l + "\r\n";
  std::ofstream(crlf / "runs.csv", std::ios::binary) << windows;
  fs::copy_file(good / "meta.json", crlf / "meta.json");
  Result same = bench({"check", "--baseline", good.string(), "--current", crlf.string(), "--deterministic-only"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
}

// Registries: a built-in's name taken, an allocator without a library, a
// value of the wrong type and a name given twice are each exit 2 naming the
// file and the entry.
TEST_F(Hardening, RegistryEntriesThatWouldMislabelRowsAreRefused) {
  auto file = [&](const std::string& name, const std::string& json) {
    fs::path p = dir_ / name;
    std::ofstream(p) << json;
    return p.string();
  };
  const std::string lib = "\"libraries\": [\"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\"]";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--registry=" + file("glibc.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"glibc\", " + lib + "}]}")},
       "the allocator 'glibc' is defined already"},
      {{"--registry=" + file("nolib.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"mine\"}]}")},
       "the allocator 'mine' has no \"libraries\""},
      {{"--registry=" + file("type.json", "{\"schema\": 1, \"allocators\": [{\"name\": 42, " + lib + "}]}")},
       "\"name\" is number, not a string"},
      // The harness's own variables (issue 46, N6) and a NUL in a value (N7).
      {{"--registry=" + file("preload.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"mine\", " + lib +
                                                 ", \"env\": {\"LD_PRELOAD\": \"libtcmalloc_minimal.so.4\"}}]}")},
       "the allocator 'mine' sets LD_PRELOAD, which bench sets the LD_* variables of every run itself"},
      {{"--registry=" + file("memprof.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"mine\", " + lib +
                                                 ", \"env\": {\"MEMPROF_OUT\": \"x\"}}]}")},
       "the allocator 'mine' sets MEMPROF_OUT, which bench sets the MEMPROF_* variables"},
      {{"--registry=" + file("nul.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"mine\", " + lib +
                                             ", \"env\": {\"MALLOC_CONF\": \"a\\u0000b\"}}]}")},
       "allocators[0].env.MALLOC_CONF holds a NUL byte"},
      // ... in any string of a registry or workloads file (the attack's re-run: a library path, an argument).
      {{"--registry=" + file("nullib.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"mine\", "
                                                "\"libraries\": [\"/usr/lib/x\\u0000y.so\"]}]}")},
       "allocators[0].libraries[0] holds a NUL byte"},
      {{"--workloads=" + file("nularg.json", "{\"schema\": 1, \"workloads\": [{\"name\": \"w\", \"binary\": "
                                                 "\"bin/churn\", \"args\": [\"a\\u0000b\"]}]}")},
       "workloads[0].args[0] holds a NUL byte"},
      {{"--alloc=jemalloc:LD_PRELOAD=libtcmalloc_minimal.so.4"}, "LD_PRELOAD cannot be a variant's setting"},
      {{"--alloc=glibc:ITM_DEFAULT_METHOD=serialirr"}, "ITM_DEFAULT_METHOD cannot be a variant's setting"},
      {{"--alloc=glibc:MEMPROF_TRACE=t"}, "MEMPROF_TRACE cannot be a variant's setting"},
      {{"--workloads=" + file("twice.json",
                              "{\"schema\": 1, \"workloads\": [{\"name\": \"w\", \"binary\": \"bin/churn\"}, "
                              "{\"name\": \"w\", \"binary\": \"bin/stress\"}]}")},
       "the workload 'w' is defined already"},
      // Found by fuzz_registry: a number past double's range escaped as "a bug in bench".
      {{"--registry=" + file("huge.json", "{\"schema\": 1, \"allocators\": [{\"name\": \"x\", \"n\": 1e999}]}")},
       "is not valid JSON"},
      {{"--workloads=" + file("builtin.json",
                              "{\"schema\": 1, \"workloads\": [{\"name\": \"churn\", \"binary\": \"bin/stress\"}]}")},
       "the workload 'churn' is defined already"},
  };
  for (const auto& [args, says] : cases) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--workload=test-alloc", "--dry-run"});
    Result r = bench(a);
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
  }
}

// Typos get help: the nearest flag, workload or allocator is named.
TEST_F(Hardening, TyposAreAnsweredWithTheNearestName) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--thread=2", "--workload=test-alloc", "--dry-run"}, "did you mean '--threads'?"},
      {{"--workload=test-aloc", "--dry-run"}, "did you mean 'test-alloc'?"},
      {{"--workload=vacaton", "--dry-run"}, "did you mean 'vacation'?"},  // a stem, as --workload=vacation takes it
      {{"--alloc=jemaloc", "--workload=test-alloc", "--dry-run"}, "did you mean 'jemalloc'?"},
      {{"check", "--baselin=a", "--current=b"}, "bench check --help"},
      {{"--workload=test-alloc", "--threads=4-1", "--dry-run"}, "runs from high to low"},
      {{"--workload=test-alloc", "--threads=1-x", "--dry-run"}, "is not a range of thread counts"},
      // Every flag that takes one of a fixed set of values, and the presets.
      {{"--tm=ml-wt", "--workload=test-alloc", "--dry-run"}, "did you mean 'ml_wt'?"},
      {{"--size=smal", "--workload=test-alloc", "--dry-run"}, "did you mean 'small'?"},
      {{"--profile=count", "--workload=test-alloc", "--dry-run"}, "did you mean 'counts'?"},
      {{"--preset=maps", "--dry-run"}, "did you mean 'maps-containers'?"},
      {{"check", "a", "b", "--allow-different=librar"}, "did you mean 'library'?"},
      {{"overhead", "--clock=wal"}, "did you mean 'wall'?"},
      {{"trace", "replay", "x.astrace", "--timing=recorde"}, "did you mean 'recorded'?"},
  };
  for (const auto& [args, says] : cases) {
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
  }
}

// bench check takes the two folders as its first two words too.
TEST_F(Hardening, CheckTakesTheTwoFoldersInOrder) {
  Result r = bench({"check", (dir_ / "nowhere-a").string(), (dir_ / "nowhere-b").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(testing::flat(r.err).find("baseline " + (dir_ / "nowhere-a").string() + " does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(testing::flat(r.err).find("is required"), std::string::npos) << r.err;
}

// --workload takes a glob: the workloads whose names match, or a refusal.
TEST_F(Hardening, AWorkloadGlobSelectsTheNamesItMatches) {
  Result r = bench({"--workload=maps-insert-std_*", "--alloc=glibc", "--threads=1", "--reps=1", "--no-profile",
                    "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* w : {"maps-insert-std_map ", "maps-insert-std_multimap ", "maps-insert-std_unordered_map ",
                        "maps-insert-std_vector_sorted "})
    EXPECT_NE(r.out.find(w), std::string::npos) << w << " in:\n" << r.out;
  EXPECT_EQ(r.out.find("maps-insert-absl"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("maps-churn"), std::string::npos) << r.out;
  Result none = bench({"--workload=nothing-*", "--dry-run"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(testing::flat(none.err).find("error: --workload 'nothing-*' matches no workload"), std::string::npos) << none.err;
}

// --size replaces a preset's sizes and the arguments that go with them, and
// says which arguments it dropped.
TEST_F(Hardening, SizeWithAPresetNamesTheArgumentsItDrops) {
  Result r = bench({"--preset=default", "--size=tiny", "--workload=vacation-high,churn", "--alloc=glibc", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --size tiny replaces preset default's sizes and drops the arguments it gives with them:\n"
                       "  vacation-high --transactions 49152\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("--transactions"), std::string::npos) << r.out;
  Result kept = bench({"--preset=default", "--workload=vacation-high", "--alloc=glibc", "--dry-run"});
  EXPECT_EQ(testing::flat(kept.err).find("drops the arguments"), std::string::npos) << kept.err;
  EXPECT_NE(kept.out.find("--transactions 49152"), std::string::npos) << kept.out;
  // A prefix, a family or a glob names the workloads too: their dropped arguments are said (issue 58).
  for (const char* named : {"--workload=vacation", "--workload=stamp", "--workload=vacation-*"}) {
    Result broad = bench({"--preset=default", "--size=tiny", named, "--alloc=glibc", "--dry-run"});
    ASSERT_EQ(broad.exit_code, 0) << named << ": " << broad.err;
    EXPECT_NE(testing::flat(broad.err).find("drops the arguments it gives with them:"), std::string::npos) << named << ": " << broad.err;
    EXPECT_NE(broad.err.find("\n  vacation-low --transactions 65536"), std::string::npos) << named << ": " << broad.err;
    EXPECT_NE(broad.err.find("\n  vacation-high --transactions 49152"), std::string::npos) << named << ": " << broad.err;
  }
  Result ci = bench({"--preset=ci", "--size=small", "--workload=churn", "--alloc=glibc", "--dry-run"});
  EXPECT_NE(ci.err.find("\n  churn --iterations 40000"), std::string::npos) << ci.err;
}

// An allocator given by path must be one: its dynamic symbol table defines
// malloc and free (libz defines neither: glibc's numbers would be labelled
// libz.so.1), and it is a shared library at all. Refused before anything runs.
TEST_F(Hardening, AnAllocatorGivenByPathMustDefineMallocAndFree) {
  const std::string libz = "/usr/lib/x86_64-linux-gnu/libz.so.1";
  ASSERT_TRUE(fs::exists(libz)) << "zlib1g is part of every Debian system";
  const fs::path text = dir_ / "libnotes.so";
  std::ofstream(text) << "not an ELF file\n";
  const std::pair<std::string, std::string> cases[] = {
      {libz, "error: libz.so.1 defines no malloc and no free — give an allocator library"},
      {text.string(), "error: libnotes.so is not a shared library — give an allocator library"},
  };
  for (const auto& [library, says] : cases) {
    const fs::path out = dir_ / "refused";
    Result r = bench({"--alloc=" + library, "--workload=test-alloc", "--size=tiny", "--reps=1", "--no-profile",
                      "--out=" + out.string()});
    EXPECT_EQ(r.exit_code, 2) << library << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing ran";
  }
  // A real allocator by path runs, named by its ELF build-id (no package names it).
  const std::string jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  SKIP_UNLESS_INSTALLED(fs::exists(jemalloc), "libjemalloc2");
  const fs::path out = dir_ / "by-path";
  Result r = bench({"--alloc=" + jemalloc, "--workload=test-alloc", "--size=tiny", "--reps=1", "--no-profile",
                    "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunsTable runs = load_runs(out, "by-path");
  ASSERT_EQ(runs.rows.size(), 1u);
  const std::string library = runs.text(runs.rows[0], "alloc_library");
  EXPECT_EQ(library.rfind(jemalloc + " build-id ", 0), 0u) << library;
  EXPECT_GE(library.size(), jemalloc.size() + 10 + 40) << "a 160-bit build-id in hex: " << library;
  EXPECT_EQ(runs.text(runs.rows[0], "args"), "alloc --threads 1 --size tiny --seed 1");
}

// --timeout 0 or below would stop every run at once: refused in the house format.
// memprof keeps the paths bench hands it in 512-byte buffers: a results folder
// whose call-site files, or a trace whose files, would not fit is refused
// before anything runs (the attack's re-run: a 500-byte --out ran "ok" with
// no call sites, a 504-byte --trace ended in a misleading "no record").
TEST_F(Hardening, PathsMemprofCannotHoldAreRefusedBeforeAnythingRuns) {
  const fs::path deep = dir_ / std::string(200, 'd') / std::string(200, 'e') / std::string(100, 'f');
  Result sweep = bench({"--workload=test-alloc", "--alloc=glibc", "--reps=1", "--callsites", "--out=" + deep.string()});
  EXPECT_EQ(sweep.exit_code, 2) << sweep.out << sweep.err;
  EXPECT_NE(testing::flat(sweep.err).find("--out is too long: the call-site files memprof writes under it"), std::string::npos)
      << sweep.err;
  EXPECT_FALSE(fs::exists(deep)) << "nothing made";
  Result trace = bench({"trace", "record", "--trace", (deep / "t.astrace").string(), "--", "/bin/true"});
  EXPECT_EQ(trace.exit_code, 2) << trace.out << trace.err;
  EXPECT_NE(testing::flat(trace.err).find("it takes paths of at most 511 bytes"), std::string::npos) << trace.err;
  // Just short enough: runs, with its call sites.
  const fs::path fits = dir_ / std::string(150, 'g');
  Result ok = bench({"--workload=test-alloc", "--alloc=glibc", "--reps=1", "--callsites", "--out=" + fits.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(fits / "callsites.csv")) << ok.out;
}

// Flags that disagree are said, not settled silently: --no-profile (or
// --profile=none) with --profile-reps 3 once made no profiled run without a
// word. A budget of 0 minutes says so in words (CLI11's check printed its
// range up to DBL_MAX, 0 seeming in it).
TEST_F(Hardening, DisagreeingFlagsAndANoughtBudgetAreRefusedInWords) {
  for (const char* off : {"--no-profile", "--profile=none"}) {
    Result r = bench({off, "--profile-reps=3", "--workload=test-alloc", "--dry-run"});
    EXPECT_EQ(r.exit_code, 2) << off << ": " << r.err;
    EXPECT_NE(testing::flat(r.err).find(std::string(off) + " and --profile-reps 3 disagree"), std::string::npos) << r.err;
  }
  Result zero = bench({"--profile-reps=0", "--no-profile", "--workload=test-alloc", "--dry-run"});
  EXPECT_EQ(zero.exit_code, 0) << "they agree: " << zero.err;
  Result budget = bench({"--budget=0", "--precision=5", "--workload=test-alloc", "--dry-run"});
  EXPECT_EQ(budget.exit_code, 2) << budget.err;
  EXPECT_NE(testing::flat(budget.err).find("a budget is minutes, more than 0: not 0"), std::string::npos) << budget.err;
  EXPECT_EQ(budget.err.find("1797693"), std::string::npos) << budget.err;
  // A variant's value with a comma is cut by --alloc's list: said so, with the registry line that takes it
  // (it read "unknown allocator 'b'" alone).
  Result comma = bench({"--alloc=jemalloc:MALLOC_CONF=a,b", "--workload=test-alloc", "--dry-run"});
  EXPECT_EQ(comma.exit_code, 2) << comma.err;
  EXPECT_NE(testing::flat(comma.err).find("unknown allocator 'b': --alloc's list is cut at commas"), std::string::npos)
      << comma.err;
  EXPECT_NE(testing::flat(comma.err).find(R"({"name": "jemalloc:mine", "base": "jemalloc", "env": {"MALLOC_CONF": "..."}})"),
            std::string::npos)
      << comma.err;
  // --simulate-workloads naming only workloads the sweep does not run simulated nothing, silently.
  Result outside = bench({"--simulate", "--simulate-workloads=churn", "--workload=test-alloc", "--alloc=glibc", "--dry-run"});
  EXPECT_EQ(outside.exit_code, 2) << outside.err;
  EXPECT_NE(testing::flat(outside.err).find("--simulate-workloads names only workloads this sweep does not run (churn)"),
            std::string::npos)
      << outside.err;
}

TEST_F(Hardening, ATimeoutMustBePositive) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--timeout", "0"},
                                               std::vector<std::string>{"--timeout=-5"}}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--workload=test-alloc", "--dry-run"});
    Result r = bench(a);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(testing::flat(r.err).rfind("error: --timeout must be > 0 (it is ", 0), 0u) << r.err;
    EXPECT_NE(testing::flat(r.err).find(" — give the seconds a run may take"), std::string::npos) << r.err;
  }
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_TIMEOUT=0"};
  Result r = testing::run_command({BENCH_BINARY, "--workload=test-alloc", "--dry-run"}, options);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(testing::flat(r.err).find("--timeout must be > 0"), std::string::npos) << r.err;
}

// A list as a shell user quotes it, "glibc, jemalloc": the spaces around its
// items go, on the command line and in the variables.
TEST_F(Hardening, ListItemsAreTrimmed) {
  Result r = bench({"--workload=test-alloc, test-slow", "--alloc= glibc ", "--threads", "1, 2", "--size=tiny",
                    "--reps=1", "--no-profile", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* run : {"test-alloc glibc t=1 ", "test-alloc glibc t=2 ", "test-slow glibc t=1 ", "test-slow glibc t=2 "})
    EXPECT_NE(r.out.find(run), std::string::npos) << run << ": " << r.out;
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_WORKLOAD=test-alloc, test-slow",
                 "ALLOCSTAMP_ALLOC=glibc ,glibc", "ALLOCSTAMP_THREADS=1 , 2"};
  Result v = testing::run_command({BENCH_BINARY, "--size=tiny", "--reps=1", "--no-profile", "--dry-run"}, options);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("4 runs;"), std::string::npos) << v.out;
  // An item left empty by the trimming is still an empty item.
  Result empty = bench({"--alloc=glibc, ,glibc", "--workload=test-alloc", "--dry-run"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(testing::flat(empty.err).find("--alloc has an empty item"), std::string::npos) << empty.err;
}

// The test workloads, the figures left to the preset (the suite's
// ALLOCSTAMP_NO_PLOT and ALLOCSTAMP_THREADS dropped).
testing::CommandOptions figures_allowed() {
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS)};
  options.drop_prefixes = {"ALLOCSTAMP_NO_PLOT", "ALLOCSTAMP_THREADS"};
  options.timeout_seconds = 120;
  return options;
}

// runs.csv without its last row.
void lose_the_last_run(const fs::path& folder) {
  const std::string text = testing::slurp(folder / "runs.csv");
  std::ofstream(folder / "runs.csv", std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
}

// A sweep started with --no-plot is resumed without figures: the option is in
// meta.json. The preset's banner names the flags that changed its job instead
// of describing the default job (its "about thirty minutes").
TEST_F(Hardening, AResumedSweepKeepsItsNoPlot) {
  const fs::path folder = dir_ / "no-plot";
  const testing::CommandOptions options = figures_allowed();
  Result first = testing::run_command({BENCH_BINARY, "--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1",
                                       "--reps=2", "--no-profile", "--no-plot", "--out=" + folder.string()},
                                      options);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out.find("the main job"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("preset default, changed by --alloc, --workload, --threads, --size, --reps, --no-profile, "
                           "--no-plot"),
            std::string::npos)
      << first.out;
  lose_the_last_run(folder);  // as an interrupted sweep leaves it
  Result resumed = testing::run_command({BENCH_BINARY, "--resume", folder.string()}, options);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(testing::flat(resumed.err).find("1 of 2 runs left"), std::string::npos) << resumed.err;
  EXPECT_EQ(resumed.out.find("\nfigures: "), std::string::npos) << resumed.out;
  EXPECT_FALSE(fs::exists(folder / "report.md"));
}

// A sweep whose preset draws the figures draws them when it is resumed too:
// meta.json keeps the preset's name, and the resume asks the preset (the
// figures were once decided before the saved options replaced the typed ones,
// and lost with them: no resumed sweep drew). --per-comparison and --wide,
// which change only what is shown, go with --resume.
TEST_F(Hardening, AResumedSweepDrawsWhatItsPresetDraws) {
  const fs::path folder = dir_ / "plots";
  const testing::CommandOptions options = figures_allowed();
  Result first = testing::run_command({BENCH_BINARY, "--workload=test-alloc", "--alloc=glibc,jemalloc", "--size=tiny", "--threads=1",
                                       "--reps=2", "--no-profile", "--out=" + folder.string()},
                                      options);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_NE(first.out.find("\nfigures: "), std::string::npos) << first.out;
  lose_the_last_run(folder);
  fs::remove(folder / "report.html");
  Result resumed =
      testing::run_command({BENCH_BINARY, "--resume", folder.string(), "--per-comparison", "--wide"}, options);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(testing::flat(resumed.err).find("1 of 4 runs left"), std::string::npos) << resumed.err;
  // How the results are shown is the resume's own say.
  EXPECT_EQ(first.out.find("Uncorrected (--per-comparison)"), std::string::npos) << first.out;
  EXPECT_NE(testing::flat(resumed.out).find("Uncorrected (--per-comparison)"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("\nfigures: " + (folder / "report.html").string()), std::string::npos) << resumed.out;
  EXPECT_TRUE(fs::exists(folder / "report.html"));
}

// A resume from a shell with other allocator tunings than the sweep started
// with is refused, naming both: the runs left would be made under another
// setup, each cell split in two ("jemalloc" and "jemalloc #2"). The same
// ones resume.
TEST_F(Hardening, AResumeWithOtherAllocatorTuningsIsRefused) {
  const fs::path folder = dir_ / "tunings";
  testing::CommandOptions options = figures_allowed();
  options.drop_prefixes.push_back("MALLOC_CONF");
  options.drop_prefixes.push_back("MIMALLOC_");
  Result first = testing::run_command({BENCH_BINARY, "--workload=test-alloc", "--alloc=jemalloc", "--size=tiny",
                                       "--threads=1", "--reps=2", "--no-profile", "--no-plot", "--out=" + folder.string()},
                                      options);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  lose_the_last_run(folder);
  testing::CommandOptions tuned = options;
  tuned.env.push_back("MALLOC_CONF=narenas:1");
  tuned.env.push_back("MIMALLOC_ARENA_EAGER_COMMIT=1");
  Result refused = testing::run_command({BENCH_BINARY, "--resume", folder.string()}, tuned);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(testing::flat(refused.err).find("this sweep started with the allocator tunings none in bench's environment"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(testing::flat(refused.err).find("the resume has MALLOC_CONF=narenas:1 MIMALLOC_ARENA_EAGER_COMMIT=1: the runs left"),
            std::string::npos) << refused.err;
  Result resumed = testing::run_command({BENCH_BINARY, "--resume", folder.string()}, options);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

// A range of thread counts is a list.
TEST_F(Hardening, ARangeOfThreadCountsIsAList) {
  Result r = bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile",
                    "--threads=1-3", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* t : {"t=1 ", "t=2 ", "t=3 "}) EXPECT_NE(r.out.find(t), std::string::npos) << t << ": " << r.out;
}

// ALLOCSTAMP_THREADS takes a range as --threads does.
TEST_F(Hardening, ARangeOfThreadCountsInTheVariableIsAList) {
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1-3"};
  Result r = testing::run_command({BENCH_BINARY, "--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1",
                                   "--no-profile", "--dry-run"}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* t : {"t=1 ", "t=2 ", "t=3 "}) EXPECT_NE(r.out.find(t), std::string::npos) << t << ": " << r.out;
}

// Issue 55, item 3: --out at a folder of the user's own (no runs.csv) or at /
// is refused before anything is written: their files stay as they were.
TEST_F(Hardening, AnOutThatIsAFolderOfOnesOwnIsRefused) {
  const fs::path own = dir_ / "own";
  fs::create_directories(own / "figures");
  std::ofstream(own / "summary.csv") << "mine\n";
  std::ofstream(own / "figures" / "plot.png") << "mine\n";
  // The user's folder first: / is tried only where that was refused (with the
  // rule broken, a sweep into / would leave its files there).
  for (const fs::path& out : {own, fs::path("/")}) {
    Result r = bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile",
                      "--out=" + out.string()});
    ASSERT_EQ(r.exit_code, 2) << out << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("exists and is not empty"), std::string::npos) << r.err;
  }
  EXPECT_EQ(testing::slurp(own / "summary.csv"), "mine\n");
  EXPECT_EQ(testing::slurp(own / "figures" / "plot.png"), "mine\n");
  EXPECT_FALSE(fs::exists(own / "runs.csv"));
  EXPECT_FALSE(fs::exists("/runs.csv"));
  // An empty folder is a new one.
  fs::create_directories(dir_ / "empty");
  Result fine = bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile",
                       "--out=" + (dir_ / "empty").string()});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

// More threads than cores: said before the runs.
TEST_F(Hardening, ThreadsBeyondTheCoresAreWarnedOf) {
  const unsigned cores = std::thread::hardware_concurrency();
  Result r = bench({"--workload=test-alloc", "--alloc=glibc", "--size=tiny", "--reps=1", "--no-profile", "--no-series",
                    "--threads=" + std::to_string(cores + 1), "--out=" + (dir_ / "over").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(testing::flat(r.err).find("is more than this machine's " + std::to_string(cores) + " cores"), std::string::npos) << r.err;
}

TEST_F(Hardening, FlagValuesThatAreNotValuesExitTwo) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--alloc=", "--workload=test-alloc", "--dry-run"}, "--alloc= has an empty value"},
      {{"--alloc=glibc,,jemalloc", "--workload=test-alloc", "--dry-run"}, "--alloc has an empty item"},
      {{"--workload=test-alloc,", "--dry-run"}, "--workload has an empty item"},
      {{"--workload=test-alloc", "--out", "", "--dry-run"}, "--out is empty"},
      {{"--workload=test-alloc", "--out=" + (dir_ / "bad\xff\xfe").string(), "--dry-run"}, "--out is not UTF-8"},
      {{"--workload=test-alloc", "--timeout=nan", "--dry-run"}, "--timeout is not a number"},
      {{"check", "--baseline=a", "--current=b", "--alpha=nan"}, "--alpha is not a number"},
      // Issue 55, item 5: --alpha 0 (or 1e-20) overflowed into "a bug in bench", exit 1.
      {{"check", "--baseline=a", "--current=b", "--alpha=0"}, "'0' is not a level from 0.000001 to 0.5"},
      {{"check", "--baseline=a", "--current=b", "--alpha=1e-20"}, "'1e-20' is not a level from 0.000001 to 0.5"},
      {{"check", "--baseline=a", "--current=b", "--alpha=0.9"}, "'0.9' is not a level"},
      // A word that is no number, and a number out of range, each said as what it is
      // (CLI11's Range said "Value abc not in range 1 to 1024" of both).
      {{"--workload=test-alloc", "--threads=1,abc", "--dry-run"}, "--threads: 'abc' is not a whole number (give 1 to 1024)"},
      {{"--workload=test-alloc", "--threads=2.5", "--dry-run"}, "--threads: '2.5' is not a whole number"},
      {{"--workload=test-alloc", "--threads=2000", "--dry-run"}, "--threads: 2000 is more than 1024 (give 1 to 1024)"},
      {{"--workload=test-alloc", "--max-reps=1", "--dry-run"}, "--max-reps: 1 is less than 2 (give 2 to 1000)"},
      {{"--workload=test-alloc", "--precision=five", "--dry-run"}, "--precision: 'five' is not a number (give 0 to 100)"},
      {{"--workload=test-alloc", "--precision=100.5", "--dry-run"}, "--precision: 100.5 is more than 100"},
      // Flags that shape runs the sweep does not make (they were taken and did nothing).
      {{"--workload=test-alloc", "--alloc=glibc", "--simulate-threads=1,2", "--dry-run"},
       "--simulate-threads shapes the simulated runs, but the sweep makes none"},
      {{"--workload=test-alloc", "--alloc=glibc", "--simulate-reps=2", "--dry-run"},
       "--simulate-reps shapes the simulated runs"},
      {{"--workload=test-alloc", "--alloc=glibc", "--simulate-workloads=test-alloc", "--dry-run"},
       "--simulate-workloads shapes the simulated runs"},
      {{"--workload=test-alloc", "--alloc=glibc", "--callsites=4K", "--no-profile", "--dry-run"},
       "--callsites samples the profiled runs, but the sweep makes none"},
  };
  for (const auto& [args, says] : cases) {
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << says << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "bad\xff\xfe"));
  // With what they shape, they are taken.
  for (const std::vector<std::string>& fine :
       {std::vector<std::string>{"--workload=test-alloc", "--alloc=glibc", "--simulate", "--simulate-reps=2", "--dry-run"},
        std::vector<std::string>{"--workload=test-alloc", "--alloc=glibc", "--callsites=4K", "--dry-run"},
        // A range's ends are in it.
        std::vector<std::string>{"--workload=test-alloc", "--alloc=glibc", "--reps=0", "--profile-reps=1", "--dry-run"},
        std::vector<std::string>{"--workload=test-alloc", "--alloc=glibc", "--precision=100", "--max-reps=1000",
                                 "--dry-run"}}) {
    Result r = bench(fine);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
}

// #SBATCH lines cannot quote: a partition, time or account with a line break
// would run the rest of the line as a command when the script runs.
TEST_F(Hardening, SlurmValuesThatWouldEndTheirLineAreRefused) {
  for (const char* flag : {"--partition", "--time", "--account"}) {
    const fs::path out = dir_ / (std::string("slurm") + flag);
    Result r = bench({"slurm", "--shards", "2", "--threads=1,2", std::string(flag) + "=short\ntouch /tmp/pwn", "--workload=test-alloc",
                      "--alloc=glibc", "--out=" + out.string()});
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find(std::string(flag) + " 'short\\ntouch /tmp/pwn' is not a Slurm name or time"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out / "slurm" / "array.sbatch")) << "nothing written";
  }
  const fs::path newline_out = dir_ / "out\nline";
  Result r = bench({"slurm", "--shards", "2", "--threads=1,2", "--workload=test-alloc", "--alloc=glibc", "--out=" + newline_out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(testing::flat(r.err).find("--out holds a control character"), std::string::npos) << r.err;
  Result fine = bench({"slurm", "--shards", "2", "--threads=1,2", "--partition=short-1.a", "--time=04:00:00", "--account=lab_x",
                       "--workload=test-alloc", "--alloc=glibc", "--out=" + (dir_ / "fine").string()});
  EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
  EXPECT_NE(testing::slurp(dir_ / "fine" / "slurm" / "array.sbatch").find("#SBATCH --partition=short-1.a\n"),
            std::string::npos);
  // Issue 46, N14: a folder with a space or % cannot go into #SBATCH --output;
  // a registry named relative to where bench slurm ran is named absolutely in
  // the script, which runs from the repository.
  Result spaced = bench({"slurm", "--shards", "2", "--threads=1,2", "--workload=test-alloc", "--alloc=glibc",
                         "--out=" + (dir_ / "o ut%j").string()});
  EXPECT_EQ(spaced.exit_code, 2) << spaced.out << spaced.err;
  EXPECT_NE(testing::flat(spaced.err).find("holds a space, %, a quote, a backslash, $ or `, which #SBATCH --output cannot take"),
            std::string::npos)
      << spaced.err;
  // ... nor a quote (the attack's re-run: 'o"q' went into #SBATCH --output unquoted).
  for (const char* name : {"o\"q", "o'q", "o$q", "o`q"}) {
    Result quoted = bench({"slurm", "--shards", "2", "--threads=1,2", "--workload=test-alloc", "--alloc=glibc",
                           "--out=" + (dir_ / name).string()});
    EXPECT_EQ(quoted.exit_code, 2) << name << ": " << quoted.out << quoted.err;
    EXPECT_FALSE(fs::exists(dir_ / name)) << name;
  }
  std::ofstream(dir_ / "r.json") << R"({"schema": 1, "allocators": [{"name": "mine", "libraries": ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"]}]})";
  fs::create_directories(dir_ / "elsewhere");
  testing::CommandOptions in_elsewhere;
  in_elsewhere.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1"};
  Result relative = testing::run_command(
      {"/bin/sh", "-c", "cd '" + (dir_ / "elsewhere").string() + "' && exec \"$0\" \"$@\"", BENCH_BINARY, "slurm",
       "--shards", "2", "--threads=1,2", "--registry", "../r.json", "--workload=test-alloc", "--alloc=mine", "--out=" + (dir_ / "rel").string()},
      in_elsewhere);
  EXPECT_EQ(relative.exit_code, 0) << relative.out << relative.err;
  EXPECT_NE(testing::slurp(dir_ / "rel" / "slurm" / "array.sbatch").find(" --registry " + (dir_ / "elsewhere" / ".." / "r.json").string()),
            std::string::npos)
      << testing::slurp(dir_ / "rel" / "slurm" / "array.sbatch");
}

}  // namespace
}  // namespace allocstamp
