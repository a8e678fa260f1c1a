// labyrinth_tm.cpp — STAMP's labyrinth, written from its description:
// threads take source/destination pairs from a shared queue; each copies the
// grid into its own buffer (thread-private, allocated once), expands a
// breadth-first wavefront from the source (Lee's algorithm), traces a shortest
// path back from the destination, then in one transaction checks that every
// cell of the path is still free in the shared grid and claims them all
// (long transactions, large read/write sets). If another thread took a cell
// first, the route is planned again. Verified: every routed path is connected,
// runs from its source to its destination, and no two paths share a cell.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "labyrinth.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {

constexpr long kEmpty = 0;

struct Pair {
  long source, target;
};

struct Grid {
  int x, y, z;
  std::vector<long> cells;  // 0 empty, else the id of the path through it
  long index(int i, int j, int k) const { return (long(k) * y + j) * x + i; }
};

__attribute__((noinline)) long tx_next_pair(long& next) {
  long taken;
  TM_BEGIN
  taken = next;
  next = taken + 1;
  TM_END
  return taken;
}

// Claims `path` for `id` if every cell is still free; false leaves the grid untouched.
__attribute__((noinline)) bool tx_claim_path(long* cells, const long* path, long length, long id) {
  bool claimed = true;
  TM_BEGIN
  claimed = true;
  for (long i = 0; i < length && claimed; ++i)
    if (cells[path[i]] != kEmpty) claimed = false;
  if (claimed)
    for (long i = 0; i < length; ++i) cells[path[i]] = id;
  TM_END
  return claimed;
}

// Lee's algorithm on a private copy: distances from source, then a shortest
// path traced back from target. Empty when no route exists.
std::vector<long> route(const Grid& g, std::vector<long>& distance, std::vector<long>& frontier, long source, long target) {
  std::vector<long> path;
  for (size_t i = 0; i < distance.size(); ++i) distance[i] = g.cells[i] == kEmpty ? -1 : -2;  // -2: blocked
  distance[size_t(source)] = 0;
  distance[size_t(target)] = -1;  // endpoints are free for their own pair
  frontier.clear();
  frontier.push_back(source);
  const long step[6] = {1, -1, g.x, -g.x, long(g.x) * g.y, -long(g.x) * g.y};
  bool reached = false;
  for (size_t head = 0; head < frontier.size() && !reached; ++head) {
    long cell = frontier[head];
    int i = int(cell % g.x), j = int((cell / g.x) % g.y), k = int(cell / (long(g.x) * g.y));
    for (int s = 0; s < 6; ++s) {
      if ((s == 0 && i + 1 >= g.x) || (s == 1 && i == 0) || (s == 2 && j + 1 >= g.y) || (s == 3 && j == 0) ||
          (s == 4 && k + 1 >= g.z) || (s == 5 && k == 0))
        continue;
      long next = cell + step[s];
      if (distance[size_t(next)] != -1) continue;
      distance[size_t(next)] = distance[size_t(cell)] + 1;
      if (next == target) {
        reached = true;
        break;
      }
      frontier.push_back(next);
    }
  }
  if (!reached) return path;
  for (long cell = target;;) {
    path.push_back(cell);
    if (cell == source) break;
    int i = int(cell % g.x), j = int((cell / g.x) % g.y), k = int(cell / (long(g.x) * g.y));
    for (int s = 0; s < 6; ++s) {
      if ((s == 0 && i + 1 >= g.x) || (s == 1 && i == 0) || (s == 2 && j + 1 >= g.y) || (s == 3 && j == 0) ||
          (s == 4 && k + 1 >= g.z) || (s == 5 && k == 0))
        continue;
      long prev = cell + step[s];
      if (distance[size_t(prev)] == distance[size_t(cell)] - 1 && distance[size_t(prev)] >= 0) {
        cell = prev;
        break;
      }
    }
  }
  return path;
}

