// labyrinth_tm.cpp — STAMP's labyrinth (Lee's maze routing in a 3-D grid),
// block for block. The input is STAMP's generated maze (inputs/generate.py:
// Python 2's random seeded with 0, each endpoint drawn as randint(0, n - 1) =
// int(random() * n)), written again line for line to a temporary file and read
// back as STAMP's maze.c reads it: fopen (never closed), a 24-byte coordinate
// per endpoint, a 16-byte pair and a work-list node per path (the list kept
// longest straight-line distance first), the source and destination vectors,
// the grid (a 40-byte header and a block of a long per cell plus 32 bytes; every
// endpoint is a full cell), then the pairs moved into the work queue and the
// list freed. Each thread (router.c) has its own path vector, grid copy and
// expansion queue and loops: one transaction takes a pair; a second copies the
// shared grid into its own, expands a wavefront from the source (a FIFO queue
// of cell pointers, x and y steps cost 1 and z steps 2, a cell queued again
// whenever its distance improves) until the destination comes out of the
// queue, traces back from the destination (a new vector of cell pointers,
// preferring to keep direction: a bend costs 1) and marks the path's inner
// cells full in the shared grid. The queue's and the path's blocks are
// allocated inside that transaction; a routed path's vector joins the thread's
// vector, and at the end each thread's vector joins a shared list (a node in a
// transaction). STAMP's check (a grid as large again, allocated and freed),
// then its frees; the coordinates, pairs, paths and list it never frees are
// freed after the measured phase. Verified as STAMP verifies (each path's
// inner cells adjacent in turn and used by no other path, its ends endpoints),
// and also that every step of a path is to an adjacent cell, that it runs
// from its own pair's destination to its source, and that its cells are full
// in the shared grid.
//
// In the stm build the copy, expansion and traceback run as transaction_pure
// code on thread-private memory, reading the shared grid without
// instrumentation (STAMP's TL2 build releases those reads early: a stale copy
// is fine). The expansion stops whenever its queue must grow, and the queue
// grows in transactional code (so its blocks are the transaction's, freed if
// it aborts), then the expansion goes on. The path's vector is built and its
// cells claimed transactionally; a path whose cells were taken meanwhile is
// freed and routed again in a new transaction (STAMP restarts the same one).
// The lock and seq builds never see a stale copy.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "labyrinth.h"
#include "python_random.h"
#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
namespace {

#include "labyrinth_lib.h"

struct Maze {
  Grid* grid;
  PtrQueue* work;      // pairs still to route
  PtrVector* walls;    // none in generated mazes
  PtrVector* sources;  // coordinates, in file order
  PtrVector* targets;
};

struct Router {
  long x_cost, y_cost, z_cost, bend_cost;
};

static_assert(sizeof(Maze) == 40 && sizeof(Router) == 32, "STAMP's maze_t and router_t");

// The work list: longest straight-line distance first; a pair goes before
// those as long as it.
struct LongerFirst {
  static long compare(const void* a, const void* b) {
    double da = pair_distance(static_cast<const CoordinatePair*>(a));
    double db = pair_distance(static_cast<const CoordinatePair*>(b));
    return da < db ? 1 : da > db ? -1 : 0;
  }
};

// The list of every thread's paths: by address.
struct ByAddress {
  TM_SAFE static long compare(const void* a, const void* b) {
    return reinterpret_cast<long>(a) - reinterpret_cast<long>(b);
  }
};

// ---- the input: generate.py's file, written and read back ----

// Writes generate.py's output for the config to a new temporary file, with
// system calls and a stack buffer: nothing here allocates.
bool write_input(const LabyrinthConfig& c, char (&path)[512]) {
  const char* dir = std::getenv("TMPDIR");
  std::snprintf(path, sizeof path, "%s/allocstamp-labyrinth-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return false;
  PythonRandom random(c.input_seed);
  auto randint = [&](long n) { return long(random.random() * double(n)); };  // Python 2: randint(0, n - 1)
  char out[1 << 16];
  std::size_t used = 0;
  bool ok = true;
  auto flush = [&] {
    ok = ok && write(fd, out, used) == ssize_t(used);
    used = 0;
  };
  used += std::size_t(std::snprintf(out + used, sizeof out - used, "# Dimensions (x, y, z)\nd  %d %d %d\n\n", c.x, c.y,
                                    c.z));
  used += std::size_t(std::snprintf(out + used, sizeof out - used,
                                    "# Paths: Sources (x, y, z) -> Destinations (x, y, z)\n"));
  for (long p = 0; p < c.paths; ++p) {
    long s[3] = {randint(c.x), randint(c.y), randint(c.z)};
    long d[3];
    do d[0] = randint(c.x), d[1] = randint(c.y), d[2] = randint(c.z);
    while (d[0] == s[0] && d[1] == s[1] && d[2] == s[2]);
    if (sizeof out - used < 128) flush();
    used += std::size_t(std::snprintf(out + used, sizeof out - used, "p   %3ld %3ld %1ld   %3ld %3ld %1ld\n", s[0], s[1],
                                      s[2], d[0], d[1], d[2]));
  }
  flush();
  return close(fd) == 0 && ok;
}

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

[[noreturn]] void bad_input(const char* path, long line) {
  std::fprintf(stderr, "stamp labyrinth: line %ld of %s is not valid\n", line, path);
  std::exit(1);
}

// maze.c's reading: returns the file (STAMP never closes it) and fills the
// maze; the coordinates and pairs go into `leaked` as well.
FILE* maze_read(Maze* m, const char* path, NeverFreed& leaked) {
  FILE* file = std::fopen(path, "rt");
  if (!file) {
    std::fprintf(stderr, "stamp labyrinth: cannot read %s\n", path);
    std::exit(1);
  }
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
      if (tokens != 4 || x1 < 1 || y1 < 1 || z1 < 1) bad_input(path, line_number);
      width = x1, height = y1, depth = z1;
    } else if (code == 'p') {
      if (tokens != 7) bad_input(path, line_number);
      Coordinate* source = coordinate_new(x1, y1, z1);
      Coordinate* target = coordinate_new(x2, y2, z2);
      if (same_place(source, target)) bad_input(path, line_number);
      CoordinatePair* pair = static_cast<CoordinatePair*>(malloc(sizeof(CoordinatePair)));
      pair->source = source;
      pair->target = target;
      leaked.add(source), leaked.add(target), leaked.add(pair);
      list_insert<LongerFirst>(work, pair);
      vector_push(m->sources, source);
      vector_push(m->targets, target);
    } else if (code == 'w') {
      if (tokens != 4) bad_input(path, line_number);
      Coordinate* wall = coordinate_new(x1, y1, z1);
      leaked.add(wall);
      vector_push(m->walls, wall);
    } else {
      bad_input(path, line_number);
    }
  }
  if (width < 1 || height < 1 || depth < 1) bad_input(path, line_number);
  Grid* g = grid_new(width, height, depth);
  m->grid = g;
  for (PtrVector* v : {m->walls, m->sources, m->targets})  // every wall and endpoint is full
    for (long i = 0; i < v->size; ++i) {
      const Coordinate* c = static_cast<const Coordinate*>(v->elements[i]);
      if (!grid_valid(g, c->x, c->y, c->z)) bad_input(path, line_number);
      *grid_ref(g, c->x, c->y, c->z) = kFull;
    }
  // STAMP prints here: stdout's buffer is allocated now and never freed.
  std::printf("stamp labyrinth: maze %ld x %ld x %ld, %ld paths to route\n", width, height, depth, work->size);
  for (PtrList::Node* n = work->head.next; n; n = n->next) queue_push(m->work, n->data);
  list_delete(work);
  return file;
}

