// stamp_containers.h — STAMP's vector and queue of pointers (lib/vector.c,
// lib/queue.c) with their exact blocks: a 24-byte vector header and an
// element array that doubles when full; a 32-byte circular queue header and an
// element array that doubles when a push would fill it (the elements moved in
// order). Plain malloc/free, so each block is the struct's size; the TM_SAFE
// ones run inside transactions. Include inside a TM build's namespace (after
// tm.h and <cstdlib>).
#pragma once

// ---- vector of pointers: {size, capacity, elements} ----

struct PtrVector {
  long size;
  long capacity;
  void** elements;
};
static_assert(sizeof(PtrVector) == 24, "STAMP's vector_t");

TM_SAFE inline PtrVector* vector_new(long capacity) {
  if (capacity < 1) capacity = 1;
  PtrVector* v = static_cast<PtrVector*>(malloc(sizeof(PtrVector)));
  v->size = 0;
  v->capacity = capacity;
  v->elements = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
  return v;
}

TM_SAFE inline void vector_delete(PtrVector* v) {
  free(v->elements);
  free(v);
}

// Appends; a full array is replaced by one twice as long.
TM_SAFE inline void vector_push(PtrVector* v, void* item) {
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

// Makes dst hold src's elements; a dst too short gets an array of src's
// capacity (STAMP's vector_copy).
TM_SAFE inline void vector_copy(PtrVector* dst, const PtrVector* src) {
  if (dst->capacity < src->size) {
    void** elements = static_cast<void**>(malloc(size_t(src->capacity) * sizeof(void*)));
    free(dst->elements);
    dst->elements = elements;
    dst->capacity = src->capacity;
  }
  for (long i = 0; i < src->size; ++i) dst->elements[i] = src->elements[i];
  dst->size = src->size;
}

// ---- circular queue of pointers: {pop, push, capacity, elements} ----
// `pop` is the slot before the next element out. A push that would make
// `push` meet `pop` first moves the elements, in order, into an array twice as
// long (queue_grow); queue_put is the push itself, given room.

struct PtrQueue {
  long pop;
  long push;
  long capacity;
  void** elements;
};
static_assert(sizeof(PtrQueue) == 32, "STAMP's queue_t");

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

TM_SAFE inline void queue_clear(PtrQueue* q) {
  q->pop = q->capacity - 1;
  q->push = 0;
}

TM_SAFE inline bool queue_empty(const PtrQueue* q) { return (q->pop + 1) % q->capacity == q->push; }

TM_SAFE inline bool queue_has_room(const PtrQueue* q) { return (q->push + 1) % q->capacity != q->pop; }

TM_SAFE inline void queue_grow(PtrQueue* q) {
  long capacity = q->capacity * 2;
  void** grown = static_cast<void**>(malloc(size_t(capacity) * sizeof(void*)));
  long n = 0;
  if (q->pop < q->push) {
    for (long i = q->pop + 1; i < q->push; ++i) grown[n++] = q->elements[i];
  } else {
    for (long i = q->pop + 1; i < q->capacity; ++i) grown[n++] = q->elements[i];
    for (long i = 0; i < q->push; ++i) grown[n++] = q->elements[i];
  }
  free(q->elements);
  q->elements = grown;
  q->pop = capacity - 1;
  q->push = n;
  q->capacity = capacity;
}

TM_SAFE inline void queue_put(PtrQueue* q, void* item) {
  q->elements[q->push] = item;
  q->push = (q->push + 1) % q->capacity;
}

TM_SAFE inline void queue_push(PtrQueue* q, void* item) {
  if (!queue_has_room(q)) queue_grow(q);
  queue_put(q, item);
}

// The next element out, or null when empty.
TM_SAFE inline void* queue_pop(PtrQueue* q) {
  long next = (q->pop + 1) % q->capacity;
  if (next == q->push) return nullptr;
  void* item = q->elements[next];
  q->pop = next;
  return item;
}

// As many random swaps as there are items, each of two uniformly drawn positions.
template <typename Rng>
inline void queue_shuffle(PtrQueue* q, Rng& rng) {
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
