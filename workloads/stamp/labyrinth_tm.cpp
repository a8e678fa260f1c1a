// labyrinth_tm.cpp — STAMP's labyrinth (Lee routing in a 3-D grid),
// allocating as the original does. The input is STAMP's maze file
// (inputs/generate.py's output, see write_labyrinth_input), written to a
// temporary file and read back as STAMP reads it: fopen (never closed), fgets
// and sscanf, a 24-byte coordinate per endpoint and a 16-byte pair per path
// (neither ever freed), the pairs sorted longest first in a list, then queued.
// Each thread keeps a private grid, an expansion queue and a vector of its
// paths; it takes a pair (a transaction), then in one transaction copies the
// shared grid, expands Lee's wavefront from the source in its copy (the queue
// grows there), traces a path back from the destination into a new vector of
// cell pointers, and claims the path's cells in the shared grid — restarting
// (stm) if one was taken meanwhile. Each thread's path vector joins a global
// list in a transaction. Verified as STAMP does (a second grid: every path is
// connected, runs between endpoints, and no two paths share a cell), and also
// without allocating: each path joins its own pair's endpoints.
//
// In the stm build the copy and the expansion are transaction_pure code on
// the thread's own grid and queue (the shared grid read uninstrumented, as
// STAMP's TL2 build releases it early: a stale copy only misroutes, and the
// claim catches it). The expansion stops where its queue must grow and the
// transaction's own code grows it, so those blocks, like the traced path's
// vector, come from libitm and are freed if the attempt aborts. A claim that
// finds a cell taken cancels the attempt (__transaction_cancel), which is then
// run again and counted once when it commits, as STAMP's restart is.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include <memprof/memprof.h>

#include "labyrinth.h"
#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
#include "labyrinth_lib.h"

