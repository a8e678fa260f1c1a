// kernel_calls_test — the allocator's calls to the kernel (kcall_* keys) and
// its mapped pages (alloc_os_* keys) under each allocator of the registry: the
// program's own maps are not counted, every preloaded allocator's are (also
// those it makes when the program asks it directly, or on its own threads),
// the pages its live blocks hold are mapped and resident, jemalloc's and
// mimalloc's purging shows as the calls each really makes, and under glibc,
// whose malloc calls the kernel where memprof cannot see, the keys are absent.
// A reservation without access (scudo's 180 GiB, the test allocator's GiBs)
// is counted mapped, its resident pages exactly, at a cost that does not grow
// with it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "profiled_run.h"

namespace allocstamp::testing {
namespace {

constexpr int64_t kBlocksBytes = 64 * (int64_t(4) << 20);  // what the target holds at its phase end

// Every call's count (by kind), then the keys each count goes with.
const char* const kKindCounts[] = {"kcall_mmap_count",         "kcall_munmap_count",
                                   "kcall_mremap_count",       "kcall_madvise_dontneed_count",
                                   "kcall_madvise_free_count", "kcall_madvise_other_count",
                                   "kcall_brk_count"};
const char* const kCallKeys[] = {"kcall_mmap_bytes",          "kcall_munmap_bytes",       "kcall_mremap_bytes",
                                 "kcall_madvise_dontneed_bytes", "kcall_madvise_free_bytes",
                                 "kcall_madvise_other_bytes", "kcall_brk_bytes",          "kcalls_seq_count",
                                 "kcalls_par_count",          "kcalls_tx_count"};
const char* const kPageKeys[] = {"alloc_os_mapped_bytes", "alloc_os_resident_bytes", "alloc_os_mapped_exit_bytes",
                                 "alloc_os_resident_exit_bytes"};

class PreloadKernelCalls : public ::testing::TestWithParam<TestAllocator> {
 protected:
  void SetUp() override {
    if (!installed(GetParam())) {
      if (std::getenv("ALLOCSTAMP_ALLOW_MISSING_ALLOCATORS")) GTEST_SKIP() << GetParam().library << " missing";
      FAIL() << GetParam().name << " is not installed (" << GetParam().library << ") — run scripts/install-deps";
    }
  }
  bool glibc() const { return GetParam().library.empty(); }
  RunResult run(std::vector<std::string> args, RunOptions options = {}) {
    RunResult r = run_program(target("kernel_calls"), args, GetParam(), options);
    EXPECT_FALSE(r.timed_out) << r.describe();
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r;
  }
};

// Under glibc memprof sees none of the allocator's kernel calls (its malloc
// calls the kernel through internal symbols): every kcall, kcalls and page key
// is absent — what a test asserts there instead of returning early.
void expect_no_kernel_keys(const RunResult& r) {
  for (const char* key : kKindCounts) EXPECT_EQ(r.memprof().count(key), 0u) << key;
  for (const char* key : kCallKeys) EXPECT_EQ(r.memprof().count(key), 0u) << key;
  for (const char* key : kPageKeys) EXPECT_EQ(r.memprof().count(key), 0u) << key;
}

int64_t calls(const RunResult& r) {
  int64_t n = 0;
  for (const char* key : kKindCounts) n += r.num(key);
  return n;
}

TEST_P(PreloadKernelCalls, OnlyTheAllocatorsCallsAreCounted) {
  RunResult base = run({"0"});
  RunResult work = run({"100"});  // 100 maps, madvises and unmaps of the program's own
  if (glibc()) {
    for (const RunResult* r : {&base, &work}) expect_no_kernel_keys(*r);
    return;
  }
  for (const char* key : kKindCounts) EXPECT_LT(work.num(key) - base.num(key), 50) << key;
  // gperftools takes its memory with sbrk, and maps nothing while that works.
  EXPECT_GT(work.num("kcall_mmap_count") + work.num("kcall_brk_count"), 0);
  if (GetParam().name.rfind("tcmalloc", 0) != 0) {
    EXPECT_GT(work.num("kcall_mmap_count"), 0);
  }
  EXPECT_EQ(work.num("kcalls_seq_count") + work.num("kcalls_par_count") + work.num("kcalls_tx_count"), calls(work));
  EXPECT_EQ(work.num("kcalls_par_count") + work.num("kcalls_tx_count"), 0);
  // The blocks were live and touched at the phase end: mapped and resident.
  EXPECT_GE(work.num("alloc_os_resident_bytes"), kBlocksBytes);
  EXPECT_GE(work.num("alloc_os_mapped_bytes"), work.num("alloc_os_resident_bytes"));
  EXPECT_GE(work.num("alloc_os_mapped_exit_bytes"), work.num("alloc_os_resident_exit_bytes"));
  EXPECT_GT(work.num("alloc_os_mapped_exit_bytes"), 0);
  // The kernel's figure holds the allocator's resident pages.
  EXPECT_LE(work.num("alloc_os_resident_bytes"), work.num("rss_kb") * 1024);
}

TEST_P(PreloadKernelCalls, CallsOnAnotherThreadAreParallel) {
  RunResult r = run({"0", "threads"});
  if (glibc()) return expect_no_kernel_keys(r);
  EXPECT_GT(r.num("kcalls_par_count"), 0);
  EXPECT_EQ(r.num("kcalls_seq_count") + r.num("kcalls_par_count") + r.num("kcalls_tx_count"), calls(r));
  EXPECT_GE(r.num("alloc_os_resident_bytes"), kBlocksBytes);
}

// Calls made from the allocator's code outside any call memprof forwards: the
// program asks the allocator itself to give its free memory back (jemalloc
// purges with MADV_DONTNEED, gperftools too, mimalloc and TBB unmap; scudo
// unmapped its large blocks at their free already). TBB's
// come from libtbbmalloc.so.2, which its preloaded proxy needs.
TEST_P(PreloadKernelCalls, CallsFromTheAllocatorsOwnCodeAreCounted) {
  RunResult kept = run({"0"});
  RunResult released = run({"0", "release"});
  if (glibc()) {
    expect_no_kernel_keys(kept);
    return expect_no_kernel_keys(released);
  }
  auto giving_back = [](const RunResult& r) {
    return r.num("kcall_munmap_count") + r.num("kcall_madvise_dontneed_count") + r.num("kcall_madvise_free_count");
  };
  if (GetParam().base == "scudo") {
    // scudo keeps no 4 MiB block once freed: each is unmapped at its free.
    EXPECT_GE(kept.num("kcall_munmap_count"), 64);
    EXPECT_LT(kept.num("alloc_os_resident_exit_bytes"), kBlocksBytes / 16);
  } else {
    EXPECT_GT(giving_back(released), giving_back(kept));
  }
  EXPECT_LT(released.num("alloc_os_resident_exit_bytes"), kBlocksBytes / 16);
  // What it unmapped is no longer its mapping.
  int64_t unmapped = released.num("kcall_munmap_bytes") - kept.num("kcall_munmap_bytes");
  // A purge may map a little metadata (2 MiB under jemalloc:narenas2); a background
  // thread (jemalloc:bg) maps and purges on its own time: a looser bound.
  bool background = false;
  for (const auto& [name, value] : GetParam().env) background = background || value.find("background_thread:true") != std::string::npos;
  EXPECT_LE(released.num("alloc_os_mapped_exit_bytes"),
            kept.num("alloc_os_mapped_exit_bytes") - unmapped + kBlocksBytes / (background ? 16 : 32));
}

INSTANTIATE_TEST_SUITE_P(Allocators, PreloadKernelCalls, ::testing::ValuesIn(test_allocators()),
                         [](const ::testing::TestParamInfo<TestAllocator>& info) { return info.param.id; });

// The registry's entry of that name (the test fails if there is none).
TestAllocator allocator_named(const std::string& name) {
  for (const TestAllocator& a : test_allocators())
    if (a.name == name) return a;
  ADD_FAILURE() << "no allocator " << name << " in the registry";
  return {};
}

RunResult run_under(const TestAllocator& allocator, std::vector<std::string> args, RunOptions options = {}) {
  RunResult r = run_program(target("kernel_calls"), args, allocator, options);
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r;
}

// jemalloc 5.3 with dirty_decay_ms:0 purges a freed extent at once, and fully:
// with MADV_DONTNEED, skipping the muzzy stage (MADV_FREE) whatever
// muzzy_decay_ms says, and keeping the address space (retain, its default on
// 64-bit Linux). The one MADV_FREE of a page it makes in any run is not the blocks'.
TEST(PreloadKernelCallsJemalloc, DecayZeroPurgesWithMadviseDontneed) {
  TestAllocator jemalloc = allocator_named("jemalloc");
  if (!runnable(jemalloc)) return;
  for (const char* conf : {"dirty_decay_ms:0,muzzy_decay_ms:0", "dirty_decay_ms:0,muzzy_decay_ms:10000"}) {
    RunResult r = run_under(jemalloc, {"0"}, RunOptions{.env = {{"MALLOC_CONF", conf}}});
    EXPECT_GT(r.num("kcall_madvise_dontneed_count") + r.num("kcall_madvise_free_count") + r.num("kcall_munmap_count"),
              0) << conf;
    EXPECT_GE(r.num("kcall_madvise_dontneed_bytes"), kBlocksBytes) << conf;
    EXPECT_LT(r.num("kcall_madvise_free_bytes"), kBlocksBytes / 64) << conf;
    EXPECT_LT(r.num("kcall_munmap_bytes"), kBlocksBytes / 64) << conf;
    // The blocks' pages were resident at the phase end, gone at exit, still mapped.
    EXPECT_GE(r.num("alloc_os_resident_bytes") - r.num("alloc_os_resident_exit_bytes"), kBlocksBytes / 16 * 15) << conf;
    EXPECT_GE(r.num("alloc_os_mapped_exit_bytes"), kBlocksBytes) << conf;
  }
}

// Calls on threads memprof has no state for: jemalloc starts its background
// threads through the pthread_create it looks up itself, and with them only
// they purge. What the program freed before sleeping is purged by then, but
// for the decay's last steps: the program stops waiting once its resident
// memory is down by all but a MiB of the blocks, and other pages leaving with
// them made that 3.75 MiB short of the blocks twice in 20 runs on a busy machine.
TEST(PreloadKernelCallsJemalloc, BackgroundThreadsCallsAreCounted) {
  TestAllocator jemalloc = allocator_named("jemalloc");
  if (!runnable(jemalloc)) return;
  RunOptions options{.env = {{"MALLOC_CONF", "background_thread:true,dirty_decay_ms:100"}}};
  RunResult r = run_under(jemalloc, {"0", "wait"}, options);
  EXPECT_GE(r.num("kcall_madvise_dontneed_bytes"), kBlocksBytes / 16 * 15);
  EXPECT_LT(r.num("alloc_os_resident_exit_bytes"), kBlocksBytes / 16);
}

// mimalloc 2.0.9 with MIMALLOC_DECOMMIT_DELAY=0 decommits a freed huge block's
// segment at once with madvise(MADV_DONTNEED) (its decommit on Linux in a
// release build), one call per block, and unmaps nothing. By default (500 ms)
// the program has ended first.
TEST(PreloadKernelCallsMimalloc, DecommitDelayZeroGivesPagesBackWithMadvise) {
  TestAllocator mimalloc = allocator_named("mimalloc");
  if (!runnable(mimalloc)) return;
  RunResult r = run_under(mimalloc, {"0"}, RunOptions{.env = {{"MIMALLOC_DECOMMIT_DELAY", "0"}}});
  EXPECT_GE(r.num("kcall_madvise_dontneed_count"), 64);
  EXPECT_EQ(r.num("kcall_munmap_count"), 0);
  EXPECT_GE(r.num("alloc_os_resident_bytes") - r.num("alloc_os_resident_exit_bytes"), kBlocksBytes / 16 * 15);
  EXPECT_GE(r.num("alloc_os_mapped_exit_bytes"), kBlocksBytes);
}

// reserving_alloc (tests/memprof/targets/reserving_alloc.c) reserves
// RESERVING_ALLOC_GIB GiB without access and opens, touches, splits and
// unmaps parts of it in a fixed way: every figure is known to the page.
constexpr int64_t kPage = 4096, kGiB = int64_t(1) << 30;
const TestAllocator kReserving{"reserving", RESERVING_ALLOCATOR, "reserving", "reserving", {}};

RunResult run_reserving(int gib) {
  RunResult r = run_program(target("page_blocks"), {}, kReserving,
                            RunOptions{.env = {{"RESERVING_ALLOC_GIB", std::to_string(gib)}}});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r;
}

// The pages opened with mprotect (a part of a GiB, a whole GiB, pages closed
// again), mapped with access over the reservation, and split off or unmapped
// whole: mapped and resident exact at the phase end and at exit.
TEST(PreloadKernelCallsReservation, ResidentPagesOfAReservationAreExact) {
  RunResult r = run_reserving(9);
  for (const char* key : {"alloc_os_mapped_bytes", "alloc_os_mapped_exit_bytes"})
    EXPECT_EQ(r.num(key), 9 * kGiB - 17 * kPage - kGiB) << key;
  for (const char* key : {"alloc_os_resident_bytes", "alloc_os_resident_exit_bytes"})
    EXPECT_EQ(r.num(key), 28 * kPage) << key;
}

// A whole GiB costs memprof one mark: 63 GiB more reserved, the same
// resident bookkeeping (within the two partly covered GiBs at the
// reservation's ends, whose split moves with its address).
TEST(PreloadKernelCallsReservation, PageBitsDoNotGrowWithTheReservation) {
  RunResult small = run_reserving(9);
  RunResult large = run_reserving(72);
  EXPECT_EQ(large.num("alloc_os_mapped_bytes") - small.num("alloc_os_mapped_bytes"), 63 * kGiB);
  EXPECT_EQ(large.num("alloc_os_resident_bytes"), small.num("alloc_os_resident_bytes"));
  EXPECT_LE(std::abs(large.num("memprof_self_kb") - small.num("memprof_self_kb")), 64);
}

// scudo's GWP-ASan, sampling every block: each of page_blocks' blocks alone on
// a slot page it opened with mprotect, resident at the phase end; freed, the
// slot is mapped over without access and is resident no more.
TEST(PreloadKernelCallsScudo, PagesGwpAsanOpensWithMprotectAreResident) {
  TestAllocator scudo = allocator_named("scudo");
  if (!runnable(scudo)) return;
  RunResult r = run_program(target("page_blocks"), {}, scudo,
                            RunOptions{.env = {{"SCUDO_OPTIONS", "GWP_ASAN_SampleRate=1"}}});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_GE(r.metric("lone_pages"), 4);
  EXPECT_EQ(r.num("alloc_os_resident_bytes") - r.num("alloc_os_resident_exit_bytes"),
            r.metric("lone_pages") * kPage);
}

}  // namespace
}  // namespace allocstamp::testing
