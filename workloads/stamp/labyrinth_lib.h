// labyrinth_lib.h — the blocks labyrinth allocates, with the sizes of STAMP's
// (x86_64), beside STAMP's vector and queue (stamp_containers.h): a
// coordinate (three longs, 24 bytes), a pair of pointers (16), a sorted list
// that keeps equal elements (a 32-byte header with its head node inside and a
// 16-byte node per element; an element goes before the first one that does not
// compare below it), and the grid (a 40-byte header and one block of a long per
// cell plus 32 bytes, the cells starting at the next 32-byte boundary). Plain C-style blocks from
// malloc, so their sizes are exactly the structs'.
//
// Included inside a TM build's namespace (after tm.h, <cmath>, <cstdlib> and
// <cstring>): the functions marked TM_SAFE run inside transactions, and in
// the stm build allocate through libitm there.
#pragma once

struct Coordinate {
  long x, y, z;
};

struct CoordinatePair {
  Coordinate* source;
  Coordinate* target;
};

static_assert(sizeof(Coordinate) == 24 && sizeof(CoordinatePair) == 16, "STAMP's coordinate_t and pair_t");

inline Coordinate* coordinate_new(long x, long y, long z) {
  Coordinate* c = static_cast<Coordinate*>(malloc(sizeof(Coordinate)));
  c->x = x, c->y = y, c->z = z;
  return c;
}

inline bool same_place(const Coordinate* a, const Coordinate* b) { return a->x == b->x && a->y == b->y && a->z == b->z; }

inline bool adjacent(const Coordinate& a, const Coordinate& b) {
  long dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
  return dx * dx + dy * dy + dz * dz == 1;
}

// The work list's order: longer straight-line distance first (used outside
// transactions only; pure so that list_insert may be transaction-safe).
struct LongestFirst {
  TM_PURE static double distance(const CoordinatePair* p) {
    long dx = p->source->x - p->target->x, dy = p->source->y - p->target->y, dz = p->source->z - p->target->z;
    return std::sqrt(double(dx * dx + dy * dy + dz * dz));
  }
  TM_PURE static long compare(const void* a, const void* b) {
    double da = distance(static_cast<const CoordinatePair*>(a)), db = distance(static_cast<const CoordinatePair*>(b));
    return da < db ? 1 : da > db ? -1 : 0;
  }
};

// The order of the list of every thread's paths: by address.
struct ByAddress {
  TM_SAFE static long compare(const void* a, const void* b) {
    return reinterpret_cast<long>(a) - reinterpret_cast<long>(b);
  }
};

#include "stamp_containers.h"

// ---- sorted list of pointers, equal elements kept ----

struct PtrList {
  struct Node {
    void* data;
    Node* next;
  };
  Node head;
  void* compare_slot;  // STAMP keeps its compare function here
  long size;
};
static_assert(sizeof(PtrList) == 32 && sizeof(PtrList::Node) == 16, "STAMP's list_t and list_node_t");

inline PtrList* list_new() {
  PtrList* l = static_cast<PtrList*>(malloc(sizeof(PtrList)));
  l->head.data = nullptr;
  l->head.next = nullptr;
  l->compare_slot = nullptr;
  l->size = 0;
  return l;
}

// Inserts before the first element e with Order::compare(e, item) >= 0.
template <typename Order>
TM_SAFE void list_insert(PtrList* l, void* item) {
  PtrList::Node* prev = &l->head;
  for (PtrList::Node* n = prev->next; n; n = n->next) {
    if (Order::compare(n->data, item) >= 0) break;
    prev = n;
  }
  PtrList::Node* node = static_cast<PtrList::Node*>(malloc(sizeof(PtrList::Node)));
  node->data = item;
  node->next = prev->next;
  prev->next = node;
  ++l->size;
}

// Frees the nodes, last first, then the header; not the elements.
inline void list_free_nodes(PtrList::Node* n) {
  if (!n) return;
  list_free_nodes(n->next);
  free(n);
}

inline void list_delete(PtrList* l) {
  list_free_nodes(l->head.next);
  free(l);
}

// ---- the grid: {width, height, depth, points, points_unaligned} ----

constexpr long kFull = -2;   // a wall, an endpoint or a routed path's cell
constexpr long kEmpty = -1;  // free (all bytes 0xff)

struct Grid {
  long width;
  long height;
  long depth;
  long* points;            // the first 32-byte boundary after points_unaligned
  long* points_unaligned;  // the block: cells + 32 bytes
};
static_assert(sizeof(Grid) == 40, "STAMP's grid_t");

inline Grid* grid_new(long width, long height, long depth) {
  constexpr unsigned long kLine = 32;
  Grid* g = static_cast<Grid*>(malloc(sizeof(Grid)));
  g->width = width, g->height = height, g->depth = depth;
  long n = width * height * depth;
  g->points_unaligned = static_cast<long*>(malloc(size_t(n) * sizeof(long) + kLine));
  g->points = reinterpret_cast<long*>((reinterpret_cast<unsigned long>(g->points_unaligned) & ~(kLine - 1)) + kLine);
  memset(g->points, 0xff, size_t(n) * sizeof(long));  // every cell kEmpty
  return g;
}

inline void grid_delete(Grid* g) {
  free(g->points_unaligned);
  free(g);
}

TM_SAFE inline bool grid_valid(const Grid* g, long x, long y, long z) {
  return x >= 0 && x < g->width && y >= 0 && y < g->height && z >= 0 && z < g->depth;
}

TM_SAFE inline long* grid_ref(Grid* g, long x, long y, long z) { return &g->points[(z * g->height + y) * g->width + x]; }

TM_SAFE inline Coordinate grid_place(const Grid* g, const long* cell) {
  long area = g->height * g->width;
  long i = cell - g->points;
  long plane = i % area;
  return Coordinate{plane % g->width, plane / g->width, i / area};
}

// Marks every listed coordinate kFull.
inline void grid_fill(Grid* g, const PtrVector* coordinates) {
  for (long i = 0; i < coordinates->size; ++i) {
    const Coordinate* c = static_cast<const Coordinate*>(coordinates->elements[i]);
    *grid_ref(g, c->x, c->y, c->z) = kFull;
  }
}