namespace {

// A transaction that finds a path's cell taken restarts. Only the stm build
// can see that (its grid copy is read outside the transaction's read set, as
// STAMP's early release does); there it cancels the attempt, which is then
// run again. In the lock and seq builds the whole route runs alone.
#if defined(ALLOCSTAMP_TM_STM)
#define LABYRINTH_RESTART __transaction_cancel
#else
#define LABYRINTH_RESTART std::abort()
#endif

struct Maze {
  Grid* grid;
  PtrQueue* work;       // the pairs to route
  PtrVector* walls;     // coordinates
  PtrVector* sources;   // coordinates
  PtrVector* targets;   // coordinates
};
static_assert(sizeof(Maze) == 40, "STAMP's maze_t");

struct Router {
  long x_cost, y_cost, z_cost, bend_cost;
};
static_assert(sizeof(Router) == 32, "STAMP's router_t");

Maze* maze_new() {
  Maze* m = static_cast<Maze*>(malloc(sizeof(Maze)));
  m->grid = nullptr;
  m->work = queue_new(1024);
  m->walls = vector_new(1);
  m->sources = vector_new(1);
  m->targets = vector_new(1);
  return m;
}

void maze_delete(Maze* m) {
  if (m->grid) grid_delete(m->grid);
  queue_delete(m->work);
  vector_delete(m->walls);
  vector_delete(m->sources);
  vector_delete(m->targets);
  free(m);
}

[[noreturn]] void input_error(const char* what, long line) {
  std::fprintf(stderr, "stamp labyrinth: the generated maze's %s (line %ld) does not parse\n", what, line);
  std::exit(1);
}

void add_to_grid(Grid* g, PtrVector* coordinates) {
  for (long i = 0; i < coordinates->size; ++i) {
    const Coordinate* c = static_cast<const Coordinate*>(coordinates->elements[i]);
    if (!grid_valid(g, c->x, c->y, c->z)) input_error("coordinate", i);
  }
  grid_fill(g, coordinates);
}

// maze.c's reading: the file stays open (STAMP never closes it). Coordinates
// and pairs are remembered in `kept` and `pairs` (STAMP never frees them).
long maze_read(Maze* m, const char* path, FILE*& file, NeverFreed& kept, NeverFreed& pairs) {
  file = std::fopen(path, "rt");
  if (!file) input_error("file", 0);
  long line_number = 0, width = -1, height = -1, depth = -1;
  char line[256];
  PtrList* work = list_new();
  while (std::fgets(line, sizeof line, file)) {
    char code;
    long x1, y1, z1, x2, y2, z2;
    int tokens = std::sscanf(line, " %c %li %li %li %li %li %li", &code, &x1, &y1, &z1, &x2, &y2, &z2);
    ++line_number;
    if (tokens < 1) continue;
    if (code == '#') continue;
    if (code == 'd') {
      if (tokens != 4 || x1 < 1 || y1 < 1 || z1 < 1) input_error("dimensions", line_number);
      width = x1, height = y1, depth = z1;
    } else if (code == 'p') {
      if (tokens != 7) input_error("path", line_number);
      Coordinate* source = coordinate_new(x1, y1, z1);
      Coordinate* target = coordinate_new(x2, y2, z2);
      kept.add(source), kept.add(target);
      if (same_place(source, target)) input_error("path", line_number);
      CoordinatePair* pair = static_cast<CoordinatePair*>(malloc(sizeof(CoordinatePair)));
      pair->source = source, pair->target = target;
      pairs.add(pair);
      list_insert<LongestFirst>(work, pair);
      vector_push(m->sources, source);
      vector_push(m->targets, target);
    } else if (code == 'w') {
      if (tokens != 4) input_error("wall", line_number);
      Coordinate* wall = coordinate_new(x1, y1, z1);
      kept.add(wall);
      vector_push(m->walls, wall);
    } else {
      input_error("line", line_number);
    }
  }
  if (width < 1 || height < 1 || depth < 1) input_error("dimensions", line_number);
  Grid* g = grid_new(width, height, depth);
  m->grid = g;
  add_to_grid(g, m->walls);
  add_to_grid(g, m->sources);
  add_to_grid(g, m->targets);
  // STAMP prints the maze here: stdout's buffer is allocated now (never freed).
  std::printf("stamp labyrinth: maze %ld x %ld x %ld, %ld paths to route\n", width, height, depth, work->size);
  std::fflush(stdout);
  for (PtrList::Node* n = work->head.next; n; n = n->next) queue_push(m->work, n->data);
  list_delete(work);
  return m->sources->size;
}

// ---- routing (router.c) ----

enum Momentum { kNone, kPosX, kPosY, kPosZ, kNegX, kNegY, kNegZ };

struct Point {
  long x, y, z, value;
  Momentum momentum;
};

struct Move {
  long x, y, z;
  Momentum momentum;
};
// The traceback's order of neighbours.
constexpr Move kMoves[6] = {{1, 0, 0, kPosX},  {0, 1, 0, kPosY},  {0, 0, 1, kPosZ},
                            {-1, 0, 0, kNegX}, {0, -1, 0, kNegY}, {0, 0, -1, kNegZ}};

// The expansion, resumable: it stops when a push finds the queue full (the
// growth allocates, so the transaction's own code does it: in the stm build
// the new array comes from libitm) and goes on from that push.
struct Wave {
  long* target;
  long* cell;       // the cell whose neighbours are being visited
  long x, y, z, value;
  int next;         // its next neighbour (6: take the next cell from the queue)
  long* pending;    // a cell to queue once there is room
};

enum WaveState { kNotFound, kFound, kNeedsRoom };

// The copy of the shared grid, outside the transaction's read set (STAMP
// releases it early): a path found on a stale copy is caught by the claim.
TM_PURE void grid_copy(Grid* to, const Grid* from) {
  std::memcpy(to->points, from->points, size_t(from->width * from->height * from->depth) * sizeof(long));
}

// Seeds the wave from the source (its cell queued first, at 0) with the
// destination cleared. Thread-private data only.
TM_PURE void wave_start(Wave& w, Grid* mine, PtrQueue* queue, const Coordinate* source, const Coordinate* target) {
  queue_clear(queue);
  long* start = grid_ref(mine, source->x, source->y, source->z);
  w.pending = start;
  *start = 0;
  w.target = grid_ref(mine, target->x, target->y, target->z);
  *w.target = kEmpty;
  w.next = 6;
}

// Breadth-first from the queue: each cell's six neighbours (x+1, x-1, y+1,
// y-1, z+1, z-1) take its value plus the move's cost if they are empty or
// that is cheaper, and are queued. Thread-private data only.
TM_PURE WaveState wave_run(Wave& w, Grid* mine, PtrQueue* queue, const Router* router) {
  if (w.pending) {
    if (!queue_has_room(queue)) return kNeedsRoom;
    queue_put(queue, w.pending);
    w.pending = nullptr;
  }
  for (;;) {
    if (w.next == 6) {
      if (queue_empty(queue)) return kNotFound;
      w.cell = static_cast<long*>(queue_pop(queue));
      if (w.cell == w.target) return kFound;
      Coordinate at = grid_place(mine, w.cell);
      w.x = at.x, w.y = at.y, w.z = at.z;
      w.value = *w.cell;
      w.next = 0;
    }
    while (w.next < 6) {
      int k = w.next++;
      long x = w.x, y = w.y, z = w.z, value = w.value;
      switch (k) {
        case 0: ++x, value += router->x_cost; break;
        case 1: --x, value += router->x_cost; break;
        case 2: ++y, value += router->y_cost; break;
        case 3: --y, value += router->y_cost; break;
        case 4: ++z, value += router->z_cost; break;
        default: --z, value += router->z_cost; break;
      }
      if (!grid_valid(mine, x, y, z)) continue;
      long* neighbour = grid_ref(mine, x, y, z);
      long old = *neighbour;
      if (old == kEmpty || (old != kFull && value < old)) {
        *neighbour = value;
        if (!queue_has_room(queue)) {
          w.pending = neighbour;
          return kNeedsRoom;
        }
        queue_put(queue, neighbour);
      }
    }
  }
}

TM_SAFE __attribute__((noinline)) bool expand(Grid* mine, PtrQueue* queue, const Router* router, const Coordinate* source,
                    const Coordinate* target) {
  Wave w;
  wave_start(w, mine, queue, source, target);
  WaveState state;
  while ((state = wave_run(w, mine, queue, router)) == kNeedsRoom) queue_grow(queue);
  return state == kFound;
}

TM_SAFE void trace_to_neighbour(Grid* mine, const Point& current, const Move& move, bool use_momentum, long bend_cost,
                                Point& next) {
  long x = current.x + move.x, y = current.y + move.y, z = current.z + move.z;
  if (!grid_valid(mine, x, y, z)) return;
  long value = *grid_ref(mine, x, y, z);
  if (value == kEmpty || value == kFull) return;
  long bend = use_momentum && current.momentum != move.momentum ? bend_cost : 0;
  if (value + bend <= next.value) {  // '<=': a neighbour wins a tie with the current cell
    next.x = x, next.y = y, next.z = z;
    next.value = value;
    next.momentum = move.momentum;
  }
}

// From the destination down the expansion's values to the source: a vector
// of pointers to the path's cells in the shared grid (destination first), or
// null (the vector freed) if the trace is stuck.
TM_SAFE __attribute__((noinline)) PtrVector* trace_back(Grid* grid, Grid* mine, const Coordinate* target, long bend_cost) {
  PtrVector* path = vector_new(1);
  Point next{target->x, target->y, target->z, *grid_ref(mine, target->x, target->y, target->z), kNone};
  for (;;) {
    vector_push(path, grid_ref(grid, next.x, next.y, next.z));
    *grid_ref(mine, next.x, next.y, next.z) = kFull;
    if (next.value == 0) return path;
    Point current = next;
    for (const Move& move : kMoves) trace_to_neighbour(mine, current, move, true, bend_cost, next);
    if (current.x == next.x && current.y == next.y && current.z == next.z) {
      // The bend costs left no neighbour cheaper: ignore momentum.
      next.value = current.value;
      for (const Move& move : kMoves) trace_to_neighbour(mine, current, move, false, bend_cost, next);
      if (current.x == next.x && current.y == next.y && current.z == next.z) {
        vector_delete(path);
        return nullptr;
      }
    }
  }
}

// Whether every inner cell of the path is still empty in the shared grid; if
// so they are all marked full (STAMP writes as it checks; a failed check
// restarts the transaction, undoing the writes).
TM_SAFE bool claim(PtrVector* path) {
  for (long i = 1; i < path->size - 1; ++i) {
    long* cell = static_cast<long*>(path->elements[i]);
    if (*cell != kEmpty) return false;
    *cell = kFull;
  }
  return true;
}

struct Shared {
  Router* router;
  Maze* maze;
  PtrList* paths;  // every thread's path vector, by address
  std::atomic<long> unroutable{0}, restarts{0};
};

__attribute__((noinline)) CoordinatePair* tx_take_pair(PtrQueue* work) {
  CoordinatePair* pair;
  TM_BEGIN
  pair = queue_empty(work) ? nullptr : static_cast<CoordinatePair*>(queue_pop(work));
  TM_END
  return pair;
}

TM_PURE void note_cancel(bool* cancelled) { *cancelled = true; }

// One attempt at a path: *path is null if it could not be routed, or if the
// attempt was cancelled by a taken cell (then *cancelled is set and nothing
// of it remains). One transaction per function: _ITM_beginTransaction returns
// twice, so no caller's local lives across it.
__attribute__((noinline)) void tx_route(Shared& s, Grid* mine, PtrQueue* queue, const CoordinatePair* pair,
                                        PtrVector** path, bool* cancelled) {
  TM_BEGIN
  *path = nullptr;
  Grid* grid = s.maze->grid;
  grid_copy(mine, grid);
  if (expand(mine, queue, s.router, pair->source, pair->target)) {
    *path = trace_back(grid, mine, pair->target, s.router->bend_cost);
    if (*path && !claim(*path)) {
      note_cancel(cancelled);
      LABYRINTH_RESTART;
    }
  }
  }  // TM_END without its commit count: a cancelled attempt did not commit
  if (!*cancelled) ::allocstamp::tm::note_commit();
}

