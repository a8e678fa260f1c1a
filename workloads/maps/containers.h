// containers.h — the containers a maps run compares, behind one small adapter
// (insert, find, erase, size, in-order walk), and the dispatch from a --container
// name to its adapter type. Every container allocates through the process's
// malloc/operator new, so the preloaded allocator (and memprof) sees all of it.
#pragma once
#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>
#include <absl/container/node_hash_map.h>
#include <oneapi/tbb/concurrent_hash_map.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace allocstamp::maps {

// std::map, std::multimap, std::unordered_map and the Abseil maps share an interface.
template <typename Map, bool Ordered>
class MapAdapter {
 public:
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  static constexpr bool ordered = Ordered;
  static constexpr bool concurrent = false;
  static constexpr bool erasable = true;

  void insert(key_type key, mapped_type value) { map_.emplace(std::move(key), value); }
  bool find(const key_type& key, mapped_type& value) const {
    auto it = map_.find(key);
    if (it == map_.end()) return false;
    value = it->second;
    return true;
  }
  bool erase(const key_type& key) { return map_.erase(key) == 1; }
  std::size_t size() const { return map_.size(); }
  void finish() {}
  template <typename Visit>
  void walk(Visit visit) const {
    for (const auto& entry : map_) visit(entry.first);
  }

 private:
  Map map_;
};

// The lower bound: a vector of pairs, appended to and sorted once at the end, then
// shrunk to fit — its bytes per element are the pair's size; its peak shows the
// doubling growth. No erase: churn on a sorted vector is O(n) per operation.
template <typename K, typename V>
class SortedVectorAdapter {
 public:
  using key_type = K;
  using mapped_type = V;
  static constexpr bool ordered = true;
  static constexpr bool concurrent = false;
  static constexpr bool erasable = false;

  void insert(K key, V value) { pairs_.emplace_back(std::move(key), value); }
  void finish() {
    std::sort(pairs_.begin(), pairs_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    pairs_.shrink_to_fit();
  }
  bool find(const K& key, V& value) const {
    auto it = std::lower_bound(pairs_.begin(), pairs_.end(), key,
                               [](const auto& entry, const K& k) { return entry.first < k; });
    if (it == pairs_.end() || !(it->first == key)) return false;
    value = it->second;
    return true;
  }
  bool erase(const K&) { return false; }
  std::size_t size() const { return pairs_.size(); }
  template <typename Visit>
  void walk(Visit visit) const {
    for (const auto& entry : pairs_) visit(entry.first);
  }

 private:
  std::vector<std::pair<K, V>> pairs_;
};

// tbb::concurrent_hash_map, shared by all threads. Its default allocator,
// tbb_allocator, would take memory from libtbbmalloc behind the preloaded
// allocator's back: std::allocator keeps it on malloc.
template <typename K, typename V>
class TbbHashMapAdapter {
 public:
  using key_type = K;
  using mapped_type = V;
  static constexpr bool ordered = false;
  static constexpr bool concurrent = true;
  static constexpr bool erasable = true;

  void insert(K key, V value) { map_.emplace(std::move(key), value); }
  bool find(const K& key, V& value) const {
    typename Map::const_accessor found;
    if (!map_.find(found, key)) return false;
    value = found->second;
    return true;
  }
  bool erase(const K& key) { return map_.erase(key); }
  std::size_t size() const { return map_.size(); }
  void finish() {}
  template <typename Visit>
  void walk(Visit visit) const {
    for (const auto& entry : map_) visit(entry.first);
  }

 private:
  using Map = tbb::concurrent_hash_map<K, V, tbb::tbb_hash_compare<K>, std::allocator<std::pair<const K, V>>>;
  Map map_;
};

inline constexpr std::string_view kContainers[] = {
    "std_map",           "std_multimap",       "std_unordered_map",
    "absl_btree_map",    "absl_btree_multimap", "absl_flat_hash_map",
    "absl_node_hash_map", "tbb_concurrent_hash_map", "std_vector_sorted"};

// Calls run.template operator()<Adapter>() for the named container; false if unknown.
template <typename K, typename V, typename Run>
bool with_container(std::string_view name, Run&& run) {
  if (name == "std_map") run.template operator()<MapAdapter<std::map<K, V>, true>>();
  else if (name == "std_multimap") run.template operator()<MapAdapter<std::multimap<K, V>, true>>();
  else if (name == "std_unordered_map") run.template operator()<MapAdapter<std::unordered_map<K, V>, false>>();
  else if (name == "absl_btree_map") run.template operator()<MapAdapter<absl::btree_map<K, V>, true>>();
  else if (name == "absl_btree_multimap") run.template operator()<MapAdapter<absl::btree_multimap<K, V>, true>>();
  else if (name == "absl_flat_hash_map") run.template operator()<MapAdapter<absl::flat_hash_map<K, V>, false>>();
  else if (name == "absl_node_hash_map") run.template operator()<MapAdapter<absl::node_hash_map<K, V>, false>>();
  else if (name == "tbb_concurrent_hash_map") run.template operator()<TbbHashMapAdapter<K, V>>();
  else if (name == "std_vector_sorted") run.template operator()<SortedVectorAdapter<K, V>>();
  else return false;
  return true;
}

}  // namespace allocstamp::maps
