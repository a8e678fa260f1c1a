// tm_structures_test — the transaction-safe data structures of workloads/lib
// (sorted list, hash set, red-black tree, skip list): single-threaded against
// std::set under random operations, and with 2 threads inside GCC
// transactions (libitm, ml_wt), each owning half of the keys, so the final
// contents are known exactly.
#define ALLOCSTAMP_TM_STM
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <thread>

#include "random.h"
#include "tm.h"

namespace allocstamp::structures_test {
#include "sorted_list.h"
#include "hash_set.h"
#include "rb_tree.h"
#include "skip_list.h"

struct List {
  SortedList<long> s;
  bool insert(long k, int) { return s.insert(k); }
  bool remove(long k) { return s.remove(k); }
  bool contains(long k) { return s.contains(k); }
  long size() const { return s.size(); }
  bool valid() const { return s.valid(); }
};
struct Hash {
  HashSet<long> s{97};
  bool insert(long k, int) { return s.insert(k); }
  bool remove(long k) { return s.remove(k); }
  bool contains(long k) { return s.contains(k); }
  long size() const { return s.size(); }
  bool valid() const { return s.valid(); }
};
struct Tree {
  RbTree<long, long> s;
  bool insert(long k, int) { return s.insert(k, k * 2); }
  bool remove(long k) { return s.remove(k); }
  bool contains(long k) { return s.contains(k) && s.get(k, -1) == k * 2; }
  long size() const { return s.size(); }
  bool valid() const { return s.valid(); }
};
struct Skip {
  SkipList<long> s;
  bool insert(long k, int level) { return s.insert(k, level); }
  bool remove(long k) { return s.remove(k); }
  bool contains(long k) { return s.contains(k); }
  long size() const { return s.size(); }
  bool valid() const { return s.valid(); }
};

template <typename T>
class Structure : public ::testing::Test {};
using AllStructures = ::testing::Types<List, Hash, Tree, Skip>;
TYPED_TEST_SUITE(Structure, AllStructures);
}  // namespace allocstamp::structures_test

namespace allocstamp::structures_test {

TYPED_TEST(Structure, MatchesStdSetSingleThreaded) {
  TypeParam s;
  std::set<long> reference;
  Random rng(42);
  for (int i = 0; i < 20000; ++i) {
    long key = long(rng.below(512));
    switch (rng.below(3)) {
      case 0:
        EXPECT_EQ(s.insert(key, SkipList<long>::level_from(rng.next())), reference.insert(key).second) << key;
        break;
      case 1:
        EXPECT_EQ(s.remove(key), reference.erase(key) == 1) << key;
        break;
      default:
        EXPECT_EQ(s.contains(key), reference.count(key) == 1) << key;
    }
    if (i % 1000 == 0) {
      ASSERT_TRUE(s.valid()) << "after " << i << " operations";
    }
  }
  EXPECT_TRUE(s.valid());
  EXPECT_EQ(s.size(), long(reference.size()));
}

template <typename S>
__attribute__((noinline)) bool tx_insert(S& s, long key, int level) {
  bool done;
  TM_BEGIN
  done = s.insert(key, level);
  TM_END
  return done;
}

template <typename S>
__attribute__((noinline)) bool tx_remove(S& s, long key) {
  bool done;
  TM_BEGIN
  done = s.remove(key);
  TM_END
  return done;
}

// Thread t owns the keys k with k % 2 == t: it inserts all of them, removes
// those divisible by 3, while the other thread works on the same structure.
TYPED_TEST(Structure, TwoThreadsInTransactions) {
#if defined(ALLOCSTAMP_TSAN)
  GTEST_SKIP() << "tsan preset: ThreadSanitizer does not see libitm's commits";
#endif
  setenv("ITM_DEFAULT_METHOD", "ml_wt", 0);
  TypeParam s;
  auto work = [&](long parity) {
    Random rng(7 + uint64_t(parity));
    for (long k = parity; k < 4000; k += 2) ASSERT_TRUE(tx_insert(s, k, SkipList<long>::level_from(rng.next())));
    for (long k = parity; k < 4000; k += 2)
      if (k % 3 == 0) {
        ASSERT_TRUE(tx_remove(s, k));
      }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_TRUE(s.valid());
  long expected = 0;
  for (long k = 0; k < 4000; ++k) {
    bool present = k % 3 != 0;
    expected += present;
    EXPECT_EQ(s.contains(k), present) << k;
  }
  EXPECT_EQ(s.size(), expected);
}

}  // namespace allocstamp::structures_test