// ---- routing (router.c) ----

// A move of the traceback, with the direction it keeps (STAMP's momentum).
struct Move {
  long dx, dy, dz;
  long direction;
};
constexpr Move kMoves[6] = {{1, 0, 0, 1}, {0, 1, 0, 2}, {0, 0, 1, 3}, {-1, 0, 0, 4}, {0, -1, 0, 5}, {0, 0, -1, 6}};

struct Step {
  long x, y, z;
  long value;
  long direction;  // 0: none yet
};

struct Plan {
  bool expanded = false;  // the destination was reached
  bool traced = false;    // and a path traced back to the source
  long points = 0;        // cells traced (all of them, or up to the dead end)
};

// The copy: plain in the seq and lock builds; in the stm build other threads
// may be writing the shared grid, so each cell is read once, atomically.
void copy_grid(Grid* mine, const Grid* shared) {
  long n = grid_cells(shared);
#if defined(ALLOCSTAMP_TM_STM)
  for (long i = 0; i < n; ++i) mine->points[i] = __atomic_load_n(&shared->points[i], __ATOMIC_RELAXED);
#else
  memcpy(mine->points, shared->points, size_t(n) * sizeof(long));
#endif
}

// The wavefront's progress, kept between calls so that it can stop where the
// queue must grow (which the caller does inside the transaction) and go on.
struct Expansion {
  const long* goal;
  long* pending = nullptr;  // a cell to push before anything else
  long* cell = nullptr;     // the cell being expanded (null: take the next)
  long value = 0;           // its distance
  long x = 0, y = 0, z = 0;
  int next = 0;             // its next neighbour: x+1, x-1, y+1, y-1, z+1, z-1
};

