// tm_workloads_test — every intset structure under every TM build (ml_wt, gl_wt,
// serialirr with 1 and 2 threads, lock with 1 and 2, seq), with memprof in
// front of each allocator of the registry: verification passes, every operation
// commits exactly once, and node allocations count as tx in every build;
// and the STAMP-like apps likewise. Under glibc: at two threads each intset
// thread and each vacation client draws its own stream.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "profiled_run.h"

namespace allocstamp::testing {
namespace {

struct Case {
  const char* method;
  int threads;
};

// Every TM method with 1 and 2 threads; seq runs one thread only.
const Case kEveryMethod[] = {{"ml_wt", 1},     {"ml_wt", 2}, {"gl_wt", 1}, {"gl_wt", 2}, {"serialirr", 1},
                             {"serialirr", 2}, {"lock", 1},  {"lock", 2},  {"seq", 1}};


class Intset : public ::testing::TestWithParam<std::tuple<TestAllocator, const char*>> {};

TEST_P(Intset, VerifiesAndCountsUnderEveryMethod) {
  const auto& [allocator, structure] = GetParam();
  if (!runnable(allocator)) return;
  RunOptions options;
  options.timeout_seconds = 60;
  for (const Case& c : kEveryMethod) {
    RunResult r = run_program(std::string(INTSET_BINARY),
                              {structure, "--threads", std::to_string(c.threads), "--size", "tiny", "--tm", c.method,
                               "--update", "60"},
                              allocator, options);
    std::string what = std::string(structure) + " " + c.method + " x" + std::to_string(c.threads);
    ASSERT_EQ(r.exit_code, 0) << what << " " << r.describe();
    EXPECT_EQ(r.metric("tx_commits_count"), 2000 * c.threads) << what;
    EXPECT_GE(r.metric("tx_attempts_count"), r.metric("tx_commits_count")) << what;
    // The lock and seq builds mark their transactions for memprof too.
    EXPECT_GT(r.num("allocs_tx_count"), 0) << what << ": inserts allocate inside transactions";
  }
}

// Each intset thread draws its own keys: with every operation an update, keys
// from 2^30 and an empty start, a set holds about the inserts it saw (two keys
// of one run collide with odds of about 1 in 2000), so two threads leave about
// twice what one leaves. Threads drawing one stream would insert the same keys
// (the second insert of each fails) and leave exactly what one thread does.
// The lock build at two threads: no aborts, whatever the interleaving the count is the same.
TEST(IntsetThreads, EachThreadDrawsItsOwnKeys) {
  const TestAllocator& glibc = test_allocators()[0];
  auto set_size = [&](int threads) {
    RunResult r = run_program(std::string(INTSET_BINARY),
                              {"rbtree", "--threads", std::to_string(threads), "--tm", "lock", "--update", "100",
                               "--initial", "0", "--range", std::to_string(1L << 30), "--ops", "1000"},
                              glibc);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r.metric("set_size_count");
  };
  const int64_t one = set_size(1), two = set_size(2);
  EXPECT_GT(one, 400) << "about half of 1000 operations insert";
  EXPECT_GT(two, one * 3 / 2) << "the second thread inserted keys of its own";
}

// Each vacation client draws its own stream, seeded with its id as STAMP's
// client_alloc does (seed - 1 + id). How many table-update transactions a client
// makes depends on its stream only (the draws decide the kind of each
// transaction, never the tables' state), so at two threads the count is that of
// a one-client run of half the transactions at --seed 1 (client 0's stream) plus
// one at --seed 2 (client 1's): whatever the interleaving.
TEST(VacationClients, EachClientDrawsTheStreamOfItsId) {
  const TestAllocator& glibc = test_allocators()[0];
  auto updates = [&](int threads, const std::string& transactions, const std::string& seed) {
    RunResult r = run_program(std::string(STAMP_BINARY),
                              {"vacation-high", "--size", "tiny", "--tm", "lock", "--threads", std::to_string(threads),
                               "--transactions", transactions, "--seed", seed},
                              glibc);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r.metric("table_updates_count");
  };
  const int64_t client0 = updates(1, "1024", "1"), client1 = updates(1, "1024", "2");
  ASSERT_NE(client0, client1) << "the two streams must differ in their updates for this test to tell them apart";
  EXPECT_EQ(updates(2, "2048", "1"), client0 + client1);
}

// Every app of the stamp binary, as workloads.json names them.
const std::vector<std::string> kStampApps = registry_apps("bin/stamp");

// STAMP-like apps under every method and allocator: each verifies its result
// (exits 3 otherwise), and an app that allocates inside transactions under
// ml_wt at one thread allocates inside them under every method (lock and seq
// mark their transactions for memprof too), one that does not (kmeans, ssca2)
// under none. What each allocates there, exactly, stamp_fidelity holds to STAMP.
class StampApp : public ::testing::TestWithParam<std::tuple<TestAllocator, std::string>> {};

TEST_P(StampApp, VerifiesUnderEveryMethod) {
  const auto& [allocator, app] = GetParam();
  if (!runnable(allocator)) return;
  RunOptions options;
  options.timeout_seconds = 60;
  bool allocates_in_tx = false;
  for (const Case& c : kEveryMethod) {
    RunResult r = run_program(std::string(STAMP_BINARY),
                              {app, "--threads", std::to_string(c.threads), "--size", "tiny", "--tm", c.method},
                              allocator, options);
    std::string what = app + " " + c.method + " x" + std::to_string(c.threads);
    ASSERT_EQ(r.exit_code, 0) << what << " " << r.describe();
    EXPECT_GE(r.metric("tx_attempts_count"), r.metric("tx_commits_count")) << what;
    if (app.rfind("vacation", 0) == 0) {
      EXPECT_EQ(r.metric("tx_commits_count"), 2048) << what;
    }
    if (&c == &kEveryMethod[0]) {
      allocates_in_tx = r.num("allocs_tx_count") > 0;
    } else {
      EXPECT_EQ(r.num("allocs_tx_count") > 0, allocates_in_tx) << what << " against " << kEveryMethod[0].method;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllocatorsAndApps, StampApp,
                         ::testing::Combine(::testing::ValuesIn(test_allocators()), ::testing::ValuesIn(kStampApps)),
                         [](const auto& info) {
                           std::string app = std::get<1>(info.param);
                           for (char& ch : app) ch = ch == '-' ? '_' : ch;
                           return std::get<0>(info.param).id + "_" + app;
                         });

// The apps the stamp binary knows (its usage line, `stamp <a|b|...>`) are the
// ones workloads.json runs: an app whose registration line is missing from its
// file, or whose entry is missing from the registry, fails here.
TEST(StampRegistry, TheBinaryAndTheRegistryNameTheSameApps) {
  const std::vector<std::string> known = binary_apps(STAMP_BINARY);
  EXPECT_EQ(std::set<std::string>(known.begin(), known.end()),
            std::set<std::string>(kStampApps.begin(), kStampApps.end()));
  EXPECT_GE(known.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(AllocatorsAndSets, Intset,
                         ::testing::Combine(::testing::ValuesIn(test_allocators()),
                                            ::testing::Values("list", "hash", "rbtree", "skiplist")),
                         [](const auto& info) {
                           return std::get<0>(info.param).id + "_" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace allocstamp::testing
