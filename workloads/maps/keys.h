// keys.h — the keys and values a maps run inserts, computed from the seed and an
// index by a bijection: keys are distinct by construction, so every container (multi or
// not) ends with exactly the elements inserted, no key list is held in memory while the
// heap is measured, and a run can re-derive any key to check the container's content.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace allocstamp::maps {

enum class Order { random, sorted };

// Invertible mixers (splitmix64's and murmur3's finalisers): distinct in, distinct out.
inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
inline uint32_t mix32(uint32_t x) {
  x = (x ^ (x >> 16)) * 0x85EBCA6Bu;
  x = (x ^ (x >> 13)) * 0xC2B2AE35u;
  return x ^ (x >> 16);
}

// Raw key of index i in [0, count): random order is a seeded permutation of the key
// range; sorted order is ascending, one key in each of `count` equal strides.
class KeySpace {
 public:
  KeySpace(uint64_t seed, uint64_t count, Order order, bool wide)
      : salt_(mix64(seed + 0x9E3779B97F4A7C15ull)), order_(order), wide_(wide) {
    uint64_t range_max = wide ? ~0ull : 0xFFFFFFFFull;
    stride_ = count ? range_max / count : 1;
    if (stride_ == 0) stride_ = 1;
  }
  uint64_t raw(uint64_t i) const {
    if (order_ == Order::sorted) return i * stride_ + mix64(i ^ salt_) % stride_;
    return wide_ ? mix64(i ^ salt_) : mix32(uint32_t(i) ^ uint32_t(salt_));
  }

 private:
  uint64_t salt_, stride_;
  Order order_;
  bool wide_;
};

// Key types: --key u32 | u64 | string. String keys are 22 characters ("k-" and 20
// zero-padded digits, so text order is numeric order): past libstdc++'s 15-character
// small-string buffer, every key is a heap block of its own, as in real string maps.
template <typename K>
struct KeyOf;
template <>
struct KeyOf<uint32_t> {
  static uint32_t make(uint64_t raw) { return uint32_t(raw); }
  static constexpr bool wide = false;
};
template <>
struct KeyOf<uint64_t> {
  static uint64_t make(uint64_t raw) { return raw; }
  static constexpr bool wide = true;
};
template <>
struct KeyOf<std::string> {
  static std::string make(uint64_t raw) {
    char text[24];
    std::snprintf(text, sizeof text, "k-%020llu", static_cast<unsigned long long>(raw));
    return std::string(text);
  }
  static constexpr bool wide = true;
};

// The value stored with a key: derived from the raw key, so a lookup can check it.
template <typename V>
V value_of(uint64_t raw) {
  return V(mix64(raw ^ 0xA5A5A5A5DEADBEEFull));
}

}  // namespace allocstamp::maps