enum class Wave { found, exhausted, grow };

// Starts the wavefront at the source (distance 0); the target is free.
void expansion_begin(Grid* g, PtrQueue* queue, const Coordinate* source, const Coordinate* target, Expansion& e) {
  queue_clear(queue);
  e = Expansion{};
  e.pending = grid_ref(g, source->x, source->y, source->z);
  *e.pending = 0;
  *grid_ref(g, target->x, target->y, target->z) = kEmpty;
  e.goal = grid_ref(g, target->x, target->y, target->z);
}

// Expands breadth first until the target comes out of the queue or the queue
// empties; a cell is queued when first reached and again whenever its
// distance improves. Returns Wave::grow, with e kept, when the next push needs
// a larger queue.
Wave expansion_run(const Router* r, Grid* g, PtrQueue* queue, Expansion& e) {
  const long width = g->width, height = g->height, depth = g->depth, area = width * height;
  long* pending = e.pending;
  long* cell = e.cell;
  long value = e.value, x = e.x, y = e.y, z = e.z;
  int next = e.next;
  for (;;) {
    if (pending) {
      if (queue_full(queue)) {
        e.pending = pending, e.cell = cell, e.value = value, e.x = x, e.y = y, e.z = z, e.next = next;
        return Wave::grow;
      }
      queue_put(queue, pending);
      pending = nullptr;
    }
    if (cell) {
      while (next < 6) {
        const int k = next++;
        long nx = x, ny = y, nz = z, cost;
        switch (k) {
          case 0: nx = x + 1, cost = r->x_cost; break;
          case 1: nx = x - 1, cost = r->x_cost; break;
          case 2: ny = y + 1, cost = r->y_cost; break;
          case 3: ny = y - 1, cost = r->y_cost; break;
          case 4: nz = z + 1, cost = r->z_cost; break;
          default: nz = z - 1, cost = r->z_cost; break;
        }
        if (nx < 0 || nx >= width || ny < 0 || ny >= height || nz < 0 || nz >= depth) continue;
        long* neighbour = &g->points[(nz * height + ny) * width + nx];
        long old = *neighbour, reached = value + cost;
        if (old == kEmpty || (old != kFull && reached < old)) {
          *neighbour = reached;
          pending = neighbour;
          break;
        }
      }
      if (pending) continue;
      cell = nullptr;
    }
    if (queue_empty(queue)) return Wave::exhausted;
    cell = static_cast<long*>(queue_pop(queue));
    if (cell == e.goal) return Wave::found;
    long i = cell - g->points;
    z = i / area;
    long plane = i % area;
    y = plane / width, x = plane % width;
    value = *cell;
    next = 0;
  }
}

inline void trace_to(Grid* g, const Step& current, const Move& move, bool keep_direction, long bend_cost, Step& next) {
  long x = current.x + move.dx, y = current.y + move.dy, z = current.z + move.dz;
  if (!grid_valid(g, x, y, z)) return;
  long value = *grid_ref(g, x, y, z);
  if (value == kEmpty || value == kFull) return;
  long bend = keep_direction && current.direction != move.direction ? bend_cost : 0;
  if (value + bend <= next.value) next = Step{x, y, z, value, move.direction};
}

// Traces from the target back to the source (value 0) through the expanded
// copy, writing the shared grid's cell pointers into `trace`; false at a dead end.
bool trace_back(Grid* shared, Grid* g, const Coordinate* target, long bend_cost, long** trace, long& points) {
  Step next{target->x, target->y, target->z, *grid_ref(g, target->x, target->y, target->z), 0};
  points = 0;
  for (;;) {
    trace[points++] = grid_ref(shared, next.x, next.y, next.z);
    *grid_ref(g, next.x, next.y, next.z) = kFull;
    if (next.value == 0) return true;
    const Step current = next;
    for (const Move& m : kMoves) trace_to(g, current, m, true, bend_cost, next);
    if (next.x == current.x && next.y == current.y && next.z == current.z) {
      // Bends may make no neighbour look nearer: take one regardless of direction.
      next.value = current.value;
      for (const Move& m : kMoves) trace_to(g, current, m, false, bend_cost, next);
      if (next.x == current.x && next.y == current.y && next.z == current.z) return false;
    }
  }
}