LabyrinthResult run(const LabyrinthConfig& c) {
  Grid grid{c.x, c.y, c.z, std::vector<long>(size_t(c.x) * size_t(c.y) * size_t(c.z), kEmpty)};
  const long cells = long(grid.cells.size());
  // Endpoints: distinct random cells, as STAMP's generated inputs.
  Random rng(c.seed);
  std::vector<char> used(size_t(cells), 0);
  std::vector<Pair> pairs;
  for (int p = 0; p < c.paths && long(pairs.size()) * 2 + 2 <= cells; ++p) {
    long a, b;
    do a = long(rng.below(uint64_t(cells))); while (used[size_t(a)]);
    used[size_t(a)] = 1;
    do b = long(rng.below(uint64_t(cells))); while (used[size_t(b)]);
    used[size_t(b)] = 1;
    pairs.push_back({a, b});
  }
  // An endpoint is not free for other paths.
  std::vector<long> reserved(size_t(cells), 0);
  for (size_t p = 0; p < pairs.size(); ++p) reserved[size_t(pairs[p].source)] = reserved[size_t(pairs[p].target)] = long(p) + 1;

  long next_pair = 0;
  std::atomic<long> routed{0}, unroutable{0}, retries{0};
  std::vector<std::vector<long>> paths(pairs.size());
  LabyrinthResult r;
  {
    memprof::region parallel(MEMPROF_PAR);
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < c.threads; ++t)
      workers.emplace_back([&] {
        Grid mine{grid.x, grid.y, grid.z, std::vector<long>(size_t(cells))};  // the thread-private copy
        std::vector<long> distance(static_cast<size_t>(cells));
        std::vector<long> frontier;
        frontier.reserve(size_t(cells));
        for (;;) {
          long p = tx_next_pair(next_pair);
          if (p >= long(pairs.size())) break;
          long id = p + 1;
          for (int attempt = 0;; ++attempt) {
            for (long i = 0; i < cells; ++i) {  // a racy snapshot is fine: the claim re-checks
              long owner = __atomic_load_n(&grid.cells[size_t(i)], __ATOMIC_RELAXED);
              mine.cells[size_t(i)] = owner != kEmpty ? owner : (reserved[size_t(i)] && reserved[size_t(i)] != id ? -1 : kEmpty);
            }
            std::vector<long> path = route(mine, distance, frontier, pairs[size_t(p)].source, pairs[size_t(p)].target);
            if (path.empty()) {
              ++unroutable;
              break;
            }
            if (tx_claim_path(grid.cells.data(), path.data(), long(path.size()), id)) {
              paths[size_t(p)] = std::move(path);
              ++routed;
              break;
            }
            ++retries;
          }
        }
        ::allocstamp::tm::publish_thread_counts();
      });
    for (auto& w : workers) w.join();
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    memprof::phase_end();
  }
  r.routed = routed;
  r.unroutable = unroutable;
  r.retries = retries;

  // Verification: connected, right endpoints, marked with its own id, disjoint.
  bool ok = r.routed + r.unroutable == long(pairs.size());
  std::vector<long> owner(size_t(cells), 0);
  for (size_t p = 0; p < paths.size() && ok; ++p) {
    const auto& path = paths[p];
    if (path.empty()) continue;
    long id = long(p) + 1;
    ok = path.front() == pairs[p].target && path.back() == pairs[p].source;
    for (size_t i = 0; i < path.size() && ok; ++i) {
      long cell = path[i];
      ok = owner[size_t(cell)] == 0 && grid.cells[size_t(cell)] == id;
      owner[size_t(cell)] = id;
      if (i > 0) {
        long d = cell > path[i - 1] ? cell - path[i - 1] : path[i - 1] - cell;
        ok = ok && (d == 1 || d == grid.x || d == long(grid.x) * grid.y);
      }
    }
  }
  for (long i = 0; i < cells && ok; ++i) ok = grid.cells[size_t(i)] == owner[size_t(i)];
  r.consistent = ok;
  return r;
}
}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
