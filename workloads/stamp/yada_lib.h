// yada_lib.h — the structures of STAMP's yada with their exact blocks and
// arithmetic: coordinates, the 256-byte element (yada/element.c: its angles,
// circumcircle, edges and a sorted neighbour list), the edge map (the AVL tree
// yada's Defines.common.mk selects, MAP_USE_AVLTREE: a 24 B header, a 32 B node
// and a 16 B pair per entry; freeing the map frees its nodes, not its pairs),
// the boundary set (SET_USE_RBTREE: a 16 B header and a 48 B node per edge)
// and the work heap (lib/heap.c: a 32 B header and an array that doubles).
// The geometry is STAMP's expression for expression, so both refine the same
// mesh the same way and every count can be equal. Functions marked TM_SAFE run
// inside transactions; the geometry is TM_PURE (libm is not transaction-safe)
// and works on a new element or on values. Include inside a TM build's
// namespace, after tm.h, <cmath>, <cstdlib>, stamp_list.h, stamp_containers.h
// and rb_tree.h.
#pragma once

// ---- coordinates (yada/coordinate.c) ----

struct Coordinate {
  double x, y;
};

// A copy of a shared coordinate, one field at a time. Copied as a whole inside
// a transaction it is one libitm block copy, which ml_wt restarts without end
// (100 times, then serially) when its source and its destination share an
// ownership record: docs/stamp-fidelity.md, "Block copies inside transactions".
TM_SAFE inline Coordinate coordinate_read(const Coordinate* p) {
  Coordinate c;
  c.x = p->x;
  c.y = p->y;
  return c;
}

TM_SAFE inline long coordinate_compare(const Coordinate* a, const Coordinate* b) {
  if (a->x < b->x) return -1;
  if (a->x > b->x) return 1;
  if (a->y < b->y) return -1;
  if (a->y > b->y) return 1;
  return 0;
}

TM_PURE inline double coordinate_distance(Coordinate p, Coordinate a) {
  double dx = p.x - a.x;
  double dy = p.y - a.y;
  return std::sqrt((dx * dx) + (dy * dy));
}

// The angle at a, in degrees.
TM_PURE inline double coordinate_angle(Coordinate a, Coordinate b, Coordinate c) {
  double bx = b.x - a.x, by = b.y - a.y;
  double cx = c.x - a.x, cy = c.y - a.y;
  double numerator = (bx * cx) + (by * cy);
  double denominator = coordinate_distance(a, b) * coordinate_distance(a, c);
  double radian = std::acos(numerator / denominator);
  return (180.0 * radian / M_PI);
}

// ---- elements (yada/element.c) ----

// STAMP's edge_t is a pair_t: two pointers into an element's coordinates,
// the lesser first.
struct Edge {
  Coordinate* first;
  Coordinate* second;
};

TM_SAFE inline long edge_compare(const Edge* a, const Edge* b) {
  long first = coordinate_compare(a->first, b->first);
  return first != 0 ? first : coordinate_compare(a->second, b->second);
}

struct Element;
struct ElementOrder {
  TM_SAFE static long compare(const Element* a, const Element* b);
};
struct EdgeOrder {
  TM_SAFE static long compare(const Edge* a, const Edge* b) { return edge_compare(a, b); }
};
using ElementList = StampList<Element, ElementOrder>;
using EdgeList = StampList<Edge, EdgeOrder>;

// A segment (2 coordinates, 1 edge) or a triangle (3 and 3); bool_t is long.
struct Element {
  Coordinate coordinates[3];
  long num_coordinate;
  Coordinate circum_center;
  double circum_radius;
  // STAMP stores the minimum angle here and never reads it back; once the
  // element is removed from the mesh (and lost: STAMP never frees elements)
  // the slot links it into the list freed after the measured phase.
  union {
    double min_angle;
    Element* leaked_next;
  };
  Edge edges[3];
  long num_edge;
  Coordinate midpoints[3];  // of each edge
  double radii[3];          // half of each edge's length
  Edge* encroached_edge;    // the edge opposite an obtuse angle
  long is_skinny;
  ElementList* neighbors;
  long is_garbage;
  long is_referenced;
};
static_assert(sizeof(Element) == 256 && sizeof(Edge) == 16 && sizeof(Coordinate) == 16, "STAMP's element_t");
static_assert(sizeof(ElementList) == 32 && sizeof(ElementList::Node) == 16, "STAMP's list_t and list_node_t");

TM_SAFE inline long ElementOrder::compare(const Element* a, const Element* b) {
  if (a->num_coordinate < b->num_coordinate) return -1;
  if (a->num_coordinate > b->num_coordinate) return 1;
  for (long i = 0; i < a->num_coordinate; ++i) {
    long c = coordinate_compare(&a->coordinates[i], &b->coordinates[i]);
    if (c != 0) return c;
  }
  return 0;
}

