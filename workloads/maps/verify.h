// verify.h — the shards a run fills (one container per thread, or one shared
// concurrent container) and the content check every run ends with: the size, each
// live key found with its value, erased keys gone, ordered containers in order.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "keys.h"

namespace allocstamp::maps {

// Index i of the key space belongs to thread i % threads.
template <typename Adapter>
class Shards {
 public:
  explicit Shards(int threads) : threads_(threads), shards_(Adapter::concurrent ? 1 : threads) {
    for (auto& s : shards_) s = std::make_unique<Adapter>();
  }
  Adapter& of_thread(int t) { return *shards_[Adapter::concurrent ? 0 : t]; }
  const Adapter& of_index(uint64_t i) const { return *shards_[Adapter::concurrent ? 0 : i % uint64_t(threads_)]; }
  uint64_t size() const {
    uint64_t n = 0;
    for (const auto& s : shards_) n += s->size();
    return n;
  }
  const std::vector<std::unique_ptr<Adapter>>& all() const { return shards_; }

 private:
  int threads_;
  std::vector<std::unique_ptr<Adapter>> shards_;
};

// for_each_live(visit) / for_each_gone(visit) call visit(index) for the indices that
// must be present / absent, and stop when it returns false. Empty result: all good.
template <typename Adapter, typename Live, typename Gone>
std::string check_content(const Shards<Adapter>& shards, const KeySpace& keys, uint64_t expected, Live for_each_live,
                          Gone for_each_gone) {
  using K = typename Adapter::key_type;
  using V = typename Adapter::mapped_type;
  if (shards.size() != expected)
    return "holds " + std::to_string(shards.size()) + " elements, expected " + std::to_string(expected);
  std::string problem;
  for_each_live([&](uint64_t i) {
    uint64_t raw = keys.raw(i);
    V value{};
    if (!shards.of_index(i).find(KeyOf<K>::make(raw), value)) problem = "key of index " + std::to_string(i) + " is missing";
    else if (value != value_of<V>(raw)) problem = "key of index " + std::to_string(i) + " holds the wrong value";
    return problem.empty();
  });
  if (!problem.empty()) return problem;
  for_each_gone([&](uint64_t i) {
    V value{};
    if (shards.of_index(i).find(KeyOf<K>::make(keys.raw(i)), value))
      problem = "key of index " + std::to_string(i) + " was erased but is still found";
    return problem.empty();
  });
  if (!problem.empty()) return problem;
  if constexpr (Adapter::ordered) {
    for (const auto& shard : shards.all()) {
      const K* previous = nullptr;
      bool in_order = true;
      shard->walk([&](const K& key) {
        if (previous && !(*previous < key)) in_order = false;
        previous = &key;
      });
      if (!in_order) return "an ordered container does not walk in ascending key order";
    }
  }
  return "";
}

// All of [0, count).
inline auto every_index(uint64_t count) {
  return [count](auto visit) {
    for (uint64_t i = 0; i < count; ++i)
      if (!visit(i)) return;
  };
}
inline auto no_index() {
  return [](auto) {};
}

}  // namespace allocstamp::maps
