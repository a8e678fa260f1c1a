// ssca2_tm.cpp — SSCA#2 kernel 1 as STAMP runs it, written from its
// description: threads take the edge list in chunks and, in short
// transactions, count out- and in-degrees in shared arrays; after a prefix
// sum, each edge claims the next slot of its source vertex in a transaction
// and is written into the adjacency array. Nothing is allocated inside
// transactions. Verified: degree sums equal the edge count, the offsets are
// the prefix sums, and every vertex's adjacency is exactly its edges.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "random.h"
#include "runtime.h"
#include "ssca2.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {

struct Edge {
  long from, to, weight;
};

__attribute__((noinline)) void tx_count(std::vector<long>& out_degree, std::vector<long>& in_degree, const Edge& e) {
  TM_BEGIN
  out_degree[size_t(e.from)] += 1;
  in_degree[size_t(e.to)] += 1;
  TM_END
}

__attribute__((noinline)) long tx_claim(std::vector<long>& filled, long vertex) {
  long slot;
  TM_BEGIN
  slot = filled[size_t(vertex)];
  filled[size_t(vertex)] = slot + 1;
  TM_END
  return slot;
}

// Runs `body(first, last)` over [0, n) in chunks on c.threads threads.
template <typename Body>
void parallel_chunks(int threads, long n, Body body) {
  std::atomic<long> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (;;) {
        long first = next.fetch_add(256);
        if (first >= n) break;
        body(first, first + 256 < n ? first + 256 : n);
      }
      ::allocstamp::tm::publish_thread_counts();
    });
  for (auto& w : workers) w.join();
}

Ssca2Result run(const Ssca2Config& c) {
  // The input, after SSCA#2's generator: vertices grouped into cliques; edges
  // within a clique between vertices at most max_path apart, a few between
  // cliques, each repeated up to max_parallel times, with random weights.
  const long vertices = 1L << c.scale;
  Random rng(c.seed);
  std::vector<Edge> edges;
  edges.reserve(size_t(vertices) * 8);
  long clique_start = 0;
  while (clique_start < vertices) {
    long size = long(rng.below(uint64_t(c.scale) * 2)) + 2;
    long end = clique_start + size < vertices ? clique_start + size : vertices;
    for (long u = clique_start; u < end; ++u) {
      for (long v = u + 1; v < end && v <= u + c.max_path; ++v) {
        long copies = long(rng.below(uint64_t(c.max_parallel))) + 1;
        for (long k = 0; k < copies; ++k) edges.push_back({u, v, long(rng.below(1u << 20))});
      }
      if (rng.below(4) == 0) edges.push_back({u, long(rng.below(uint64_t(vertices))), long(rng.below(1u << 20))});
    }
    clique_start = end;
  }
  const long m = long(edges.size());

  std::vector<long> out_degree(size_t(vertices), 0), in_degree(size_t(vertices), 0);
  std::vector<long> offset(size_t(vertices) + 1, 0), filled(size_t(vertices), 0);
  std::vector<long> adjacency(size_t(m), -1), weights(size_t(m), 0);
  Ssca2Result r;
  r.vertices = vertices;
  r.edges = m;
  {
    memprof::region parallel(MEMPROF_PAR);
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    parallel_chunks(c.threads, m, [&](long first, long last) {
      for (long i = first; i < last; ++i) tx_count(out_degree, in_degree, edges[size_t(i)]);
    });
    for (long v = 0; v < vertices; ++v) offset[size_t(v) + 1] = offset[size_t(v)] + out_degree[size_t(v)];
    parallel_chunks(c.threads, m, [&](long first, long last) {
      for (long i = first; i < last; ++i) {
        const Edge& e = edges[size_t(i)];
        long at = offset[size_t(e.from)] + tx_claim(filled, e.from);
        adjacency[size_t(at)] = e.to;
        weights[size_t(at)] = e.weight;
      }
    });
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    memprof::phase_end();
  }

  // Verification: the graph's invariants.
  long out_sum = 0, in_sum = 0;
  bool ok = true;
  for (long v = 0; v < vertices; ++v) {
    out_sum += out_degree[size_t(v)];
    in_sum += in_degree[size_t(v)];
    ok = ok && filled[size_t(v)] == out_degree[size_t(v)];
  }
  ok = ok && out_sum == m && in_sum == m && offset[size_t(vertices)] == m;
  // Every vertex's adjacency (with weights) is exactly its edges, in any order.
  std::vector<std::pair<long, long>> expected, actual;
  std::vector<long> first_edge(size_t(vertices) + 1, 0);
  std::vector<Edge> by_source = edges;
  std::stable_sort(by_source.begin(), by_source.end(), [](const Edge& a, const Edge& b) { return a.from < b.from; });
  for (long v = 0, i = 0; v < vertices && ok; ++v) {
    expected.clear();
    actual.clear();
    for (; i < m && by_source[size_t(i)].from == v; ++i) expected.emplace_back(by_source[size_t(i)].to, by_source[size_t(i)].weight);
    for (long at = offset[size_t(v)]; at < offset[size_t(v) + 1]; ++at) actual.emplace_back(adjacency[size_t(at)], weights[size_t(at)]);
    std::sort(expected.begin(), expected.end());
    std::sort(actual.begin(), actual.end());
    ok = expected == actual;
  }
  r.consistent = ok;
  return r;
}
}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