// element_alloc's work on a new block: the coordinates rotated so the least
// comes first, the angles (skinny below `angle`, encroached opposite an
// obtuse one), the circumcircle, the edges with their midpoints and radii.
// Pure: the block is this transaction's own until it commits.
TM_PURE inline void element_init(Element* e, const Coordinate* coordinates, long n, double angle) {
  for (long i = 0; i < n; ++i) e->coordinates[i] = coordinates[i];
  e->num_coordinate = n;
  long least = 0;
  for (long i = 1; i < n; ++i)
    if (coordinate_compare(&e->coordinates[i], &e->coordinates[least]) < 0) least = i;
  for (; least != 0; --least) {
    Coordinate first = e->coordinates[0];
    for (long j = 0; j < n - 1; ++j) e->coordinates[j] = e->coordinates[j + 1];
    e->coordinates[n - 1] = first;
  }
  Coordinate* c = e->coordinates;
  e->is_referenced = 0;
  e->is_skinny = 0;
  e->encroached_edge = nullptr;
  double min_angle = 180.0;
  if (n == 3) {
    for (long i = 0; i < 3; ++i) {
      double a = coordinate_angle(c[i], c[(i + 1) % 3], c[(i + 2) % 3]);
      if (a > 90.0) e->encroached_edge = &e->edges[(i + 1) % 3];
      if (a < angle) e->is_skinny = 1;
      if (a < min_angle) min_angle = a;
    }
  }
  e->min_angle = min_angle;
  if (n == 2) {
    e->circum_center.x = (c[0].x + c[1].x) / 2.0;
    e->circum_center.y = (c[0].y + c[1].y) / 2.0;
  } else {
    double ax = c[0].x, ay = c[0].y;
    double bx = c[1].x - ax, by = c[1].y - ay;
    double cx = c[2].x - ax, cy = c[2].y - ay;
    double b2 = (bx * bx) + (by * by);
    double c2 = (cx * cx) + (cy * cy);
    double x_numerator = (by * c2) - (cy * b2);
    double y_numerator = (bx * c2) - (cx * b2);
    double denominator = 2 * ((bx * cy) - (cx * by));
    e->circum_center.x = ax - (x_numerator / denominator);
    e->circum_center.y = ay + (y_numerator / denominator);
  }
  e->circum_radius = coordinate_distance(e->circum_center, c[0]);
  long edges = (n * (n - 1)) / 2;
  e->num_edge = edges;
  for (long i = 0; i < edges; ++i) {
    Coordinate* a = &c[i];
    Coordinate* b = &c[(i + 1) % n];
    if (coordinate_compare(a, b) < 0) e->edges[i] = Edge{a, b};
    else e->edges[i] = Edge{b, a};
    e->midpoints[i].x = (a->x + b->x) / 2.0;
    e->midpoints[i].y = (a->y + b->y) / 2.0;
    e->radii[i] = coordinate_distance(*a, e->midpoints[i]);
  }
}

// element_alloc / TMelement_alloc: a 256 B element and its neighbour list.
TM_SAFE inline Element* element_new(const Coordinate* coordinates, long n, double angle) {
  Element* e = static_cast<Element*>(malloc(sizeof(Element)));
  element_init(e, coordinates, n, angle);
  e->neighbors = ElementList::create();
  e->is_garbage = 0;
  e->is_referenced = 0;
  return e;
}

TM_SAFE inline void element_delete(Element* e) {
  ElementList::destroy(e->neighbors);
  free(e);
}

TM_SAFE inline bool element_is_bad(const Element* e) { return e->encroached_edge != nullptr || e->is_skinny; }

TM_SAFE inline bool element_in_circumcircle(const Element* e, Coordinate p) {
  return coordinate_distance(p, e->circum_center) <= e->circum_radius;
}

// The edge of a that b shares, or null.
TM_SAFE inline Edge* element_common_edge(Element* a, Element* b) {
  for (long i = 0; i < a->num_edge; ++i)
    for (long j = 0; j < b->num_edge; ++j)
      if (edge_compare(&a->edges[i], &b->edges[j]) == 0) return &a->edges[i];
  return nullptr;
}

// Where refining puts the new point: the encroached edge's midpoint, else the
// circumcentre.
TM_SAFE inline Coordinate element_new_point(Element* e) {
  if (Edge* encroached = e->encroached_edge) {
    for (long i = 0; i < e->num_edge; ++i)
      if (edge_compare(encroached, &e->edges[i]) == 0) return e->midpoints[i];
  }
  return e->circum_center;
}

