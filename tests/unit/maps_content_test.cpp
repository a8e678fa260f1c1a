// maps_content_test — the maps workload's key space (distinct keys, sorted order
// ascending) and its content check: it passes a correctly filled container of every
// kind and catches a missing key, a wrong value, a stray element and a revived key.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "containers.h"
#include "keys.h"
#include "verify.h"

namespace allocstamp::maps {
namespace {

TEST(KeySpace, RandomKeysAreDistinctAndSortedKeysAscend) {
  for (bool wide : {false, true}) {
    KeySpace random(7, 100000, Order::random, wide);
    std::set<uint64_t> seen;
    for (uint64_t i = 0; i < 100000; ++i) seen.insert(random.raw(i));
    EXPECT_EQ(seen.size(), 100000u) << "wide=" << wide;
    KeySpace sorted(7, 100000, Order::sorted, wide);
    for (uint64_t i = 1; i < 100000; ++i) ASSERT_LT(sorted.raw(i - 1), sorted.raw(i)) << "wide=" << wide << " i=" << i;
    if (!wide) {
      EXPECT_LE(sorted.raw(99999), 0xFFFFFFFFull);
    }
  }
  EXPECT_NE(KeySpace(1, 10, Order::random, true).raw(3), KeySpace(2, 10, Order::random, true).raw(3)) << "seeded";
  EXPECT_EQ(KeyOf<std::string>::make(42), "k-00000000000000000042");
}

template <typename Adapter>
class Content : public ::testing::Test {};

using Adapters =
    ::testing::Types<MapAdapter<std::map<uint32_t, uint32_t>, true>, MapAdapter<std::multimap<uint32_t, uint32_t>, true>,
                     MapAdapter<std::unordered_map<uint32_t, uint32_t>, false>,
                     MapAdapter<absl::btree_map<std::string, uint64_t>, true>,
                     MapAdapter<absl::btree_multimap<uint64_t, uint64_t>, true>,
                     MapAdapter<absl::flat_hash_map<uint32_t, uint32_t>, false>,
                     MapAdapter<absl::node_hash_map<std::string, uint64_t>, false>,
                     TbbHashMapAdapter<uint32_t, uint32_t>, SortedVectorAdapter<uint64_t, uint64_t>>;
TYPED_TEST_SUITE(Content, Adapters);

template <typename Adapter>
void fill(Shards<Adapter>& shards, const KeySpace& keys, uint64_t count, int threads) {
  using K = typename Adapter::key_type;
  using V = typename Adapter::mapped_type;
  for (uint64_t i = 0; i < count; ++i) shards.of_thread(int(i % uint64_t(threads))).insert(KeyOf<K>::make(keys.raw(i)), value_of<V>(keys.raw(i)));
  for (int t = 0; t < threads; ++t) shards.of_thread(t).finish();
}

TYPED_TEST(Content, PassesWhenRightAndNamesWhatIsWrong) {
  using Adapter = TypeParam;
  using K = typename Adapter::key_type;
  using V = typename Adapter::mapped_type;
  const uint64_t n = 2000;
  KeySpace keys(3, n + 10, Order::random, KeyOf<K>::wide);
  Shards<Adapter> shards(2);
  fill(shards, keys, n, 2);
  EXPECT_EQ(check_content(shards, keys, n, every_index(n), no_index()), "");

  // An element too many, then (where erase exists) the right count with one key missing.
  shards.of_thread(0).insert(KeyOf<K>::make(keys.raw(n)), value_of<V>(keys.raw(n)));
  shards.of_thread(0).finish();
  EXPECT_EQ(check_content(shards, keys, n, every_index(n), no_index()), "holds 2001 elements, expected 2000");
  if constexpr (Adapter::erasable) {
    ASSERT_TRUE(shards.of_thread(0).erase(KeyOf<K>::make(keys.raw(4))));
    EXPECT_EQ(check_content(shards, keys, n, every_index(n), no_index()), "key of index 4 is missing");
    // Index n (inserted above, in shard 0) claimed erased: still found.
    auto gone = [&](auto visit) { visit(n); };
    auto live = [&](auto visit) {
      for (uint64_t i = 0; i < n; ++i)
        if (i != 4 && !visit(i)) return;
    };
    EXPECT_EQ(check_content(shards, keys, n, live, gone), "key of index 2000 was erased but is still found");
    // A wrong value under a present key.
    ASSERT_TRUE(shards.of_thread(0).erase(KeyOf<K>::make(keys.raw(6))));
    shards.of_thread(0).insert(KeyOf<K>::make(keys.raw(6)), value_of<V>(keys.raw(6)) + 1);
    EXPECT_EQ(check_content(shards, keys, n, live, no_index()), "key of index 6 holds the wrong value");
  }
}

}  // namespace
}  // namespace allocstamp::maps
