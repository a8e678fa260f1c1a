// kmeans_tm.cpp — STAMP's kmeans, written from its description: each
// iteration, threads take chunks of points, find each point's nearest centre
// and add the point into that centre's running sum inside a transaction (short
// transactions, small read/write sets, no allocation); the main thread then
// recomputes the centres. Verified: each final centre is the mean of its
// members, and the memberships agree with the final centres but for at most
// the points still moving when the loop stopped (plus the threshold).
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "kmeans.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {

struct Sums {
  std::vector<double> sum;  // clusters x dims
  std::vector<long> count;
};

__attribute__((noinline)) void tx_add_point(Sums& s, const double* point, int dims, int cluster) {
  TM_BEGIN
  double* row = s.sum.data() + long(cluster) * dims;
  for (int d = 0; d < dims; ++d) row[d] += point[d];
  s.count[size_t(cluster)] += 1;
  TM_END
}

__attribute__((noinline)) void tx_add_moved(long& moved, long n) {
  TM_BEGIN
  moved += n;
  TM_END
}

inline int nearest(const double* point, const std::vector<double>& centres, int clusters, int dims) {
  int best = 0;
  double best_distance = 0;
  for (int c = 0; c < clusters; ++c) {
    double distance = 0;
    for (int d = 0; d < dims; ++d) {
      double diff = point[d] - centres[size_t(c) * size_t(dims) + size_t(d)];
      distance += diff * diff;
    }
    if (c == 0 || distance < best_distance) {
      best = c;
      best_distance = distance;
    }
  }
  return best;
}

KmeansResult run(const KmeansConfig& c) {
  // The input: points around `blobs` random centres, as STAMP's generated files.
  Random rng(c.seed);
  auto uniform = [&] { return double(rng.below(1u << 30)) / double(1u << 30); };
  std::vector<double> blob_centres(size_t(c.blobs) * size_t(c.dims));
  for (double& x : blob_centres) x = uniform() * 100.0;
  std::vector<double> points(size_t(c.points) * size_t(c.dims));
  for (long p = 0; p < c.points; ++p) {
    long blob = long(rng.below(uint64_t(c.blobs)));
    for (int d = 0; d < c.dims; ++d)
      points[size_t(p) * size_t(c.dims) + size_t(d)] =
          blob_centres[size_t(blob) * size_t(c.dims) + size_t(d)] + (uniform() + uniform() + uniform() - 1.5) * 4.0;
  }
  // Initial centres: the first `clusters` points, as STAMP does.
  std::vector<double> centres(points.begin(), points.begin() + long(c.clusters) * c.dims);
  std::vector<int> membership(size_t(c.points), -1);

  KmeansResult r;
  memprof::region parallel(MEMPROF_PAR);
  memprof::phase_begin();
  auto start = std::chrono::steady_clock::now();
  const long chunk = 64;
  double last_moved_share = 1.0;
  for (r.iterations = 1; r.iterations <= c.max_iterations; ++r.iterations) {
    Sums sums{std::vector<double>(centres.size(), 0.0), std::vector<long>(size_t(c.clusters), 0)};
    long moved = 0;
    std::atomic<long> next{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < c.threads; ++t)
      workers.emplace_back([&] {
        for (;;) {
          long first = next.fetch_add(chunk);
          if (first >= c.points) break;
          long last = first + chunk < c.points ? first + chunk : c.points;
          long my_moved = 0;
          for (long p = first; p < last; ++p) {
            const double* point = points.data() + p * c.dims;
            int cluster = nearest(point, centres, c.clusters, c.dims);
            if (membership[size_t(p)] != cluster) ++my_moved;
            membership[size_t(p)] = cluster;
            tx_add_point(sums, point, c.dims, cluster);
          }
          tx_add_moved(moved, my_moved);
        }
        ::allocstamp::tm::publish_thread_counts();
      });
    for (auto& w : workers) w.join();
    for (int k = 0; k < c.clusters; ++k)
      if (sums.count[size_t(k)] > 0)
        for (int d = 0; d < c.dims; ++d)
          centres[size_t(k) * size_t(c.dims) + size_t(d)] =
              sums.sum[size_t(k) * size_t(c.dims) + size_t(d)] / double(sums.count[size_t(k)]);
    last_moved_share = double(moved) / double(c.points);
    if (last_moved_share < c.threshold) break;
  }
  if (r.iterations > c.max_iterations) r.iterations = c.max_iterations;
  r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  memprof::phase_end();

  // Verification.
  long disagree = 0;
  std::vector<double> mean(centres.size(), 0.0);
  std::vector<long> members(size_t(c.clusters), 0);
  for (long p = 0; p < c.points; ++p) {
    const double* point = points.data() + p * c.dims;
    if (nearest(point, centres, c.clusters, c.dims) != membership[size_t(p)]) ++disagree;
    int k = membership[size_t(p)];
    ++members[size_t(k)];
    for (int d = 0; d < c.dims; ++d) mean[size_t(k) * size_t(c.dims) + size_t(d)] += point[d];
  }
  bool centres_are_means = true;
  for (int k = 0; k < c.clusters; ++k)
    for (int d = 0; d < c.dims && members[size_t(k)] > 0; ++d) {
      double expected = mean[size_t(k) * size_t(c.dims) + size_t(d)] / double(members[size_t(k)]);
      double actual = centres[size_t(k) * size_t(c.dims) + size_t(d)];
      if (std::fabs(expected - actual) > 1e-6 * (1.0 + std::fabs(expected))) centres_are_means = false;
    }
  r.moved_share = double(disagree) / double(c.points);
  // Against the final centres, no more points may disagree than were still
  // moving when the loop stopped, plus the threshold.
  r.consistent = centres_are_means && (r.moved_share <= last_moved_share + c.threshold || r.iterations == c.max_iterations);
  return r;
}
}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
