// intset_tm.cpp — the intset benchmark body: fill the set with `initial` keys,
// then each thread runs `ops` operations, each one transaction: insert or
// remove (update_percent, half each) or lookup. Compiled once per TM build
// (seq, lock, stm; see CMakeLists.txt), each into its own namespace,
// ALLOCSTAMP_TM_BUILD.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "config.h"
#include "random.h"
#include "tm.h"
#include "runtime.h"

namespace allocstamp::intset::ALLOCSTAMP_TM_BUILD {
#include "sorted_list.h"
#include "hash_set.h"
#include "rb_tree.h"
#include "skip_list.h"

using IntKey = long;

struct ListSet {
  SortedList<IntKey> set;
  bool insert(IntKey k, int) { return set.insert(k); }
  bool remove(IntKey k) { return set.remove(k); }
  bool contains(IntKey k) { return set.contains(k); }
};
struct HashSetOf {
  HashSet<IntKey> set{1024};
  bool insert(IntKey k, int) { return set.insert(k); }
  bool remove(IntKey k) { return set.remove(k); }
  bool contains(IntKey k) { return set.contains(k); }
};
struct TreeSet {
  RbTree<IntKey, IntKey> set;
  bool insert(IntKey k, int) { return set.insert(k, k); }
  bool remove(IntKey k) { return set.remove(k); }
  bool contains(IntKey k) { return set.contains(k); }
};
struct SkipSet {
  SkipList<IntKey> set;
  bool insert(IntKey k, int level) { return set.insert(k, level); }
  bool remove(IntKey k) { return set.remove(k); }
  bool contains(IntKey k) { return set.contains(k); }
};

// One transaction each, in its own frame: _ITM_beginTransaction returns twice,
// and the caller's loop state must not live across it.
template <typename Set>
__attribute__((noinline)) bool tx_insert(Set& s, IntKey key, int level) {
  bool done;
  TM_BEGIN
  done = s.insert(key, level);
  TM_END
  return done;
}

template <typename Set>
__attribute__((noinline)) bool tx_remove(Set& s, IntKey key) {
  bool done;
  TM_BEGIN
  done = s.remove(key);
  TM_END
  return done;
}

template <typename Set>
__attribute__((noinline)) bool tx_contains(Set& s, IntKey key) {
  bool found;
  TM_BEGIN
  found = s.contains(key);
  TM_END
  return found;
}

template <typename Set>
Result run_with(const Config& c) {
  Set s;
  Random fill(c.seed);
  long filled = 0;
  while (filled < c.initial)
    if (s.insert(IntKey(fill.below(uint64_t(c.range))), SkipList<IntKey>::level_from(fill.next()))) ++filled;

  std::atomic<long> delta{0};
  std::atomic<uint64_t> inserts{0}, removes{0}, lookups{0};
  Result r;
  {
    memprof::region parallel(MEMPROF_PAR);
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < c.threads; ++t)
      workers.emplace_back([&, t] {
        Random rng(c.seed * 7919 + uint64_t(t) + 1);
        long my_delta = 0;
        uint64_t my_inserts = 0, my_removes = 0, my_lookups = 0;
        for (long i = 0; i < c.ops; ++i) {
          IntKey key = IntKey(rng.below(uint64_t(c.range)));
          bool update = rng.below(100) < uint64_t(c.update_percent);
          if (update && (rng.next() & 1)) {
            if (tx_insert(s, key, SkipList<IntKey>::level_from(rng.next()))) ++my_delta;
            ++my_inserts;
          } else if (update) {
            if (tx_remove(s, key)) --my_delta;
            ++my_removes;
          } else {
            tx_contains(s, key);
            ++my_lookups;
          }
        }
        delta += my_delta;
        inserts += my_inserts;
        removes += my_removes;
        lookups += my_lookups;
        ::allocstamp::tm::publish_thread_counts();
      });
    for (auto& w : workers) w.join();
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    memprof::phase_end();
  }
  r.expected_size = c.initial + delta.load();
  r.final_size = s.set.size();
  r.valid = s.set.valid();
  r.inserts = inserts;
  r.removes = removes;
  r.lookups = lookups;
  return r;
}

Result run(const Config& c) {
  switch (c.structure) {
    case Structure::list: return run_with<ListSet>(c);
    case Structure::hash: return run_with<HashSetOf>(c);
    case Structure::rbtree: return run_with<TreeSet>(c);
    case Structure::skiplist: return run_with<SkipSet>(c);
  }
  return Result{};
}
}  // namespace allocstamp::intset::ALLOCSTAMP_TM_BUILD
