// yada_tm.cpp — STAMP's yada, object for object: the mesh is read from
// Triangle's files as STAMP reads them (fopen, fgets, sscanf; an element, its
// 32 B neighbour list and 16 B nodes per segment and triangle, the edges
// matched through an AVL map, the segments in a red-black set), the bad
// elements are shuffled (STAMP's MT19937, seed 0) into a work heap, and each
// thread refines: it takes an element from the heap (a transaction), checks
// it is not garbage (one; STAMP's frees of garbage elements are commented
// out, so none is ever freed), grows the cavity around its new point and
// retriangulates it (one: queue, list, map, element and node blocks are
// allocated and freed inside), clears its reference (one) and files the new
// bad elements in the heap (one). The region's structures, the map and the
// frees are where STAMP has them, so every block and transaction is STAMP's.
// What STAMP never frees (the mesh, every element it removed, the heap, the
// maps' pairs) is freed after the measured phase. Verified as STAMP's mesh_check:
// every element reachable, none with an angle under the bound, as many as
// STAMP counts; neighbours list each other and share an edge.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "rb_tree.h"
#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"
#include "yada.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
namespace {

#include "stamp_containers.h"
#include "stamp_list.h"
#include "yada_lib.h"
#include "yada_mesh.h"

// --- the region (yada/region.c) ---

// A thread's cavity, as STAMP's region_t.
struct Region {
  Coordinate center;
  PtrQueue* expand;
  ElementList* before;  // the cavity's elements
  EdgeList* border;     // the edges around it
  PtrVector* bad;       // new bad elements, for the heap
};
static_assert(sizeof(Region) == 48, "STAMP's region_t");

Region* region_new() {
  Region* r = static_cast<Region*>(malloc(sizeof(Region)));
  r->expand = queue_new(-1);
  r->before = ElementList::create();
  r->border = EdgeList::create();
  r->bad = vector_new(1);
  return r;
}

void region_delete(Region* r) {
  vector_delete(r->bad);
  EdgeList::destroy(r->border);
  ElementList::destroy(r->before);
  queue_delete(r->expand);
  free(r);
}

[[noreturn]] TM_PURE void no_common_edge() {
  // STAMP restarts the transaction here: only an inconsistent read gets here,
  // which libitm's methods never give.
  std::fprintf(stderr, "stamp yada: a cavity's neighbour shares no edge with it\n");
  std::abort();
}

// The cavity around the element's new point: breadth first through the
// neighbours whose circumcircle holds it, the border edges noted (and mapped
// to the element outside). Returns a boundary segment the point encroaches
// on (the element is no segment itself), else null.
TM_SAFE Element* grow_region(Element* center, Region* r, EdgeMap* edges) {
  bool is_boundary = center->num_edge == 1;
  ElementList* before = r->before;
  EdgeList* border = r->border;
  PtrQueue* expand = r->expand;
  before->clear();
  border->clear();
  queue_clear(expand);
  Coordinate point = element_new_point(center);
  queue_push(expand, center);
  while (!queue_empty(expand)) {
    Element* current = static_cast<Element*>(queue_pop(expand));
    before->insert(current);
    for (ElementList::Node* n = current->neighbors->head.next; n; n = n->next) {
      Element* neighbour = n->data;
      if (before->find(neighbour)) continue;
      if (element_in_circumcircle(neighbour, point)) {
        if (!is_boundary && neighbour->num_edge == 1) return neighbour;
        queue_push(expand, neighbour);
      } else {
        Edge* edge = element_common_edge(neighbour, current);
        if (!edge) no_common_edge();
        border->insert(edge);
        if (!map_find(edges, edge)) map_insert(edges, edge, neighbour);
      }
    }
  }
  return nullptr;
}

// Replaces the cavity by a fan of triangles around the new point (a split
// segment by two halves); returns the elements added less those removed.
TM_SAFE long retriangulate(Element* e, Region* r, Mesh* m, EdgeMap* edges, Leaks* leaks) {
  PtrVector* bad = r->bad;
  ElementList* before = r->before;
  EdgeList* border = r->border;
  long delta = 0;
  Coordinate center = element_new_point(e);
  for (ElementList::Node* n = before->head.next; n; n = n->next) mesh_remove(m, n->data, leaks);
  delta -= before->size;
  if (e->num_edge == 1) {
    Coordinate ends[2];
    Edge* edge = &e->edges[0];
    ends[0] = center;
    ends[1] = coordinate_read(edge->first);
    Element* a = element_new(ends, 2, g_angle);
    mesh_insert(m, a, edges);
    ends[1] = coordinate_read(edge->second);
    Element* b = element_new(ends, 2, g_angle);
    mesh_insert(m, b, edges);
    m->boundary->tree.remove(EdgeKey{&e->edges[0]});
    m->boundary->tree.insert(EdgeKey{&a->edges[0]}, nullptr);
    m->boundary->tree.insert(EdgeKey{&b->edges[0]}, nullptr);
    delta += 2;
  }
  for (EdgeList::Node* n = border->head.next; n; n = n->next) {
    Edge* edge = n->data;
    Coordinate corners[3] = {center, coordinate_read(edge->first), coordinate_read(edge->second)};
    Element* after = element_new(corners, 3, g_angle);
    mesh_insert(m, after, edges);
    if (element_is_bad(after)) {
      vector_push(bad, after);
      after->is_referenced = 1;
    }
  }
  delta += border->size;
  return delta;
}

// Refines the element: a point that encroaches on a segment splits the
// segment first (which references it), then the cavity is grown again.
TM_SAFE long region_refine(Region* r, Element* e, Mesh* m, Leaks* leaks) {
  long delta = 0;
  EdgeMap* edges;
  for (;;) {
    edges = map_new();
    Element* encroached = grow_region(e, r, edges);
    if (!encroached) break;
    encroached->is_referenced = 1;
    delta += region_refine(r, encroached, m, leaks);
    if (e->is_garbage) break;
    map_delete(edges, &leaks->pairs);
  }
  if (!e->is_garbage) delta += retriangulate(e, r, m, edges, leaks);
  map_delete(edges, &leaks->pairs);
  return delta;
}

TM_SAFE void transfer_bad(Region* r, WorkHeap* heap) {
  PtrVector* bad = r->bad;
  for (long i = 0; i < bad->size; ++i) {
    Element* e = static_cast<Element*>(bad->elements[i]);
    if (!e->is_garbage) heap_insert(heap, e);  // a garbage one STAMP would free (it does not)
  }
}

// --- the work (yada/yada.c) ---

struct Shared {
  Mesh* mesh;
  WorkHeap* heap;
  long total_added;
  long processed;
};

Leaks g_leaks[1024];  // one per thread (--threads is at most 1024)

// Each transaction in a function of its own (the stm build's transactions
// save and restore the caller's registers; small callers keep that cheap).
__attribute__((noinline)) Element* tx_take(WorkHeap* heap) {
  Element* e;
  TM_BEGIN
  e = heap_remove(heap);
  TM_END
  return e;
}

__attribute__((noinline)) bool tx_is_garbage(Element* e) {
  bool garbage;
  TM_BEGIN
  garbage = e->is_garbage;
  TM_END
  return garbage;
}

__attribute__((noinline)) long tx_refine(Region* r, Element* e, Mesh* m, Leaks* leaks) {
  long added;
  TM_BEGIN
  r->bad->size = 0;
  added = region_refine(r, e, m, leaks);
  TM_END
  return added;
}

__attribute__((noinline)) bool tx_release(Element* e) {
  bool garbage;
  TM_BEGIN
  e->is_referenced = 0;
  garbage = e->is_garbage;
  TM_END
  return garbage;
}

__attribute__((noinline)) void tx_transfer_bad(Region* r, WorkHeap* heap) {
  TM_BEGIN
  transfer_bad(r, heap);
  TM_END
}

__attribute__((noinline)) void tx_add_totals(Shared* s, long added, long processed) {
  TM_BEGIN
  s->total_added += added;
  s->processed += processed;
  TM_END
}

void process(Shared* s, Leaks* leaks) {
  WorkHeap* heap = s->heap;
  Mesh* mesh = s->mesh;
  long added = 0, processed = 0;
  Region* region = region_new();
  for (;;) {
    Element* e = tx_take(heap);
    if (!e) break;
    // An element removed while in the heap is garbage: STAMP would free it
    // here (it does not, see mesh_remove).
    if (tx_is_garbage(e)) continue;
    added += tx_refine(region, e, mesh, leaks);
    tx_release(e);
    tx_transfer_bad(region, heap);
    ++processed;
  }
  tx_add_totals(s, added, processed);
  region_delete(region);
  ::allocstamp::tm::publish_thread_counts();
}

long initialize_work(WorkHeap* heap, Mesh* mesh) {
  StampRandom* random = stamp_random_new();
  random->mt.seed(0);
  queue_shuffle(mesh->initial_bad, *random);
  stamp_random_delete(random);
  long bad = 0;
  while (Element* e = static_cast<Element*>(queue_pop(mesh->initial_bad))) {
    ++bad;
    heap_insert(heap, e);
    e->is_referenced = 1;
  }
  return bad;
}

// mesh_check, after the measured phase: a breadth-first walk from the root
// (memprof ignores its own blocks). Every element met is appended to `all`.
void check_mesh(const Mesh* mesh, YadaResult& r, std::vector<Element*>& all) {
  all.push_back(mesh->root);
  mesh->root->is_referenced = 2;  // visited (nothing reads the flag any more)
  for (size_t i = 0; i < all.size(); ++i) {
    Element* e = all[i];
    if (!element_angles_ok(e, g_angle)) ++r.bad_triangles;
    for (ElementList::Node* n = e->neighbors->head.next; n; n = n->next) {
      Element* neighbour = n->data;
      if (neighbour->is_garbage || !neighbour->neighbors->find(e) || !element_common_edge(e, neighbour))
        ++r.false_neighbours;
      if (neighbour->is_referenced != 2) {
        neighbour->is_referenced = 2;
        all.push_back(neighbour);
      }
    }
  }
  r.reachable_elements = long(all.size());
}

}  // namespace

