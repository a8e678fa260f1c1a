// lanes.h — the heap lanes: a thread's unpublished heap change as one 16-byte
// vector of 32-bit lanes (requested bytes, usable bytes, blocks), so that one
// add, one max and one compare serve all three on every malloc and free (SSE2
// on x86-64, plain code elsewhere). Pure arithmetic: no state of its own.
#pragma once
#include <stdint.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#endif

namespace memprof {

// Lanes stay far from overflow: a thread publishes once a lane passes the
// slack (at most kMaxLaneSlack), and a single change larger than
// kMaxLaneChange is published on its own (heap.h).
constexpr int64_t kMaxLaneSlack = int64_t(1) << 30;
constexpr int64_t kMaxLaneChange = (int64_t(1) << 30) - 1;

struct alignas(16) HeapLanes {
  int32_t req;     // requested bytes
  int32_t use;     // usable bytes
  int32_t blocks;  // live blocks
  int32_t spare;   // always 0
};

#if defined(__x86_64__)

inline __m128i load(const HeapLanes& l) { return _mm_load_si128(reinterpret_cast<const __m128i*>(&l)); }
inline void store(HeapLanes& l, __m128i v) { _mm_store_si128(reinterpret_cast<__m128i*>(&l), v); }

inline __m128i lane_max(__m128i a, __m128i b) {
#if defined(__SSE4_1__)
  return _mm_max_epi32(a, b);
#else
  __m128i a_greater = _mm_cmpgt_epi32(a, b);
  return _mm_or_si128(_mm_and_si128(a_greater, a), _mm_andnot_si128(a_greater, b));
#endif
}

// local += {req, use, blocks}; local_max = max(local_max, local). True when a
// lane is now above its `limit`.
inline bool lanes_add(HeapLanes& local, HeapLanes& local_max, int32_t req, int32_t use, int32_t blocks,
                      const HeapLanes& limit) {
  __m128i sum = _mm_add_epi32(load(local), _mm_set_epi32(0, blocks, use, req));
  store(local, sum);
  store(local_max, lane_max(load(local_max), sum));
  return _mm_movemask_epi8(_mm_cmpgt_epi32(sum, load(limit))) != 0;
}

// local -= {req, use, blocks} (the maxima cannot move). True when a lane is now
// below its `limit`.
inline bool lanes_sub(HeapLanes& local, int32_t req, int32_t use, int32_t blocks, const HeapLanes& limit) {
  __m128i rest = _mm_sub_epi32(load(local), _mm_set_epi32(0, blocks, use, req));
  store(local, rest);
  return _mm_movemask_epi8(_mm_cmpgt_epi32(load(limit), rest)) != 0;
}

// Whether a lane of `local` is below its `limit`.
inline bool lanes_below(const HeapLanes& local, const HeapLanes& limit) {
  return _mm_movemask_epi8(_mm_cmpgt_epi32(load(limit), load(local))) != 0;
}

#else

inline bool lanes_below(const HeapLanes& local, const HeapLanes& limit);

inline bool lanes_add(HeapLanes& local, HeapLanes& local_max, int32_t req, int32_t use, int32_t blocks,
                      const HeapLanes& limit) {
  local.req += req;
  local.use += use;
  local.blocks += blocks;
  if (local.req > local_max.req) local_max.req = local.req;
  if (local.use > local_max.use) local_max.use = local.use;
  if (local.blocks > local_max.blocks) local_max.blocks = local.blocks;
  return (local.req > limit.req) | (local.use > limit.use) | (local.blocks > limit.blocks);
}

inline bool lanes_sub(HeapLanes& local, int32_t req, int32_t use, int32_t blocks, const HeapLanes& limit) {
  local.req -= req;
  local.use -= use;
  local.blocks -= blocks;
  return lanes_below(local, limit);
}

inline bool lanes_below(const HeapLanes& local, const HeapLanes& limit) {
  return (limit.req > local.req) | (limit.use > local.use) | (limit.blocks > local.blocks);
}

#endif

}  // namespace memprof
