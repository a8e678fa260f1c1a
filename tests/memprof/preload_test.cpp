// preload_test — libmemprof.so in front of each allocator of the registry: exact
// counts and bytes for every entry point, failures, threads with cross-thread
// frees, fork from a threaded parent, transactions, identical figures across
// allocators for a deterministic program, and real programs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "profiled_run.h"

namespace allocstamp::testing {
namespace {

class Preload : public ::testing::TestWithParam<TestAllocator> {
 protected:
  void SetUp() override {
    if (!installed(GetParam())) {
      if (std::getenv("ALLOCSTAMP_ALLOW_MISSING_ALLOCATORS")) GTEST_SKIP() << GetParam().library << " missing";
      FAIL() << GetParam().name << " is not installed (" << GetParam().library
             << ") — run scripts/install-deps";
    }
  }
  RunResult run(const std::string& name, std::vector<std::string> args = {}, RunOptions options = {}) {
    RunResult r = run_program(target(name), args, GetParam(), options);
    EXPECT_FALSE(r.timed_out) << r.describe();
    return r;
  }
};

// What the "work" run adds over the "baseline" run of the same program.
int64_t added(const RunResult& work, const RunResult& base, const std::string& key) {
  return work.num(key) - base.num(key);
}

int64_t allocs(const RunResult& r) {
  return r.num("allocs_seq_count") + r.num("allocs_par_count") + r.num("allocs_tx_count");
}
int64_t frees(const RunResult& r) {
  return r.num("frees_seq_count") + r.num("frees_par_count") + r.num("frees_tx_count");
}

TEST_P(Preload, EveryEntryPointCountedOnce) {
  RunResult base = run("entry_points", {"0"});
  RunResult work = run("entry_points", {"1"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  // 11 C allocations (realloc(NULL) among them) and 12 operator new variants.
  EXPECT_EQ(added(work, base, "allocs_seq_count"), 23);
  EXPECT_EQ(added(work, base, "frees_seq_count"), 23);
  EXPECT_EQ(added(work, base, "reallocs_count"), 2);
  // 5107 bytes of C blocks (pvalloc rounds 100 up to a page), 1140 of C++,
  // and the two realloc sizes 100 and 50.
  EXPECT_EQ(added(work, base, "requested_seq_bytes"), 5107 + 1140 + 150);
  EXPECT_EQ(work.num("allocs_par_count") + work.num("allocs_tx_count"), 0);
  EXPECT_EQ(added(work, base, "heap_requested_end_bytes"), 0);
  EXPECT_EQ(added(work, base, "live_blocks_end_count"), 0);
  EXPECT_EQ(work.num("heap_requested_peak_bytes"), work.metric("start_bytes") + 6267);
  EXPECT_EQ(work.num("heap_peak_error_bytes"), 0);
  EXPECT_GE(added(work, base, "usable_total_bytes"), 5107 + 1140);
  EXPECT_EQ(work.num("frees_untracked_count"), 0);
  EXPECT_EQ(work.num("allocs_untracked_count"), 0);
  // The histogram has one bin per allocation.
  int64_t binned = 0;
  for (const char* bin : {"size_le16_count", "size_le32_count", "size_le48_count", "size_le64_count",
                          "size_le96_count", "size_le128_count", "size_le256_count", "size_le512_count",
                          "size_le1024_count", "size_gt1024_count"})
    binned += work.num(bin);
  EXPECT_EQ(binned, allocs(work));
  EXPECT_EQ(added(work, base, "size_le16_count"), 6);  // 10, 6, 6, 4, 1, 10
  EXPECT_EQ(added(work, base, "size_gt1024_count"), 1);  // the page of pvalloc
}

TEST_P(Preload, FailuresAndReallocToZero) {
  // mimalloc (built as C) aborts when operator new fails, with or without memprof;
  // scudo's operator new returns null (its flag may_return_null, on by default).
  bool no_throw = GetParam().base == "mimalloc" || GetParam().base == "scudo";
  std::vector<std::pair<std::string, std::string>> env;
  if (no_throw) env.emplace_back("FAILURES_NO_THROW", "1");
  RunResult r = run("failures", {}, RunOptions{.env = env});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // calloc overflow, malloc(2^62), new(2^62) that throws bad_alloc, nothrow new[](2^62).
  EXPECT_EQ(r.num("allocs_failed_count"), no_throw ? 3 : 4);
  // The failed sizes are not the program's bytes (nor the exception object's).
  EXPECT_LT(r.num("requested_seq_bytes"), 1 << 20);
  EXPECT_LT(r.num("heap_requested_peak_bytes"), 1 << 20);
  bool returned_block = r.out.find("realloc_zero_returned_block=1") != std::string::npos;
  env.emplace_back("FAILURES_BASELINE", "1");
  RunResult base = run("failures", {}, RunOptions{.env = env});
  // malloc(16), malloc(32) and the block realloc(p, 0) may hand back.
  EXPECT_EQ(added(r, base, "allocs_seq_count"), 2 + (returned_block ? 1 : 0));
  EXPECT_EQ(added(r, base, "frees_seq_count"), 2 + (returned_block ? 1 : 0));
  EXPECT_EQ(added(r, base, "heap_requested_end_bytes"), 0);
}

// A thread started behind memprof's back (as jemalloc starts its background
// threads) is not the program's: its 7 blocks are neither counted nor unknown
// at free, and it makes no parallel region.
TEST_P(Preload, ThreadsStartedBehindMemprofAreNotTheProgramsThreads) {
  RunResult r = run("threads", {"foreign"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  RunResult idle = run("threads", {"foreign-idle"});
  ASSERT_EQ(idle.exit_code, 0) << idle.describe();
  for (const char* key : {"allocs_seq_count", "allocs_par_count", "frees_seq_count", "frees_par_count",
                          "requested_seq_bytes", "requested_par_bytes", "size_le512_count", "frees_untracked_count"})
    EXPECT_EQ(r.num(key), idle.num(key)) << key << ": the foreign thread's 7 blocks of 320 bytes";
  EXPECT_EQ(r.num("allocs_par_count"), 0);
  EXPECT_GE(r.num("size_le48_count"), 3) << "the main thread's";
  EXPECT_EQ(r.num("threads_peak_count"), 1);
}

// The main thread leaving through pthread_exit ends a thread like any other:
// the worker left alone allocates in the sequential region, not the parallel
// (what pthread_exit allocates while both live, the unwinder's, is parallel).
TEST_P(Preload, AfterMainExitsTheLastThreadIsSequential) {
  RunResult r = run("threads", {"main-exits"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.num("allocs_seq_count"), 10) << "the worker's 10 blocks of 3,333 bytes";
  EXPECT_EQ(r.num("requested_seq_bytes"), 33330);
  EXPECT_EQ(r.num("frees_seq_count"), 10);
}

// Threads that free the blocks another made publish their frees first: the
// load, integrated at publications, dipped below 0 and was written as 2^64
// less a few thousand. No heap holds less than nothing: at most the peak.
TEST_P(Preload, TheLoadNeverGoesBelowNothing) {
  RunResult r = run("threads", {"frees-main"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_LE(r.num("load_avg_bytes"), r.num("heap_requested_peak_bytes"));
  EXPECT_LT(r.num("load_total_byte_ns"), 1e18);
}

TEST_P(Preload, ThreadsCrossThreadFreesAndEarlyExit) {
  RunResult base = run("threads", {"0"});
  RunResult work = run("threads", {"1"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  EXPECT_EQ(added(work, base, "allocs_seq_count"), 2);      // 1000 and the 77-byte leak
  EXPECT_EQ(added(work, base, "allocs_par_count"), 1015);   // 1000 handed over + 15 in the early thread
  EXPECT_EQ(added(work, base, "frees_seq_count"), 11);      // after the joins
  EXPECT_EQ(added(work, base, "frees_par_count"), 1005);    // cross-thread 1000 + 5
  EXPECT_EQ(added(work, base, "requested_seq_bytes"), 1077);
  EXPECT_EQ(added(work, base, "requested_par_bytes"), 26000);
  EXPECT_EQ(added(work, base, "heap_requested_end_bytes"), 77);
  EXPECT_EQ(added(work, base, "live_blocks_end_count"), 1);
  EXPECT_EQ(work.num("frees_untracked_count"), 0);
  EXPECT_EQ(work.num("threads_peak_count"), 3);
  EXPECT_GT(work.num("heap_peak_error_bytes"), 0);  // several threads: a stated bound
  EXPECT_GE(work.num("stack_peak_thread_max_bytes"), 256 * 1024);
  EXPECT_LT(base.num("stack_peak_thread_max_bytes"), 128 * 1024);
  // Creating threads allocates for glibc (their TLS vectors), not for the program.
  EXPECT_EQ(base.num("allocs_par_count"), 0);
  EXPECT_EQ(work.num("stack_count"), 4);  // main and three threads
  EXPECT_GT(work.num("stack_peak_main_bytes"), 0);
}

// The main thread's stack high-water mark runs from the lowest page its
// mapping holds, not from where memprof started: a 512 KiB recursion in main
// shows in full.
TEST_P(Preload, MainStackPeakHoldsARecursionInMain) {
  RunResult base = run("threads", {"stacks-base"});
  RunResult work = run("threads", {"stacks"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  EXPECT_GE(work.num("stack_peak_main_bytes"), 512 * 1024);
  EXPECT_LT(base.num("stack_peak_main_bytes"), 256 * 1024);
}

// The deepest stack among the other threads is the deepest of all of them,
// not the last to end: a thread 256 KiB deep ends before a shallow one.
TEST_P(Preload, ThreadStackPeakIsTheDeepestNotTheLastToEnd) {
  RunResult base = run("threads", {"stacks-base"});
  RunResult work = run("threads", {"stacks"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  EXPECT_GE(work.num("stack_peak_thread_max_bytes"), 256 * 1024);
  EXPECT_LT(base.num("stack_peak_thread_max_bytes"), 128 * 1024);
  EXPECT_EQ(work.num("stack_count"), 3);  // main and two threads
}

// Threads that end in numbers beyond glibc's stack cache: glibc frees the TLS
// vectors it allocated inside pthread_create (not counted as the program's),
// and those frees are not the program's unknown blocks either.
TEST_P(Preload, ManyEndedThreadsLeaveNoUnknownFrees) {
  RunResult r = run("threads", {"many"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.num("frees_untracked_count"), 0);
  EXPECT_GE(r.num("allocs_par_count"), 48) << "each thread's malloc(64)";
  EXPECT_GE(r.num("frees_par_count"), 48);
}

TEST_P(Preload, ForkFromThreadedParent) {
  RunOptions options{.env = {{"MEMPROF_FORK_REPORT", "1"}}, .timeout_seconds = 60};
  RunResult r = run("forks", {"50"}, options);
  RunResult none = run("forks", {"0"}, options);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_EQ(none.exit_code, 0) << none.describe();
  // Each child printed its own summary on stderr; the parent's record does not
  // hold the children's 1234-byte blocks.
  std::regex child_line("memprof: pid [0-9]+ \\(forks\\), forked from pid [0-9]+");
  auto begin = std::sregex_iterator(r.err.begin(), r.err.end(), child_line);
  EXPECT_EQ(std::distance(begin, std::sregex_iterator()), 50) << r.err.substr(0, 2000);
  EXPECT_EQ(r.num("size_gt1024_count"), none.num("size_gt1024_count"));
  EXPECT_EQ(r.memprof().count("pid"), 1u);
  // Each child's histogram and regions hold its one block of 1234 bytes, none
  // of the parent's: neither the forking thread's (100 bytes twice before the
  // forks) nor those of the thread that ended before them (200 bytes ten times).
  std::regex sizes_line("  sizes +([^\n]*)");
  int children = 0;
  for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), sizes_line); it != std::sregex_iterator(); ++it) {
    ++children;
    EXPECT_EQ((*it)[1].str(), "<=16:0 <=32:0 <=48:0 <=64:0 <=96:0 <=128:0 <=256:0 <=512:0 <=1K:0 >1K:1");
  }
  EXPECT_EQ(children, 50);
  std::regex own_regions("\n  seq +1 +1 +1\\.2 KiB\n  par +0 +0 +0 B\n");
  auto regions = std::sregex_iterator(r.err.begin(), r.err.end(), own_regions);
  EXPECT_EQ(std::distance(regions, std::sregex_iterator()), 50) << r.err.substr(0, 2000);
}

TEST_P(Preload, TransactionsCountedAsTx) {
  for (const char* method : {"serialirr", "gl_wt", "ml_wt"}) {
    RunOptions options{.env = {{"ITM_DEFAULT_METHOD", method}}};
    RunResult r = run("tm", {"1"}, options);
    ASSERT_EQ(r.exit_code, 0) << method << " " << r.describe();
    // 200 transactions, each: malloc(40) + new Node (16 bytes); frees the
    // previous malloc (none in the first).
    EXPECT_EQ(r.num("allocs_tx_count"), 400) << method;
    EXPECT_EQ(r.num("requested_tx_bytes"), 200 * (40 + 16)) << method;
    EXPECT_EQ(r.num("frees_tx_count"), 199) << method;
    // The program's frees outside transactions: main's 200 nodes and the last
    // block, after the join. libitm frees its per-thread blocks in its own
    // thread destructor, after memprof's: libitm's, not the program's.
    EXPECT_EQ(r.num("frees_seq_count") + r.num("frees_par_count"), 201) << method;
    EXPECT_EQ(r.num("frees_tm_internal_count"), r.num("allocs_tm_internal_count")) << method;
  }
  RunResult two = run("tm", {"2"}, RunOptions{.env = {{"ITM_DEFAULT_METHOD", "ml_wt"}}});
  ASSERT_EQ(two.exit_code, 0) << two.describe();
  EXPECT_GE(two.num("allocs_tx_count"), 800);  // aborted attempts allocate too
  EXPECT_EQ(two.num("frees_untracked_count"), 0);
}

// No fixed bound on the blocks one transaction frees: each free is `tx`, and
// libitm's own bookkeeping stays out of the program's regions and histogram.
TEST_P(Preload, OneTransactionFreesTenThousandBlocks) {
  for (const char* method : {"serialirr", "ml_wt"}) {
    RunResult r = run("tm", {"many", "10000"}, RunOptions{.env = {{"ITM_DEFAULT_METHOD", method}}});
    ASSERT_EQ(r.exit_code, 0) << method << " " << r.describe();
    EXPECT_EQ(r.num("frees_tx_count"), 10000) << method;
    EXPECT_EQ(r.num("allocs_tx_count"), 10000) << method;
    EXPECT_EQ(r.num("requested_tx_bytes"), 10000 * 40) << method;
    EXPECT_EQ(r.num("size_le32_count"), 10000) << method;  // the 24-byte blocks only: libitm's are apart
    EXPECT_EQ(r.num("size_le48_count"), 10000) << method;
    EXPECT_EQ(r.num("frees_untracked_count"), 0) << method;
    if (std::string(method) == "ml_wt") {
      EXPECT_GT(r.num("allocs_tm_internal_count"), 0);
    }
  }
}

// libitm allocates for itself outside transactions too: its thread descriptor
// at the first transaction, under ml_wt its 512 KiB ownership-record table.
// Known by the caller (libitm's code), they are libitm's under every method,
// so the program's figures are the same whichever method runs it: 100
// blocks of 24 bytes and stdout's buffer (one block over 1024 bytes).
TEST_P(Preload, LibitmBlocksOutsideTransactionsAreLibitms) {
  int64_t first_bytes = -1;
  for (const char* method : {"serialirr", "ml_wt", "gl_wt"}) {
    RunResult r = run("tm", {"many", "100"}, RunOptions{.env = {{"ITM_DEFAULT_METHOD", method}}});
    ASSERT_EQ(r.exit_code, 0) << method << " " << r.describe();
    EXPECT_EQ(r.num("allocs_seq_count"), 101) << method;
    EXPECT_EQ(r.num("size_le32_count"), 100) << method;
    EXPECT_EQ(r.num("size_gt1024_count"), 1) << method;
    int64_t bytes = r.num("requested_seq_bytes");
    EXPECT_LE(bytes, 100 * 24 + 65536) << method;
    if (first_bytes < 0) first_bytes = bytes;
    EXPECT_EQ(bytes, first_bytes) << method << ": the same program's bytes as under serialirr";
    EXPECT_GE(r.num("allocs_tm_internal_count"), 2) << method << ": the thread descriptor at least";
    EXPECT_EQ(r.num("frees_untracked_count"), 0) << method;
  }
}

// A transaction marked through memprof_tx_begin/end (no libitm): what it
// allocates and frees is `tx`, nested marks are one transaction.
TEST_P(Preload, MarkedTransactionsCountedAsTx) {
  RunResult r = run("regions", {"marked"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.num("allocs_tx_count"), 300);
  EXPECT_EQ(r.num("requested_tx_bytes"), 100 * (24 + 16 + 100));
  EXPECT_EQ(r.num("frees_tx_count"), 99);  // the first transaction frees nothing (free(NULL))
}

TEST_P(Preload, RealProgramsComplete) {
  std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  RunResult py = run_program(python, {"-c", "x=[bytes(100) for _ in range(10**5)]"}, GetParam());
  ASSERT_EQ(py.exit_code, 0) << py.describe();
  EXPECT_GT(allocs(py), 1000);
  EXPECT_GT(py.num("rss_kb"), 0);
  RunResult sorted = run_program("/usr/bin/sort", {"/etc/services"}, GetParam());
  ASSERT_EQ(sorted.exit_code, 0) << sorted.describe();
  EXPECT_GT(allocs(sorted), 10);
  EXPECT_GT(frees(sorted), 0);
  EXPECT_FALSE(sorted.out.empty());
}

// The usable heap is exactly what malloc_usable_size says of the live blocks,
// for every kind of block (memprof remembers a plain size's usable size once
// and checks it every 64th block; no allocator may fail that).
TEST_P(Preload, UsableHeapMatchesTheAllocator) {
  RunResult base = run("usable", {"0"});
  RunResult work = run("usable", {"1"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  EXPECT_GT(work.metric("live_blocks"), 10000);
  EXPECT_EQ(added(work, base, "heap_usable_phase_end_bytes"), work.metric("live_usable_bytes"));
  EXPECT_EQ(added(work, base, "live_blocks_phase_end_count"), work.metric("live_blocks"));
  EXPECT_EQ(added(work, base, "heap_usable_end_bytes"), 0) << "every block freed: usable back to the start";
  if (GetParam().base == "scudo") {
    // scudo's usable size is the size asked, not a size class's: the memo
    // switches off at its first check, and the figures above stay exact.
    EXPECT_GT(work.num("usable_memo_mismatch_count"), 0);
  } else {
    EXPECT_EQ(work.num("usable_memo_mismatch_count"), 0);
  }
  EXPECT_EQ(work.num("allocs_untracked_count"), 0);
  EXPECT_EQ(work.num("frees_untracked_count"), 0);
}

// The hot path counts a block's bin and (usable-size memo) its usable size by
// size class; the classes are folded into the counters when a thread ends (and
// once more if it allocates after that) and when the report reads them. Every
// size 0..4200 twice on two threads, one of them ending first: the histogram
// bin by bin and usable_total_bytes equal the program's own figures, with the
// heap tracked and in counts-only mode.
TEST_P(Preload, UsableTotalAndHistogramCountedByClass) {
  static const char* bins[] = {"size_le16_count",  "size_le32_count",  "size_le48_count",   "size_le64_count",
                               "size_le96_count",  "size_le128_count", "size_le256_count",  "size_le512_count",
                               "size_le1024_count", "size_gt1024_count"};
  for (const char* heap : {"1", "0"}) {
    RunOptions options{.env = {{"MEMPROF_HEAP", heap}}};
    RunResult base = run("usable", {"classes-base"}, options);
    RunResult work = run("usable", {"classes"}, options);
    ASSERT_EQ(base.exit_code, 0) << base.describe();
    ASSERT_EQ(work.exit_code, 0) << work.describe();
    for (int b = 0; b < 10; ++b)
      EXPECT_EQ(added(work, base, bins[b]), work.metric("bin_" + std::to_string(b))) << bins[b] << ", MEMPROF_HEAP=" << heap;
    EXPECT_EQ(allocs(work) - allocs(base), 2 * 2 * 4201 + 1) << "MEMPROF_HEAP=" << heap;
    if (heap == std::string("1")) {
      EXPECT_EQ(added(work, base, "usable_total_bytes"), work.metric("usable_allocated_bytes"));
    }
  }
}

// A realloc adds to usable_total_bytes only what its block's usable size grew
// by (counted once, however often the block is resized): one block grown by
// realloc 999 times adds what the program sums itself, not each step's whole block.
TEST_P(Preload, ReallocGrowthAddsOnlyTheGrowthToUsableTotal) {
  RunResult base = run("usable", {"grow-base"});
  RunResult work = run("usable", {"grow"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  EXPECT_GE(work.metric("usable_grown_bytes"), 16000);
  EXPECT_EQ(added(work, base, "usable_total_bytes"), work.metric("usable_grown_bytes"));
  EXPECT_EQ(added(work, base, "reallocs_count"), 999);
}

// memprof_self_kb holds the shadow of requested sizes: a page of it for every
// 32 KiB of addresses where blocks start. The blocks of `usable 1` of at most
// 5,000 bytes that start in one such window hold at most 32 KiB + 5,000 bytes,
// so they start in at least (their requested bytes) / 37,768 windows, a shadow
// page each; the test asks half of that (the baseline's own blocks, the
// runtime's, may share some of those pages).
TEST_P(Preload, MemprofSelfCountsTheShadowOfLiveBlocks) {
  RunResult base = run("usable", {"0"});
  RunResult work = run("usable", {"1"});
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  const int64_t large = 8192 + 65536 + 300000 + (3 << 20);  // the four blocks over 5,000 bytes
  const int64_t small = added(work, base, "heap_requested_phase_end_bytes") - large;
  ASSERT_GT(small, 20 << 20);
  EXPECT_GE(added(work, base, "memprof_self_kb"), small / (32768 + 5000) * 4 / 2)
      << "memprof_self_kb: " << base.num("memprof_self_kb") << " kB, then " << work.num("memprof_self_kb") << " kB";
}

// Blocks too large for a shadow entry, and changes too large for a thread's
// 32-bit lanes (published on their own), keep the requested and usable peaks
// and the live heap exact; with a 1 GiB slack two blocks of 0.75 GiB add up in the lanes.
// Under glibc, small blocks with a huge alignment have a huge usable size too.
TEST_P(Preload, LargeBlocksKeepThePeakExact) {
  bool glibc = GetParam().base == "glibc";
  for (const char* slack : {"64K", "1G", "4G"}) {
    RunOptions options{.env = {{"MEMPROF_PEAK_SLACK", slack}}};
    RunResult base = run("large", {"0"}, options);
    RunResult work = run("large", glibc ? std::vector<std::string>{"1", "aligned"} : std::vector<std::string>{"1"},
                         options);
    ASSERT_EQ(base.exit_code, 0) << base.describe();
    ASSERT_EQ(work.exit_code, 0) << work.describe();
    const int64_t kMiB = int64_t(1) << 20;
    EXPECT_EQ(work.num("heap_requested_peak_bytes") - work.metric("start_bytes"), 4608 * kMiB + 90000) << slack;
    EXPECT_EQ(work.num("heap_peak_error_bytes"), 0) << slack;
    EXPECT_EQ(work.num("peak_slack_bytes"), std::string(slack) == "64K" ? 65536 : 1024 * kMiB)
        << "the slack as applied: at most 1 GiB";
    int64_t aligned = work.metric("aligned_blocks");
    if (glibc) {
      // Each try succeeds about half the time (where glibc's mapping lands).
      EXPECT_EQ(work.metric("aligned_usable_over_2g"), 1) << slack << ": " << aligned << " tries";
    }
    EXPECT_EQ(added(work, base, "heap_requested_phase_end_bytes"), 3072 * kMiB + 4096 + 50000 + 100 * aligned)
        << slack;
    EXPECT_EQ(added(work, base, "heap_usable_phase_end_bytes"), work.metric("live_usable_bytes")) << slack;
    // The usable peak is the allocator's usable bytes at the peak (or at the
    // phase end, where glibc's aligned blocks hold more), not the requested peak.
    EXPECT_EQ(work.num("heap_usable_peak_bytes") - work.num("heap_usable_end_bytes"), work.metric("peak_usable_bytes"))
        << slack;
    EXPECT_EQ(added(work, base, "live_blocks_phase_end_count"), 4 + aligned) << slack;
    EXPECT_EQ(added(work, base, "heap_requested_end_bytes"), 0) << slack;
    EXPECT_EQ(added(work, base, "heap_usable_end_bytes"), 0) << slack;
    EXPECT_EQ(work.num("frees_untracked_count"), 0) << slack;
  }
}

// An allocator whose usable size is not its requested size's: the memo's check
// notices, says so, and every block still takes back the usable bytes it added.
TEST(PreloadStandalone, UsableMemoNoticesAnAllocatorThatIsNotSizeClassed) {
  TestAllocator shifty{"shifty", SHIFTY_ALLOCATOR, "shifty", "shifty", {}};
  RunResult base = run_program(target("usable"), {"0"}, shifty);
  RunResult work = run_program(target("usable"), {"1"}, shifty);
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  // The first check that fails switches the memo off, and no block is checked
  // after it (one thread: exactly one mismatch); each is asked instead, and
  // the live usable bytes stay exact.
  EXPECT_EQ(work.num("usable_memo_mismatch_count"), 1);
  EXPECT_EQ(base.num("usable_memo_mismatch_count"), 0);
  EXPECT_EQ(added(work, base, "heap_usable_phase_end_bytes"), work.metric("live_usable_bytes"));
  EXPECT_EQ(added(work, base, "heap_usable_end_bytes"), 0);
  EXPECT_EQ(work.num("frees_untracked_count"), 0);
  RunResult text = run_program(target("usable"), {"1"}, shifty, RunOptions{.env = {{"MEMPROF_OUT", ""}}});
  EXPECT_NE(text.err.find("heap usable     approximate:"), std::string::npos) << text.err;
}

// An allocator whose own operator new now and then allocates for itself
// through the exported malloc, before returning a block of its own (scudo's,
// when GWP-ASan samples the block: glibc's backtrace() dlopens libgcc_s on its
// first call, and ld.so's malloc is memprof's): that allocation is not the
// program's, the block returned is. The figures are glibc's, with the heap
// kept or counts only; and a throwing operator new's exception object still
// counts, and is known at its free.
TEST(PreloadStandalone, AllocatorsOwnNewAllocatingForItself) {
  TestAllocator nesting{"nesting", NESTING_ALLOCATOR, "nesting", "nesting", {}};
  const TestAllocator& glibc = test_allocators()[0];
  const std::vector<std::string> counts = {"allocs_seq_count", "frees_seq_count", "requested_seq_bytes",
                                           "size_le16_count", "size_le64_count", "size_gt1024_count"};
  const std::vector<std::string> heap = {"heap_requested_peak_bytes", "heap_requested_end_bytes",
                                         "live_blocks_peak_count", "live_blocks_end_count",
                                         "frees_untracked_count", "allocs_untracked_count"};
  for (const char* track_heap : {"1", "0"}) {
    RunOptions options{.env = {{"MEMPROF_HEAP", track_heap}}};
    RunResult reference = run_program(target("deterministic"), {}, glibc, options);
    RunResult r = run_program(target("deterministic"), {}, nesting, options);
    ASSERT_EQ(reference.exit_code, 0) << reference.describe();
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    std::vector<std::string> keys = counts;
    if (track_heap[0] == '1') keys.insert(keys.end(), heap.begin(), heap.end());
    for (const std::string& k : keys) EXPECT_EQ(r.num(k), reference.num(k)) << k << ", MEMPROF_HEAP=" << track_heap;
  }
  RunResult work = run_program(target("failures"), {}, nesting);
  RunResult base = run_program(target("failures"), {}, nesting, RunOptions{.env = {{"FAILURES_BASELINE", "1"}}});
  ASSERT_EQ(work.exit_code, 0) << work.describe();
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  EXPECT_EQ(work.num("allocs_failed_count"), 4);
  bool returned_block = work.out.find("realloc_zero_returned_block=1") != std::string::npos;
  EXPECT_EQ(added(work, base, "allocs_seq_count"), 2 + (returned_block ? 1 : 0));
  EXPECT_EQ(added(work, base, "frees_seq_count"), 2 + (returned_block ? 1 : 0));
  EXPECT_EQ(added(work, base, "heap_requested_end_bytes"), 0);
  EXPECT_EQ(work.num("frees_untracked_count"), 0);
}

// Regions the program sets, and nested scopes folding into their parent.
TEST_P(Preload, ExplicitRegionsAndNestedScopes) {
  RunResult r = run("regions");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // 7 + 1 + 3 + 1 allocations in the par region although one thread ran them.
  EXPECT_EQ(r.num("allocs_par_count"), 12);
  EXPECT_EQ(r.num("frees_par_count"), 10);
  EXPECT_EQ(r.num("requested_par_bytes"), 700 + 1000 + 30 + 20);
  std::map<std::string, Record> scopes;
  for (const auto& [kind, rec] : r.records)
    if (kind == "scope") scopes[rec.at("name")] = rec;
  ASSERT_EQ(scopes.count("inner"), 1u);
  ASSERT_EQ(scopes.count("outer"), 1u);
  EXPECT_EQ(scopes["inner"].at("allocs_count"), "4");
  EXPECT_EQ(scopes["inner"].at("requested_bytes"), "50");
  EXPECT_EQ(scopes["inner"].at("held_bytes"), "20");
  EXPECT_EQ(scopes["outer"].at("allocs_count"), "5");  // its own block and inner's four
  EXPECT_EQ(scopes["outer"].at("requested_bytes"), "1050");
  EXPECT_EQ(scopes["outer"].at("held_bytes"), "1020");
  EXPECT_EQ(scopes["outer"].at("calls_count"), "1");
}

// A realloc inside a scope is its requested bytes and frees the old block's:
// 100 grown to 10,000 and kept holds 10,000, grown and freed holds 0 (the
// scope once saw the malloc and the free but not the realloc: held -9,900).
TEST_P(Preload, ScopesCountRealloc) {
  RunResult r = run("regions", {"realloc"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  std::map<std::string, Record> scopes;
  for (const auto& [kind, rec] : r.records)
    if (kind == "scope") scopes[rec.at("name")] = rec;
  ASSERT_EQ(scopes.count("grown"), 1u);
  ASSERT_EQ(scopes.count("grown-and-freed"), 1u);
  for (const char* name : {"grown", "grown-and-freed"}) {
    EXPECT_EQ(scopes[name].at("allocs_count"), "1") << name;
    EXPECT_EQ(scopes[name].at("requested_bytes"), "10100") << name;
  }
  EXPECT_EQ(scopes["grown"].at("held_bytes"), "10000");
  EXPECT_EQ(scopes["grown-and-freed"].at("held_bytes"), "0");
}

// What the allocator says about itself, read at the end of the measured phase.
// The allocators whose adapter is known must report through it; an allocator
// added to the registry since may report through any adapter or none
// (allocators/introspect), and what it reports is checked for what it says.
TEST_P(Preload, AllocatorStatistics) {
  RunResult r = run("deterministic");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::map<std::string, std::string> source = {{"glibc", "glibc"}, {"jemalloc", "jemalloc"},
      {"tcmalloc", "gperftools"}, {"tcmalloc-full", "gperftools"}, {"mimalloc", "mimalloc"}, {"tbbmalloc", "tbbmalloc"},
      {"scudo", "scudo"}};
  const std::set<std::string> reportable = {"glibc", "jemalloc", "gperftools", "mimalloc", "tbbmalloc", "scudo", "none"};
  Record m = r.memprof();
  const std::string reported = m.at("alloc_stats");
  if (auto known = source.find(GetParam().base); known != source.end()) {
    EXPECT_EQ(reported, known->second);
  } else {
    EXPECT_EQ(reportable.count(reported), 1u) << reported << " is no adapter of allocators/introspect";
  }
  if (reported == "tbbmalloc" || reported == "none") {
    EXPECT_EQ(m.count("alloc_in_use_bytes") + m.count("alloc_mapped_bytes"), 0u) << reported << " has no statistics API";
    return;
  }
  EXPECT_GT(r.num("alloc_mapped_bytes"), 0);
  if (reported != "mimalloc") {
    // The map of 2500 strings is still alive at the end of the phase.
    EXPECT_GT(r.num("alloc_in_use_bytes"), 2500 * 32);
    EXPECT_GE(r.num("alloc_mapped_bytes"), r.num("alloc_in_use_bytes"));
  }
}

// Every entry has a resident figure for the memory ladder: as memprof
// measured the mappings the allocator made, else as the allocator reports it
// (glibc: its own mappings, found by their headers). The program's live blocks
// at the end of its phase are written, so resident; all of it is in the RSS.
TEST_P(Preload, EveryAllocatorHasAResidentFigure) {
  RunResult r = run("deterministic");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  Record m = r.memprof();
  // As the ladder takes it (figures/ladder.cpp); jemalloc's own stats.resident
  // is a maximum, above the RSS here.
  const char* key = m.count("alloc_os_resident_bytes") ? "alloc_os_resident_bytes" : "alloc_resident_bytes";
  ASSERT_TRUE(m.count(key)) << "no resident figure under " << GetParam().name;
  const int64_t resident = r.num(key), live = r.num("heap_requested_phase_end_bytes");
  EXPECT_GE(resident, live * 9 / 10) << key << " against the live requested bytes " << live;
  EXPECT_LE(resident, r.num("rss_kb") * 1024) << key;
}

INSTANTIATE_TEST_SUITE_P(Allocators, Preload, ::testing::ValuesIn(test_allocators()),
                         [](const auto& info) { return info.param.id; });

// A deterministic single-threaded C++ program gives the same counts and the
// same requested peak under every allocator.
TEST(PreloadAcrossAllocators, DeterministicProgramIdentical) {
  const char* keys[] = {"allocs_seq_count", "allocs_par_count", "allocs_tx_count", "frees_seq_count",
                        "frees_par_count", "frees_tx_count", "requested_seq_bytes", "reallocs_count",
                        "heap_requested_peak_bytes", "heap_requested_end_bytes", "live_blocks_peak_count",
                        "size_le16_count", "size_le32_count", "size_le64_count", "size_gt1024_count"};
  std::map<std::string, int64_t> reference;
  std::string reference_name;
  int compared = 0;
  for (const TestAllocator& allocator : test_allocators()) {
    if (!installed(allocator)) {
      // Under CI=true every allocator is installed (scripts/install-deps): a missing one compares nothing.
      if (!std::getenv("ALLOCSTAMP_ALLOW_MISSING_ALLOCATORS")) ADD_FAILURE() << allocator.name << " is not installed";
      continue;
    }
    ++compared;
    RunResult r = run_program(target("deterministic"), {}, allocator);
    ASSERT_EQ(r.exit_code, 0) << allocator.name << " " << r.describe();
    EXPECT_EQ(r.num("heap_peak_error_bytes"), 0);
    if (reference.empty()) {
      reference_name = allocator.name;
      for (const char* k : keys) reference[k] = r.num(k);
      EXPECT_GT(reference["allocs_seq_count"], 5000);
      continue;
    }
    for (const char* k : keys) EXPECT_EQ(r.num(k), reference[k]) << k << ": " << allocator.name << " vs " << reference_name;
  }
  EXPECT_GE(compared, 2) << "fewer than two allocators ran: nothing was compared";
}

// Without MEMPROF_OUT the summary is text on stderr.
TEST(PreloadStandalone, TextSummaryOnStderr) {
  RunResult r = run_program(target("entry_points"), {"1"}, test_allocators()[0],
                            RunOptions{.env = {{"MEMPROF_OUT", ""}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("memprof: pid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("heap requested  peak"), std::string::npos) << r.err;
  EXPECT_TRUE(r.records.empty());
}

// fd:2 sends records to stderr through a private copy of the descriptor.
TEST(PreloadStandalone, RecordsToStderrDescriptor) {
  RunResult r = run_program(target("entry_points"), {"1"}, test_allocators()[0],
                            RunOptions{.env = {{"MEMPROF_OUT", "fd:2"}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("@memprof pid="), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("memprof: pid"), std::string::npos) << "records, not the text summary";
}

// A bad option value warns once and keeps the default.
TEST(PreloadStandalone, BadOptionWarnsAndKeepsDefault) {
  RunResult r = run_program(target("entry_points"), {"1"}, test_allocators()[0],
                            RunOptions{.env = {{"MEMPROF_PEAK_SLACK", "lots"}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.err.find("MEMPROF_PEAK_SLACK='lots' is not valid"), std::string::npos) << r.err;
  EXPECT_EQ(r.num("peak_slack_bytes"), 65536);
}

// A path option takes what its field holds (511 bytes), not the shortest
// field's 255 (issue 46, N5): a 300-byte MEMPROF_CALLSITES is used; one longer
// than its field is refused loudly, never cut.
TEST(PreloadStandalone, PathOptionsTakeTheirFieldsSize) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / std::string(200, 'd') / std::string(60, 'e');
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (std::string(20, 'f') + ".folded")).string();
  ASSERT_GT(path.size(), 256u);
  ASSERT_LT(path.size(), 511u);
  RunResult r = run_program(target("entry_points"), {"1"}, test_allocators()[0],
                            RunOptions{.env = {{"MEMPROF_CALLSITES", path}, {"MEMPROF_SAMPLE_BYTES", "1"}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.err.find("MEMPROF_CALLSITES="), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(path)) << "the call sites go to the path as given";
  const std::string too_long = "/tmp/" + std::string(600, 'g');
  RunResult refused = run_program(target("entry_points"), {"1"}, test_allocators()[0],
                                  RunOptions{.env = {{"MEMPROF_TRACE", too_long}}});
  EXPECT_NE(refused.err.find("MEMPROF_TRACE='" + too_long + "' is not valid"), std::string::npos) << refused.err;
  std::filesystem::remove_all(std::filesystem::temp_directory_path() / std::string(200, 'd'));
}

// MEMPROF_SERIES records points; the scope and metric records come through.
TEST(PreloadStandalone, SeriesScopesAndMetrics) {
  RunResult r = run_program(target("deterministic"), {}, test_allocators()[0],
                            RunOptions{.env = {{"MEMPROF_SERIES", "1"}, {"MEMPROF_SERIES_MS", "1"},
                                               {"MEMPROF_SERIES_SIZE", "64K"}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  int samples = 0, scopes = 0;
  for (const auto& [kind, rec] : r.records) {
    if (kind == "sample") ++samples;
    if (kind == "scope" && rec.at("name") == "fill") {
      ++scopes;
      EXPECT_EQ(rec.at("calls_count"), "1");
      EXPECT_GE(std::stoll(rec.at("allocs_count")), 5000);
      EXPECT_GT(std::stoll(rec.at("held_bytes")), 0);
    }
  }
  EXPECT_GE(samples, 2);
  EXPECT_EQ(samples, r.num("series_points_count"));
  EXPECT_EQ(scopes, 1);
  EXPECT_GT(r.metric("checksum"), 0);
}

// A series fuller than MEMPROF_SERIES_MAX halves its points, each pair kept
// as one carrying the pair's maximum: a spike of 64 MiB, allocated and freed
// at once among 40 changes of 2 MiB, is still the series' highest point,
// the requested peak, after the halvings.
TEST(PreloadStandalone, SeriesHalvedKeepsASpikesMaximum) {
  RunResult r = run_program(target("large"), {"spike"}, test_allocators()[0],
                            RunOptions{.env = {{"MEMPROF_SERIES", "1"}, {"MEMPROF_SERIES_MS", "1000000"},
                                               {"MEMPROF_SERIES_SIZE", "1M"}, {"MEMPROF_SERIES_MAX", "16"}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  int64_t samples = 0, highest = 0;
  for (const auto& [kind, rec] : r.records)
    if (kind == "sample") {
      ++samples;
      highest = std::max(highest, int64_t(std::stoll(rec.at("heap_requested_max_bytes"))));
    }
  EXPECT_EQ(samples, r.num("series_points_count"));
  EXPECT_LE(samples, 16);
  EXPECT_GE(samples, 8) << "halved, not emptied";
  EXPECT_EQ(r.num("heap_requested_peak_bytes") - r.metric("start_bytes"), 64 << 20);
  EXPECT_EQ(highest, r.num("heap_requested_peak_bytes"));
}

}  // namespace
}  // namespace allocstamp::testing