__attribute__((noinline)) void tx_add_paths(PtrList* paths, PtrVector* mine) {
  TM_BEGIN
  list_insert<ByAddress>(paths, mine);
  TM_END
}

// router_solve: one thread's work.
void solve(Shared& s) {
  PtrVector* routed = vector_new(1);
  Grid* grid = s.maze->grid;
  Grid* mine = grid_new(grid->width, grid->height, grid->depth);
  PtrQueue* queue = queue_new(-1);
  long unroutable = 0, restarts = 0;
  for (;;) {
    CoordinatePair* pair = tx_take_pair(s.maze->work);
    if (!pair) break;
    PtrVector* path = nullptr;
    for (;;) {
      bool cancelled = false;
      tx_route(s, mine, queue, pair, &path, &cancelled);
      if (!cancelled) break;
      ++restarts;
    }
    if (path) vector_push(routed, path);
    else ++unroutable;
  }
  tx_add_paths(s.paths, routed);
  grid_delete(mine);
  queue_delete(queue);
  s.unroutable += unroutable;
  s.restarts += restarts;
  ::allocstamp::tm::publish_thread_counts();
}

// maze_checkPaths: on a fresh grid holding the walls and, at 0, the
// endpoints, each path's first and last cells must be endpoints and its inner
// cells adjacent in turn and on no other path.
bool check_paths(Maze* m, PtrList* paths) {
  Grid* grid = m->grid;
  Grid* test = grid_new(grid->width, grid->height, grid->depth);
  grid_fill(test, m->walls);
  for (long i = 0; i < m->sources->size; ++i) {
    const Coordinate* c = static_cast<const Coordinate*>(m->sources->elements[i]);
    *grid_ref(test, c->x, c->y, c->z) = 0;
  }
  for (long i = 0; i < m->targets->size; ++i) {
    const Coordinate* c = static_cast<const Coordinate*>(m->targets->elements[i]);
    *grid_ref(test, c->x, c->y, c->z) = 0;
  }
  long id = 0;
  bool ok = true;
  for (PtrList::Node* n = paths->head.next; n && ok; n = n->next) {
    const PtrVector* routed = static_cast<const PtrVector*>(n->data);
    for (long i = 0; i < routed->size && ok; ++i) {
      ++id;
      const PtrVector* path = static_cast<const PtrVector*>(routed->elements[i]);
      Coordinate at = grid_place(grid, static_cast<long*>(path->elements[0]));
      if (*grid_ref(test, at.x, at.y, at.z) != 0) ok = false;
      Coordinate previous = at;
      long j = 1;
      for (; j < path->size - 1 && ok; ++j) {
        Coordinate here = grid_place(grid, static_cast<long*>(path->elements[j]));
        long* cell = grid_ref(test, here.x, here.y, here.z);
        if (!adjacent(here, previous) || *cell != kEmpty) ok = false;
        else *cell = id;
        previous = here;
      }
      if (!ok) break;
      at = grid_place(grid, static_cast<long*>(path->elements[j]));
      if (*grid_ref(test, at.x, at.y, at.z) != 0) ok = false;
    }
  }
  grid_delete(test);
  return ok;
}