// The copy and the wavefront's start, on this thread's own grid and queue.
TM_PURE void route_begin(Grid* shared, Grid* mine, PtrQueue* queue, const CoordinatePair* pair, Expansion& e) {
  copy_grid(mine, shared);
  expansion_begin(mine, queue, pair->source, pair->target, e);
}

TM_PURE Wave route_expand(const Router* r, Grid* mine, PtrQueue* queue, Expansion& e) {
  return expansion_run(r, mine, queue, e);
}

TM_PURE bool route_trace(const Router* r, Grid* shared, Grid* mine, const CoordinatePair* pair, long** trace,
                         long& points) {
  return trace_back(shared, mine, pair->target, r->bend_cost, trace, points);
}

// Marks the path's inner cells full (its ends are endpoints, full already);
// false, writing nothing, if one was taken since the copy.
TM_SAFE bool claim_path(PtrVector* path) {
  for (long i = 1; i < path->size - 1; ++i)
    if (*static_cast<long*>(path->elements[i]) != kEmpty) return false;
  for (long i = 1; i < path->size - 1; ++i) *static_cast<long*>(path->elements[i]) = kFull;
  return true;
}

__attribute__((noinline)) CoordinatePair* tx_take_pair(PtrQueue* work) {
  CoordinatePair* pair;
  TM_BEGIN
  pair = queue_empty(work) ? nullptr : static_cast<CoordinatePair*>(queue_pop(work));
  TM_END
  return pair;
}

enum class Routed { yes, no, again };

// One route, one transaction: the copy and expansion, then the path's vector
// (freed at a dead end or when its cells were taken meanwhile).
__attribute__((noinline)) Routed tx_route(const Router* r, Grid* shared, Grid* mine, PtrQueue* queue,
                                          const CoordinatePair* pair, long** trace, PtrVector*& path) {
  Routed result;
  TM_BEGIN
  result = Routed::no;
  path = nullptr;
  Expansion e;
  route_begin(shared, mine, queue, pair, e);
  Wave wave;
  while ((wave = route_expand(r, mine, queue, e)) == Wave::grow) queue_grow(queue);  // the queue's blocks: in the transaction
  Plan p;
  p.expanded = wave == Wave::found;
  if (p.expanded) p.traced = route_trace(r, shared, mine, pair, trace, p.points);
  if (p.expanded) {
    PtrVector* v = vector_new(1);
    for (long i = 0; i < p.points; ++i) vector_push(v, trace[i]);
    if (!p.traced) {
      vector_delete(v);
    } else if (claim_path(v)) {
      path = v;
      result = Routed::yes;
    } else {
      vector_delete(v);
      result = Routed::again;
    }
  }
  TM_END
  return result;
}

__attribute__((noinline)) void tx_add_paths(PtrList* paths, PtrVector* mine) {
  TM_BEGIN
  list_insert<ByAddress>(paths, mine);
  TM_END
}

struct Shared {
  const Router* router;
  Maze* maze;
  PtrList* paths;  // every thread's vector of paths
  long unroutable = 0, retries = 0;  // added under a transaction-free atomic
};

// Thread-private scratch for a traceback: a pointer per cell at most, mapped
// outside the heap (STAMP pushes straight into the path's vector).
struct Trace {
  long** cells;
  std::size_t bytes;
  explicit Trace(long n) : bytes(std::size_t(n) * sizeof(long*)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) std::abort();
    cells = static_cast<long**>(p);
  }
  ~Trace() { munmap(cells, bytes); }
};

void router_solve(Shared& s) {
  PtrVector* my_paths = vector_new(1);
  Grid* shared = s.maze->grid;
  Grid* mine = grid_new(shared->width, shared->height, shared->depth);
  PtrQueue* queue = queue_new(-1);
  Trace trace(grid_cells(shared));
  long unroutable = 0, retries = 0;
  while (CoordinatePair* pair = tx_take_pair(s.maze->work)) {
    PtrVector* path = nullptr;
    Routed routed;
    while ((routed = tx_route(s.router, shared, mine, queue, pair, trace.cells, path)) == Routed::again) ++retries;
    if (routed == Routed::yes) vector_push(my_paths, path);
    else ++unroutable;
  }
  tx_add_paths(s.paths, my_paths);
  grid_delete(mine);
  queue_delete(queue);
  __atomic_fetch_add(&s.unroutable, unroutable, __ATOMIC_RELAXED);
  __atomic_fetch_add(&s.retries, retries, __ATOMIC_RELAXED);
}

