// yada_mesh.h — STAMP's yada mesh (yada/mesh.c) with its exact blocks: a
// 32 B header with the queue of initially bad elements and the boundary set;
// inserting an element matches its edges through an edge map (neighbours
// found, their list nodes allocated), removing one unlinks it from its
// neighbours; and the reading of Triangle's .node, .poly and .ele files as
// STAMP reads them (fopen, fgets into a 256-byte line, sscanf; one block of
// coordinates). Include inside a TM build's namespace, after yada_lib.h and
// <cstdio>.
#pragma once

// The angle bound (STAMP's global_angleConstraint), set before any element
// is made.
double g_angle = 20.0;

struct Mesh {
  Element* root;  // any element: where mesh_check starts
  PtrQueue* initial_bad;
  long size;
  BoundarySet* boundary;
};

static_assert(sizeof(Mesh) == 32, "STAMP's mesh_t");

// What a thread leaves that STAMP never frees, kept apart from the other
// threads' (a cache line each, so ml_wt's stripes do not join them).
struct alignas(64) Leaks {
  LeakedPairs pairs;
  Element* removed;  // elements taken out of the mesh, through leaked_next
};

Mesh* mesh_new() {
  Mesh* m = static_cast<Mesh*>(malloc(sizeof(Mesh)));
  m->root = nullptr;
  m->initial_bad = queue_new(-1);
  m->size = 0;
  m->boundary = boundary_new();
  return m;
}

TM_SAFE void add_neighbour(Element* e, Element* neighbour) { e->neighbors->insert(neighbour); }

// Records the element's edges: a new edge goes into the map; an edge found
// there makes the two elements neighbours and stays marked shared. An
// encroached edge that is no boundary segment is not encroached after all.
TM_SAFE void mesh_insert(Mesh* m, Element* e, EdgeMap* edges) {
  if (!m->root) m->root = e;
  for (long i = 0; i < e->num_edge; ++i) {
    Edge* edge = &e->edges[i];
    Pair* found = map_find(edges, edge);
    if (!found) {
      map_insert(edges, edge, e);
    } else {
      Element* sharer = static_cast<Element*>(found->second);
      add_neighbour(e, sharer);
      add_neighbour(sharer, e);
      map_remove(edges, edge);
      map_insert(edges, edge, nullptr);
    }
  }
  if (Edge* encroached = e->encroached_edge)
    if (!m->boundary->tree.contains(EdgeKey{encroached})) e->encroached_edge = nullptr;
}

// Unlinks the element from its neighbours and marks it garbage. STAMP would
// free it here unless something still refers to it (the heap, a bad vector),
// and the holder later, but its TMELEMENT_FREE and PELEMENT_FREE are
// commented out: no element, its list or its nodes is ever freed. The
// element joins `leaks`, freed after the measured phase.
TM_SAFE void mesh_remove(Mesh* m, Element* e, Leaks* leaks) {
  if (m->root == e) m->root = nullptr;
  for (ElementList::Node* n = e->neighbors->head.next; n; n = n->next) n->data->neighbors->remove(e);
  e->is_garbage = 1;
  e->leaked_next = leaks->removed;
  leaks->removed = e;
}

void create_element(Mesh* m, const Coordinate* coordinates, long n, EdgeMap* edges) {
  Element* e = element_new(coordinates, n, g_angle);
  if (n == 2) m->boundary->tree.insert(EdgeKey{&e->edges[0]}, nullptr);
  mesh_insert(m, e, edges);
  if (element_is_bad(e)) queue_push(m->initial_bad, e);
}

[[noreturn]] void input_error(const char* file, const char* what) {
  std::fprintf(stderr, "stamp yada: %s: %s\n", file, what);
  std::exit(1);
}

// mesh_read: the .node file's coordinates (one block), the .poly file's
// segments and the .ele file's triangles, each through a 256-byte line buffer.
long mesh_read(Mesh* m, const char* prefix, Leaks* leaks) {
  char name[256];
  char line[256];
  long entries = 0, dimensions = 0, elements = 0;
  EdgeMap* edges = map_new();

  std::snprintf(name, sizeof name, "%s.node", prefix);
  FILE* file = std::fopen(name, "r");
  if (!file) input_error(name, "cannot open");
  if (!std::fgets(line, sizeof line, file) || std::sscanf(line, "%li %li", &entries, &dimensions) != 2 ||
      dimensions != 2 || entries < 3)
    input_error(name, "not a 2-D .node header");
  const long num_coordinates = entries + 1;  // numbering may start at 1
  Coordinate* coordinates = static_cast<Coordinate*>(malloc(size_t(num_coordinates) * sizeof(Coordinate)));
  long i = 0;
  for (; i < entries; ++i) {
    if (!std::fgets(line, sizeof line, file)) break;
    if (line[0] == '#') continue;
    long id;
    double x, y;
    if (std::sscanf(line, "%li %lf %lf", &id, &x, &y) != 3 || id < 0 || id >= num_coordinates)
      input_error(name, "bad vertex");
    coordinates[id] = Coordinate{x, y};
  }
  if (i != entries) input_error(name, "too few vertices");
  std::fclose(file);

  std::snprintf(name, sizeof name, "%s.poly", prefix);
  file = std::fopen(name, "r");
  if (!file) input_error(name, "cannot open");
  if (!std::fgets(line, sizeof line, file) || std::sscanf(line, "%li %li", &entries, &dimensions) != 2 ||
      entries != 0 || dimensions != 2)
    input_error(name, "not a .poly header with the vertices in .node");
  if (!std::fgets(line, sizeof line, file) || std::sscanf(line, "%li", &entries) != 1) input_error(name, "no segments");
  for (i = 0; i < entries; ++i) {
    if (!std::fgets(line, sizeof line, file)) break;
    if (line[0] == '#') continue;
    long id, a, b;
    if (std::sscanf(line, "%li %li %li", &id, &a, &b) != 3 || a < 0 || a >= num_coordinates || b < 0 ||
        b >= num_coordinates)
      input_error(name, "bad segment");
    Coordinate ends[2] = {coordinates[a], coordinates[b]};
    create_element(m, ends, 2, edges);
  }
  if (i != entries) input_error(name, "too few segments");
  elements += entries;
  std::fclose(file);

  std::snprintf(name, sizeof name, "%s.ele", prefix);
  file = std::fopen(name, "r");
  if (!file) input_error(name, "cannot open");
  if (!std::fgets(line, sizeof line, file) || std::sscanf(line, "%li %li", &entries, &dimensions) != 2 ||
      dimensions != 3)
    input_error(name, "not a .ele header of triangles");
  for (i = 0; i < entries; ++i) {
    if (!std::fgets(line, sizeof line, file)) break;
    if (line[0] == '#') continue;
    long id, a, b, c;
    if (std::sscanf(line, "%li %li %li %li", &id, &a, &b, &c) != 4 || a < 0 || a >= num_coordinates || b < 0 ||
        b >= num_coordinates || c < 0 || c >= num_coordinates)
      input_error(name, "bad triangle");
    Coordinate corners[3] = {coordinates[a], coordinates[b], coordinates[c]};
    create_element(m, corners, 3, edges);
  }
  if (i != entries) input_error(name, "too few triangles");
  elements += entries;
  std::fclose(file);

  free(coordinates);
  map_delete(edges, &leaks->pairs);
  return elements;
}