// mesh_check's test: no angle under the bound.
inline bool element_angles_ok(const Element* e, double angle) {
  if (e->num_coordinate != 3) return true;
  const Coordinate* c = e->coordinates;
  for (long i = 0; i < 3; ++i)
    if (coordinate_angle(c[i], c[(i + 1) % 3], c[(i + 2) % 3]) < angle) return false;
  return true;
}

// The heap's order: encroached elements first, the rest "do not care".
TM_SAFE inline long element_heap_compare(const Element* a, const Element* b) {
  if (a->encroached_edge) return b->encroached_edge ? 0 : 1;
  return b->encroached_edge ? -1 : 0;
}

// ---- the edge map: jsw's AVL tree of pairs {edge, element} ----

struct Pair {
  void* first;
  void* second;
};

struct AvlNode {
  long balance;  // STAMP's balance factor; here the subtree's height
  Pair* data;
  AvlNode* link[2];
};

struct EdgeMap {
  AvlNode* root;
  void* compare_slot;  // STAMP keeps the compare function here
  long size;
};
static_assert(sizeof(Pair) == 16 && sizeof(AvlNode) == 32 && sizeof(EdgeMap) == 24, "STAMP's pair and AVL tree");

// Pairs of freed maps, which STAMP never frees, linked through their second
// word (nothing reads a freed map's pairs) and freed after the measured phase.
struct LeakedPairs {
  Pair* head;
};

TM_SAFE inline EdgeMap* map_new() {
  EdgeMap* m = static_cast<EdgeMap*>(malloc(sizeof(EdgeMap)));
  m->root = nullptr;
  m->compare_slot = nullptr;
  m->size = 0;
  return m;
}

TM_SAFE inline long map_order(const Pair* a, const Edge* key) { return edge_compare(static_cast<const Edge*>(a->first), key); }

TM_SAFE inline Pair* map_find(const EdgeMap* m, const Edge* key) {
  for (AvlNode* n = m->root; n;) {
    long c = map_order(n->data, key);
    if (c == 0) return n->data;
    n = n->link[c < 0];
  }
  return nullptr;
}

TM_SAFE inline long avl_height(const AvlNode* n) { return n ? n->balance : 0; }

TM_SAFE inline void avl_update(AvlNode* n) {
  long l = avl_height(n->link[0]), r = avl_height(n->link[1]);
  n->balance = (l > r ? l : r) + 1;
}

TM_SAFE inline AvlNode* avl_rotate(AvlNode* n, int dir) {  // dir 0: left child rises
  AvlNode* up = n->link[dir];
  n->link[dir] = up->link[!dir];
  up->link[!dir] = n;
  avl_update(n);
  avl_update(up);
  return up;
}

TM_SAFE inline AvlNode* avl_rebalance(AvlNode* n) {
  avl_update(n);
  long diff = avl_height(n->link[1]) - avl_height(n->link[0]);
  if (diff > 1 || diff < -1) {
    int dir = diff > 0;
    AvlNode* child = n->link[dir];
    if (avl_height(child->link[!dir]) > avl_height(child->link[dir])) n->link[dir] = avl_rotate(child, !dir);
    return avl_rotate(n, dir);
  }
  return n;
}

TM_SAFE AvlNode* avl_insert(AvlNode* n, AvlNode* fresh, const Edge* key) {
  if (!n) return fresh;
  int dir = map_order(n->data, key) < 0;
  n->link[dir] = avl_insert(n->link[dir], fresh, key);
  return avl_rebalance(n);
}

// Unlinks the least node of n's subtree into *least.
TM_SAFE AvlNode* avl_unlink_least(AvlNode* n, AvlNode** least) {
  if (!n->link[0]) {
    *least = n;
    return n->link[1];
  }
  n->link[0] = avl_unlink_least(n->link[0], least);
  return avl_rebalance(n);
}

// Erases key's node; as jsw's, a node with two children takes its
// successor's pair and the successor's node is the one freed.
TM_SAFE AvlNode* avl_erase(AvlNode* n, const Edge* key, bool* erased) {
  if (!n) return nullptr;
  long c = map_order(n->data, key);
  if (c != 0) {
    int dir = c < 0;
    n->link[dir] = avl_erase(n->link[dir], key, erased);
    return avl_rebalance(n);
  }
  *erased = true;
  if (!n->link[0] || !n->link[1]) {
    AvlNode* child = n->link[0] ? n->link[0] : n->link[1];
    free(n);
    return child;
  }
  AvlNode* successor;
  n->link[1] = avl_unlink_least(n->link[1], &successor);
  n->data = successor->data;
  free(successor);
  return avl_rebalance(n);
}

