// maps_workloads_test — the maps binary under memprof in front of each of the five
// allocators: every container passes its content check for insert (1 and 2 threads,
// every key type) and churn, and the requested bytes per element are exactly what
// the node types imply, identical under every allocator; churn's clock starts after the fill.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>

#include "profiled_run.h"

namespace allocstamp::testing {
namespace {

const char* const kContainers[] = {"std_map",           "std_multimap",       "std_unordered_map",
                                   "absl_btree_map",    "absl_btree_multimap", "absl_flat_hash_map",
                                   "absl_node_hash_map", "tbb_concurrent_hash_map", "std_vector_sorted"};


RunResult run_maps(const std::vector<std::string>& args, const TestAllocator& allocator) {
  RunOptions options;
  options.timeout_seconds = 60;
  return run_program(std::string(MAPS_BINARY), args, allocator, options);
}

class MapsContainer : public ::testing::TestWithParam<std::tuple<TestAllocator, const char*>> {};

TEST_P(MapsContainer, InsertAndChurnPassTheContentCheck) {
  const auto& [allocator, container] = GetParam();
  if (!runnable(allocator)) return;
  struct Case {
    const char* app;
    const char* key;
    const char* order;
    int threads;
  };
  const Case cases[] = {{"insert", "u32", "random", 1}, {"insert", "u32", "random", 2}, {"insert", "u64", "sorted", 1},
                        {"insert", "string", "random", 2}, {"churn", "u32", "random", 1}, {"churn", "string", "sorted", 2}};
  for (const Case& c : cases) {
    bool churn = std::string(c.app) == "churn";
    if (churn && std::string(container) == "std_vector_sorted") continue;
    RunResult r = run_maps({c.app, "--container", container, "--size", "tiny", "--key", c.key, "--order", c.order,
                            "--threads", std::to_string(c.threads)},
                           allocator);
    std::string what = std::string(c.app) + " " + container + " " + c.key + " " + c.order + " x" + std::to_string(c.threads);
    ASSERT_EQ(r.exit_code, 0) << what << " " << r.describe();
    EXPECT_EQ(r.metric("elements_count"), 10000) << what;
    EXPECT_GT(r.metric("elapsed_ns"), 0) << what;
    EXPECT_GE(r.num("heap_requested_phase_end_bytes"), 10000 * 8) << what << ": at least the pairs themselves";
    if (churn) {
      EXPECT_EQ(r.metric("lookups_count") + r.metric("replaces_count"), 20000) << what;
    }
    if (c.threads == 1 && std::string(c.key) == "u32") {
      EXPECT_EQ(r.num("allocs_par_count"), 0) << what;
    }
  }
}

// churn's measured phase (elapsed_ns, hence ns_per_op) starts after the fill, as
// memprof's phase does: with a fill of 200,000 elements and 200 operations
// after it, the phase takes a small fraction of the fill's time. A clock left
// running from the fill's start would make the phase take longer than the fill,
// whatever the machine's load.
TEST(MapsChurn, ItsClockStartsAfterTheFill) {
  RunResult r = run_maps({"churn", "--container", "std_map", "--elements", "200000", "--ops", "200"},
                         test_allocators()[0]);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_GT(r.metric("elapsed_ns"), 0);
  EXPECT_LT(r.metric("elapsed_ns"), r.metric("fill_ns"));
}

// The requested bytes a container holds per element, from two sizes (so the fixed
// part — the container object, startup buffers — cancels): std::map's and
// std::multimap's node is the tree's base node (colour + 3 pointers = 32 bytes) plus
// the pair<const u32, u32> (8 bytes) = 40 bytes; the sorted vector's is the pair.
// The same under every allocator: requested bytes do not depend on it.
class MapsBytes : public ::testing::TestWithParam<TestAllocator> {};

TEST_P(MapsBytes, RequestedBytesPerElementMatchTheNodeType) {
  const TestAllocator& allocator = GetParam();
  if (!runnable(allocator)) return;
  auto held = [&](const char* container, int elements) {
    RunResult r = run_maps({"insert", "--container", container, "--elements", std::to_string(elements)}, allocator);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return r.num("heap_requested_phase_end_bytes");
  };
  const std::pair<const char*, int64_t> expected[] = {{"std_map", 40}, {"std_multimap", 40}, {"std_vector_sorted", 8}};
  for (const auto& [container, bytes] : expected)
    EXPECT_EQ(held(container, 20000) - held(container, 10000), bytes * 10000) << container;
}

INSTANTIATE_TEST_SUITE_P(EveryAllocator, MapsBytes, ::testing::ValuesIn(test_allocators()),
                         [](const auto& info) { return info.param.id; });

std::string name_of(const ::testing::TestParamInfo<MapsContainer::ParamType>& info) {
  return std::get<0>(info.param).id + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(EveryAllocator, MapsContainer,
                         ::testing::Combine(::testing::ValuesIn(test_allocators()), ::testing::ValuesIn(kContainers)),
                         name_of);

}  // namespace
}  // namespace allocstamp::testing