// ---- the check (maze.c's, plus the pairs' ends) ----

bool check_paths(Maze* m, PtrList* paths) {
  Grid* g = m->grid;
  Grid* test = grid_new(g->width, g->height, g->depth);
  for (long i = 0; i < m->walls->size; ++i) {
    const Coordinate* c = static_cast<const Coordinate*>(m->walls->elements[i]);
    *grid_ref(test, c->x, c->y, c->z) = kFull;
  }
  for (PtrVector* v : {m->sources, m->targets})
    for (long i = 0; i < v->size; ++i) {
      const Coordinate* c = static_cast<const Coordinate*>(v->elements[i]);
      *grid_ref(test, c->x, c->y, c->z) = 0;  // an endpoint
    }
  bool ok = true;
  long id = 0;
  for (PtrList::Node* n = paths->head.next; n && ok; n = n->next) {
    PtrVector* list = static_cast<PtrVector*>(n->data);
    for (long p = 0; p < list->size && ok; ++p) {
      ++id;
      PtrVector* path = static_cast<PtrVector*>(list->elements[p]);
      const long last = path->size - 1;
      Coordinate previous = grid_place(g, static_cast<long*>(path->elements[0]));
      ok = last >= 1 && *grid_ref(test, previous.x, previous.y, previous.z) == 0;
      for (long j = 1; j <= last && ok; ++j) {
        Coordinate here = grid_place(g, static_cast<long*>(path->elements[j]));
        long* cell = grid_ref(test, here.x, here.y, here.z);
        ok = adjacent(here, previous) && *static_cast<long*>(path->elements[j]) == kFull;
        if (j < last) {
          ok = ok && *cell == kEmpty;  // no other path's cell, no endpoint
          *cell = id;
        } else {
          ok = ok && *cell == 0;
        }
        previous = here;
      }
      // Its ends are one pair's destination and source (allocation-free search).
      if (ok) {
        Coordinate first = grid_place(g, static_cast<long*>(path->elements[0]));
        bool joined = false;
        for (long i = 0; i < m->sources->size && !joined; ++i)
          joined = same_place(&first, static_cast<Coordinate*>(m->targets->elements[i])) &&
                   same_place(&previous, static_cast<Coordinate*>(m->sources->elements[i]));
        ok = joined;
      }
    }
  }
  grid_delete(test);
  return ok;
}

}  // namespace

LabyrinthResult run(const LabyrinthConfig& c) {
  LabyrinthResult r;
  char path[512];
  if (!write_input(c, path)) {
    std::perror("stamp labyrinth: cannot write the input file");
    std::exit(1);
  }
  NeverFreed leaked(std::size_t(c.paths) * 3 + 16);
  memprof::phase_begin();  // STAMP's figures are its whole run
  StampThreadBlocks pool = stamp_thread_startup(c.threads);
  Maze* maze = maze_new();
  FILE* input = maze_read(maze, path, leaked);
  unlink(path);
  const long to_route = maze->sources->size;
  Router* router = static_cast<Router*>(malloc(sizeof(Router)));
  *router = Router{1, 1, 2, 1};  // STAMP's default costs: x, y, z, bend
  PtrList* paths = list_new();

  Shared s{router, maze, paths};
  auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::thread> workers;
    for (int t = 1; t < c.threads; ++t)
      workers.emplace_back([&s] {
        router_solve(s);
        ::allocstamp::tm::publish_thread_counts();
      });
    router_solve(s);
    ::allocstamp::tm::publish_thread_counts();
    for (auto& w : workers) w.join();
  }
  r.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());

  for (PtrList::Node* n = paths->head.next; n; n = n->next) r.routed += static_cast<PtrVector*>(n->data)->size;
  r.unroutable = s.unroutable;
  r.retries = s.retries;
  r.consistent = r.routed + r.unroutable == to_route && check_paths(maze, paths);
  maze_delete(maze);
  free(router);
  stamp_thread_shutdown(pool);
  memprof::phase_end();

  // What STAMP never frees: the input file, the coordinates and pairs, every
  // path, each thread's vector of them and their list.
  std::fclose(input);
  leaked.free_all();
  for (PtrList::Node* n = paths->head.next; n; n = n->next) {
    PtrVector* list = static_cast<PtrVector*>(n->data);
    for (long p = 0; p < list->size; ++p) vector_delete(static_cast<PtrVector*>(list->elements[p]));
    vector_delete(list);
  }
  list_delete(paths);
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