// MAP_INSERT: a pair and a node (jsw's insert takes duplicates; yada never
// inserts one).
TM_SAFE inline void map_insert(EdgeMap* m, Edge* key, Element* value) {
  Pair* p = static_cast<Pair*>(malloc(sizeof(Pair)));
  p->first = key;
  p->second = value;
  AvlNode* n = static_cast<AvlNode*>(malloc(sizeof(AvlNode)));
  n->balance = 1;
  n->data = p;
  n->link[0] = n->link[1] = nullptr;
  m->root = avl_insert(m->root, n, key);
  ++m->size;
}

// MAP_REMOVE: the node and its pair.
TM_SAFE inline bool map_remove(EdgeMap* m, const Edge* key) {
  Pair* p = map_find(m, key);
  bool erased = false;
  m->root = avl_erase(m->root, key, &erased);
  if (erased) free(p);
  --m->size;
  return erased;
}

TM_SAFE void avl_free_nodes(AvlNode* n, LeakedPairs* leaked) {
  while (n) {
    avl_free_nodes(n->link[0], leaked);
    AvlNode* right = n->link[1];
    n->data->second = leaked->head;
    leaked->head = n->data;
    free(n);
    n = right;
  }
}

// MAP_FREE: the nodes and the header; the pairs join `leaked`.
TM_SAFE inline void map_delete(EdgeMap* m, LeakedPairs* leaked) {
  avl_free_nodes(m->root, leaked);
  free(m);
}

inline void leaked_pairs_free(LeakedPairs* leaked) {
  for (Pair* p = leaked->head; p;) {
    Pair* next = static_cast<Pair*>(p->second);
    free(p);
    p = next;
  }
  leaked->head = nullptr;
}

// ---- the boundary set: STAMP's red-black tree of edges ----

struct EdgeKey {
  Edge* edge;
  TM_SAFE bool operator<(const EdgeKey& other) const { return edge_compare(edge, other.edge) < 0; }
};

// The header is STAMP's {root, comparison}: RbTree is the root.
struct BoundarySet {
  RbTree<EdgeKey, void*> tree;
  void* compare_slot;
};
static_assert(sizeof(BoundarySet) == 16, "STAMP's rbtree_t");

inline BoundarySet* boundary_new() {
  BoundarySet* s = static_cast<BoundarySet*>(malloc(sizeof(BoundarySet)));
  new (&s->tree) RbTree<EdgeKey, void*>();
  s->compare_slot = nullptr;
  return s;
}

inline void boundary_delete(BoundarySet* s) {
  s->tree.~RbTree();
  free(s);
}

// ---- the work heap (lib/heap.c), ordered by element_heap_compare ----

struct WorkHeap {
  void** elements;  // [1, size] used
  long size;
  long capacity;
  void* compare_slot;
};
static_assert(sizeof(WorkHeap) == 32, "STAMP's heap_t");

inline WorkHeap* heap_new(long capacity) {
  WorkHeap* h = static_cast<WorkHeap*>(malloc(sizeof(WorkHeap)));
  if (capacity < 1) capacity = 1;
  h->elements = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
  h->size = 0;
  h->capacity = capacity;
  h->compare_slot = nullptr;
  return h;
}

inline void heap_delete(WorkHeap* h) {
  free(h->elements);
  free(h);
}

TM_SAFE inline long heap_order(void* a, void* b) {
  return element_heap_compare(static_cast<Element*>(a), static_cast<Element*>(b));
}

TM_SAFE inline void heap_insert(WorkHeap* h, Element* e) {
  long size = h->size;
  if (size + 1 >= h->capacity) {
    long capacity = h->capacity * 2;
    void** grown = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
    h->capacity = capacity;
    for (long i = 0; i <= size; ++i) grown[i] = h->elements[i];
    free(h->elements);
    h->elements = grown;
  }
  size = ++h->size;
  void** elements = h->elements;
  elements[size] = e;
  for (long i = size; i > 1;) {  // sift up
    long parent = i / 2;
    void* above = elements[parent];
    void* here = elements[i];
    if (heap_order(above, here) >= 0) break;
    elements[parent] = here;
    elements[i] = above;
    i = parent;
  }
}

TM_SAFE inline Element* heap_remove(WorkHeap* h) {
  long size = h->size;
  if (size < 1) return nullptr;
  void** elements = h->elements;
  void* top = elements[1];
  elements[1] = elements[size];
  h->size = --size;
  for (long i = 1;;) {  // heapify
    long left = 2 * i, right = 2 * i + 1, max = i;
    if (left <= size && heap_order(elements[left], elements[i]) > 0) max = left;
    if (right <= size && heap_order(elements[right], elements[max]) > 0) max = right;
    if (max == i) break;
    void* t = elements[i];
    elements[i] = elements[max];
    elements[max] = t;
    i = max;
  }
  return static_cast<Element*>(top);
}