// Ours besides (allocates nothing): each path runs from its own pair's
// destination to its source, its last inner cell is adjacent to the source
// and its first to the destination, and its cells are full in the shared grid.
bool paths_join_their_pairs(Maze* m, PtrList* paths, const NeverFreed& pairs) {
  Grid* grid = m->grid;
  for (PtrList::Node* n = paths->head.next; n; n = n->next) {
    const PtrVector* routed = static_cast<const PtrVector*>(n->data);
    for (long i = 0; i < routed->size; ++i) {
      const PtrVector* path = static_cast<const PtrVector*>(routed->elements[i]);
      if (path->size < 2) return false;
      long* first = static_cast<long*>(path->elements[0]);
      long* last = static_cast<long*>(path->elements[path->size - 1]);
      bool joined = false;
      for (size_t p = 0; p < pairs.size() && !joined; ++p) {
        const CoordinatePair* pair = static_cast<const CoordinatePair*>(pairs[p]);
        joined = first == grid_ref(grid, pair->target->x, pair->target->y, pair->target->z) &&
                 last == grid_ref(grid, pair->source->x, pair->source->y, pair->source->z);
      }
      if (!joined) return false;
      for (long j = 0; j < path->size; ++j) {
        long* cell = static_cast<long*>(path->elements[j]);
        if (*cell != kFull) return false;
        if (j > 0 && !adjacent(grid_place(grid, cell), grid_place(grid, static_cast<long*>(path->elements[j - 1]))))
          return false;
      }
    }
  }
  return true;
}