YadaResult run(const YadaConfig& c) {
  YadaResult r;
  g_angle = c.angle;
  memprof::phase_begin();  // STAMP's figures are its whole run
  StampThreadBlocks pool = stamp_thread_startup(c.threads);
  Mesh* mesh = mesh_new();
  r.initial_elements = mesh_read(mesh, c.input, &g_leaks[0]);
  WorkHeap* heap = heap_new(1);
  r.initial_bad = initialize_work(heap, mesh);

  Shared s{mesh, heap, 0, 0};
  auto start = std::chrono::steady_clock::now();
  if (c.threads == 1) {
    process(&s, &g_leaks[0]);  // on the main thread, as STAMP's sequential build
  } else {
    memprof::region parallel(MEMPROF_PAR);
    std::thread* handles = reinterpret_cast<std::thread*>(pool.handles);
    static_assert(sizeof(std::thread) == sizeof(unsigned long), "a thread handle is one word, as pthread_t");
    for (int t = 1; t < c.threads; ++t) new (&handles[t]) std::thread(process, &s, &g_leaks[t]);
    process(&s, &g_leaks[0]);
    for (int t = 1; t < c.threads; ++t) {
      handles[t].join();
      handles[t].~thread();
    }
  }
  r.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  r.final_elements = r.initial_elements + s.total_added;
  r.processed = s.processed;
  stamp_thread_shutdown(pool);
  memprof::phase_end();

  // mesh_check (STAMP's build skips it; ours runs it outside the figures).
  memprof::ignore_begin();
  {
    std::vector<Element*> all;
    check_mesh(mesh, r, all);
    r.valid = r.bad_triangles == 0 && r.false_neighbours == 0 && r.reachable_elements == r.final_elements;
    memprof::ignore_end();
    // What STAMP never frees: the mesh's elements, those it removed, the
    // maps' pairs, the boundary set, the heap and the mesh.
    for (Element* e : all) element_delete(e);
    for (int t = 0; t < c.threads; ++t) {
      for (Element* e = g_leaks[t].removed; e;) {
        Element* next = e->leaked_next;
        element_delete(e);
        e = next;
      }
      g_leaks[t].removed = nullptr;
      leaked_pairs_free(&g_leaks[t].pairs);
    }
    boundary_delete(mesh->boundary);
    queue_delete(mesh->initial_bad);
    free(mesh);
    heap_delete(heap);
    memprof::ignore_begin();
  }
  memprof::ignore_end();
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
