// intruder_lib.h — the containers intruder allocates through, with the block
// sizes of the ones STAMP's intruder uses (x86_64): a pointer vector (a 24-byte
// header and an element array that doubles), a circular pointer queue (a
// 32-byte header and an element array that doubles when full), and a list of
// packets ordered by fragment number (a 32-byte header with its head node
// inside, one 16-byte node per packet). Plain C-style blocks from malloc, so
// their sizes are exactly the structs'.
//
// Included inside a TM build's namespace (after rb_tree.h, <cstdlib> and
// <random>): what runs inside transactions is compiled for that build.
#pragma once

// ---- the packet: a 32-byte header followed by its bytes, one block each ----

struct Packet {
  long flow;
  long fragment;
  long fragments;
  long length;  // bytes after the header
};
static_assert(sizeof(Packet) == 32, "a packet header is four longs");

inline char* packet_data(Packet* p) { return reinterpret_cast<char*>(p + 1); }
inline const char* packet_data(const Packet* p) { return reinterpret_cast<const char*>(p + 1); }

// ---- vector of pointers: {size, capacity, elements} ----

struct PtrVector {
  long size;
  long capacity;
  void** elements;
};
static_assert(sizeof(PtrVector) == 24, "vector header");

inline PtrVector* vector_new(long capacity) {
  if (capacity < 1) capacity = 1;
  PtrVector* v = static_cast<PtrVector*>(malloc(sizeof(PtrVector)));
  v->size = 0;
  v->capacity = capacity;
  v->elements = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
  return v;
}

inline void vector_delete(PtrVector* v) {
  free(v->elements);
  free(v);
}

// Appends; a full array is replaced by one twice as long.
inline void vector_push(PtrVector* v, void* item) {
  if (v->size == v->capacity) {
    long capacity = v->capacity * 2;
    void** grown = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
    for (long i = 0; i < v->size; ++i) grown[i] = v->elements[i];
    free(v->elements);
    v->elements = grown;
    v->capacity = capacity;
  }
  v->elements[v->size++] = item;
}

// ---- circular queue of pointers: {pop, push, capacity, elements} ----
// `pop` is the slot before the next item; the queue is full when one more push
// would meet it, and then the items move in order into an array twice as long.

struct PtrQueue {
  long pop;
  long push;
  long capacity;
  void** elements;
};
static_assert(sizeof(PtrQueue) == 32, "queue header");

inline PtrQueue* queue_new(long capacity) {
  if (capacity < 2) capacity = 2;
  PtrQueue* q = static_cast<PtrQueue*>(malloc(sizeof(PtrQueue)));
  q->elements = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
  q->pop = capacity - 1;
  q->push = 0;
  q->capacity = capacity;
  return q;
}

inline void queue_delete(PtrQueue* q) {
  free(q->elements);
  free(q);
}

inline bool queue_empty(const PtrQueue* q) { return (q->pop + 1) % q->capacity == q->push; }

// Called inside transactions (the decoded-flow queue).
inline void queue_push(PtrQueue* q, void* item) {
  long pop = q->pop, push = q->push, capacity = q->capacity;
  long next = (push + 1) % capacity;
  if (next == pop) {
    long grown_capacity = capacity * 2;
    void** grown = static_cast<void**>(malloc(size_t(grown_capacity) * sizeof(void*)));
    void** old = q->elements;
    long n = 0;
    if (pop < push) {
      for (long i = pop + 1; i < push; ++i) grown[n++] = old[i];
    } else {
      for (long i = pop + 1; i < capacity; ++i) grown[n++] = old[i];
      for (long i = 0; i < push; ++i) grown[n++] = old[i];
    }
    free(old);
    q->elements = grown;
    q->pop = grown_capacity - 1;
    q->capacity = grown_capacity;
    push = n;
    next = n + 1;
  }
  q->elements[push] = item;
  q->push = next;
}

// The oldest item, or null when empty. Called inside transactions.
inline void* queue_pop(PtrQueue* q) {
  long next = (q->pop + 1) % q->capacity;
  if (next == q->push) return nullptr;
  void* item = q->elements[next];
  q->pop = next;
  return item;
}

// As many random swaps as there are items, each of two uniformly drawn positions.
inline void queue_shuffle(PtrQueue* q, std::mt19937& rng) {
  long pop = q->pop, push = q->push, capacity = q->capacity;
  long n = pop < push ? push - (pop + 1) : capacity - (pop - push + 1);
  long base = pop + 1;
  for (long i = 0; i < n; ++i) {
    long a = long(rng() % uint64_t(n));
    long b = long(rng() % uint64_t(n));
    void*& x = q->elements[(base + a) % capacity];
    void*& y = q->elements[(base + b) % capacity];
    void* t = x;
    x = y;
    y = t;
  }
}

// ---- a flow's fragments, ordered by fragment number ----
// The header embeds the head node; its `order` word is the comparison the list
// sorts by (always fragment_order here).

using FragmentOrder = long (*)(const Packet*, const Packet*);

inline long fragment_order(const Packet* a, const Packet* b) { return a->fragment - b->fragment; }

struct FragmentNode {
  const Packet* packet;
  FragmentNode* next;
};
static_assert(sizeof(FragmentNode) == 16, "list node");

struct FragmentList {
  FragmentNode head;  // head.next is the first fragment
  FragmentOrder order;
  long size;
};
static_assert(sizeof(FragmentList) == 32, "list header");

// All three are called inside transactions.
inline FragmentList* fragment_list_new() {
  FragmentList* list = static_cast<FragmentList*>(malloc(sizeof(FragmentList)));
  list->head.packet = nullptr;
  list->head.next = nullptr;
  list->order = &fragment_order;
  list->size = 0;
  return list;
}

// Before the first fragment numbered at least p's, as a walk from the head.
inline void fragment_list_insert(FragmentList* list, const Packet* p) {
  FragmentNode* before = &list->head;
  for (FragmentNode* n = before->next; n && fragment_order(n->packet, p) < 0; n = n->next) before = n;
  FragmentNode* node = static_cast<FragmentNode*>(malloc(sizeof(FragmentNode)));
  node->packet = p;
  node->next = before->next;
  before->next = node;
  list->size = list->size + 1;
}

// The nodes last to first (as STAMP's recursive free), then the header.
inline void fragment_nodes_delete(FragmentNode* n) {
  if (!n) return;
  fragment_nodes_delete(n->next);
  free(n);
}

inline void fragment_list_delete(FragmentList* list) {
  fragment_nodes_delete(list->head.next);
  free(list);
}

// ---- a map keyed by flow number: a red-black tree, one 48-byte node per key ----
// The header is STAMP's {root, comparison}: RbTree is the root; the second word
// is the comparison slot, which RbTree does not need (it orders longs itself).

template <typename Value>
struct FlowMap {
  RbTree<long, Value> tree;
  void* comparison = nullptr;
};
static_assert(sizeof(FlowMap<void*>) == 16, "map header");
