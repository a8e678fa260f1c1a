// python_random.h — Python's `random` module, number for number: MT19937
// seeded by init_by_array as `random.seed(n)` seeds it, random(), gauss(),
// getrandbits() and randrange(). STAMP generated some of its input files with
// Python (kmeans' points, labyrinth's mazes); drawing the same numbers lets an
// app make the identical input in memory. Allocates nothing.
#pragma once
#include <cmath>
#include <cstdint>

namespace allocstamp {

class PythonRandom {
 public:
  // random.seed(seed) for 0 <= seed < 2^32 (a one-word key).
  explicit PythonRandom(uint32_t seed) {
    init(19650218u);
    const uint32_t key[1] = {seed};
    int i = 1, j = 0;
    for (int k = kN; k > 0; --k) {
      state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525u)) + key[j] + uint32_t(j);
      ++i, j = 0;  // a one-word key: j wraps at once
      if (i >= kN) state_[0] = state_[kN - 1], i = 1;
    }
    for (int k = kN - 1; k > 0; --k) {
      state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941u)) - uint32_t(i);
      if (++i >= kN) state_[0] = state_[kN - 1], i = 1;
    }
    state_[0] = 0x80000000u;
  }

  uint32_t next32() {
    if (index_ >= kN) twist();
    uint32_t y = state_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }

  // random.random(): 53 bits in [0, 1).
  double random() {
    uint32_t a = next32() >> 5, b = next32() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  // random.gauss(mu, sigma): pairs of values from one Box-Muller draw.
  double gauss(double mu, double sigma) {
    double z;
    if (has_next_gauss_) {
      z = next_gauss_;
      has_next_gauss_ = false;
    } else {
      double angle = random() * 2.0 * M_PI;
      double radius = std::sqrt(-2.0 * std::log(1.0 - random()));
      z = std::cos(angle) * radius;
      next_gauss_ = std::sin(angle) * radius;
      has_next_gauss_ = true;
    }
    return mu + z * sigma;
  }

  // random.getrandbits(k), 1 <= k <= 32.
  uint32_t getrandbits(int k) { return next32() >> (32 - k); }

  // random.randrange(n) (Python 3's _randbelow: rejection on bit_length(n) bits).
  uint32_t randbelow(uint32_t n) {
    int k = 0;
    while ((uint64_t(1) << k) <= n) ++k;
    uint32_t r = getrandbits(k);
    while (r >= n) r = getrandbits(k);
    return r;
  }

 private:
  static constexpr int kN = 624;
  void init(uint32_t s) {
    state_[0] = s;
    for (int i = 1; i < kN; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + uint32_t(i);
    index_ = kN;
  }
  void twist() {
    for (int i = 0; i < kN; ++i) {
      uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kN] & 0x7fffffffu);
      state_[i] = state_[(i + 397) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }
  uint32_t state_[kN];
  int index_ = kN;
  bool has_next_gauss_ = false;
  double next_gauss_ = 0;
};

}  // namespace allocstamp