// Writes the maze file to a new temporary file; its path in `path`.
bool write_input(const LabyrinthConfig& c, char (&path)[512]) {
  const char* dir = std::getenv("TMPDIR");
  std::snprintf(path, sizeof path, "%s/allocstamp-labyrinth-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return false;
  bool ok = write_labyrinth_input(c, fd);
  return close(fd) == 0 && ok;
}

}  // namespace

LabyrinthResult run(const LabyrinthConfig& c) {
  LabyrinthResult r;
  memprof::phase_begin();  // STAMP's figures are its whole run
  char input[512];
  if (!write_input(c, input)) {
    std::perror("stamp labyrinth: cannot write the maze file");
    std::exit(1);
  }
  StampThreadBlocks pool = stamp_thread_startup(c.threads);
  NeverFreed kept(2 * size_t(c.paths) + 1);
  NeverFreed pairs(size_t(c.paths));
  Maze* maze = maze_new();
  FILE* file = nullptr;
  long to_route = maze_read(maze, input, file, kept, pairs);
  unlink(input);
  Router* router = static_cast<Router*>(malloc(sizeof(Router)));
  router->x_cost = 1, router->y_cost = 1, router->z_cost = 2, router->bend_cost = 1;  // STAMP's defaults
  PtrList* paths = list_new();

  Shared s;
  s.router = router;
  s.maze = maze;
  s.paths = paths;
  auto start = std::chrono::steady_clock::now();
  if (c.threads == 1) {
    solve(s);  // on the main thread, as STAMP's sequential build
  } else {
    memprof::region parallel(MEMPROF_PAR);
    std::thread* handles = reinterpret_cast<std::thread*>(pool.handles);
    static_assert(sizeof(std::thread) == sizeof(unsigned long), "a thread handle is one word, as pthread_t");
    for (int t = 1; t < c.threads; ++t) new (&handles[t]) std::thread(solve, std::ref(s));
    solve(s);
    for (int t = 1; t < c.threads; ++t) {
      handles[t].join();
      handles[t].~thread();
    }
  }
  r.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());

  for (PtrList::Node* n = paths->head.next; n; n = n->next) r.routed += static_cast<PtrVector*>(n->data)->size;
  r.unroutable = s.unroutable;
  r.restarts = s.restarts;
  r.consistent = r.routed <= to_route && r.routed + r.unroutable == to_route && check_paths(maze, paths) &&
                 paths_join_their_pairs(maze, paths, pairs);
  maze_delete(maze);
  free(router);
  stamp_thread_shutdown(pool);
  memprof::phase_end();

  // What STAMP never frees: the paths, their vectors and list, the pairs and
  // coordinates, and the open maze file.
  for (PtrList::Node* n = paths->head.next; n; n = n->next) {
    PtrVector* routed = static_cast<PtrVector*>(n->data);
    for (long i = 0; i < routed->size; ++i) vector_delete(static_cast<PtrVector*>(routed->elements[i]));
    vector_delete(routed);
  }
  list_delete(paths);
  kept.free_all();
  pairs.free_all();
  std::fclose(file);
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
