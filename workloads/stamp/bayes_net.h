// bayes_net.h — the Bayesian network bayes learns and generates its data
// from, with the blocks of STAMP's bayes/net.c and lib/bitmap.c:
//   Net      8 B   a pointer to a vector of nodes (24 B + 8 B per node)
//   NetNode 32 B   id, a parent-id list, a child-id list (32 B headers each,
//                  a 16 B node per edge end), a mark for the cycle check
//   Bitmap  24 B   bit count, word count, words (8 B each)
// Edges are inserted and removed inside transactions by the learner (the list
// nodes are its transactional allocations); the breadth-first searches read
// the shared lists through the TM and use the caller's own bitmap and queue,
// as STAMP's TMnet_isPath does. Include inside the build's namespace after
// stamp_containers.h and stamp_list.h.
#pragma once

// ---- one thread's own blocks inside a transaction (STAMP's P_MALLOC) ----
// In the stm build the operations on them run uninstrumented (TM_PURE), as in
// STAMP's TM builds, so their mallocs are plain ones libitm does not log, and
// memprof would take a plain malloc inside a transaction for libitm's own.
// Inside a transaction such an operation is marked as the transaction's, which
// is how the seq and lock builds (and STAMP's sequential build, marked at
// TM_BEGIN/TM_END) count these blocks too. No abort can fall between the mark
// and its end: nothing between them is instrumented.
#if defined(ALLOCSTAMP_TM_STM)
extern "C" int _ITM_inTransaction(void);
class PrivateBlocks {
 public:
  PrivateBlocks() : marked_(_ITM_inTransaction() != 0) {
    if (marked_) ::memprof::tx_begin();
  }
  ~PrivateBlocks() {
    if (marked_) ::memprof::tx_end();
  }
  PrivateBlocks(const PrivateBlocks&) = delete;
  PrivateBlocks& operator=(const PrivateBlocks&) = delete;

 private:
  bool marked_;
};
#else
struct PrivateBlocks {
  PrivateBlocks() {}  // nothing to mark: a transaction is marked as a whole
};
#endif

// ---- bitmap (lib/bitmap.c) ----
// Every bitmap and queue here is one thread's (STAMP's PBITMAP_*, PQUEUE_*).

struct Bitmap {
  long num_bits;
  long num_words;
  unsigned long* bits;
};
static_assert(sizeof(Bitmap) == 24, "STAMP's bitmap_t");

inline Bitmap* bitmap_new(long num_bits) {
  Bitmap* b = static_cast<Bitmap*>(malloc(sizeof(Bitmap)));
  b->num_bits = num_bits;
  b->num_words = (num_bits + 63) / 64;
  b->bits = static_cast<unsigned long*>(malloc(size_t(b->num_words) * sizeof(unsigned long)));
  for (long i = 0; i < b->num_words; ++i) b->bits[i] = 0;
  return b;
}

inline void bitmap_delete(Bitmap* b) {
  free(b->bits);
  free(b);
}

TM_PURE inline void bitmap_clear_all(Bitmap* b) {
  for (long i = 0; i < b->num_words; ++i) b->bits[i] = 0;
}

TM_PURE inline void bitmap_set(Bitmap* b, long i) {
  if (i >= 0 && i < b->num_bits) b->bits[i / 64] |= 1ul << (i % 64);
}

TM_PURE inline bool bitmap_is_set(const Bitmap* b, long i) {
  return i >= 0 && i < b->num_bits && (b->bits[i / 64] >> (i % 64)) & 1ul;
}

// The first clear bit at or after `from`, or -1.
TM_PURE inline long bitmap_find_clear(const Bitmap* b, long from) {
  for (long i = from < 0 ? 0 : from; i < b->num_bits; ++i)
    if (!((b->bits[i / 64] >> (i % 64)) & 1ul)) return i;
  return -1;
}

TM_PURE inline void pqueue_clear(PtrQueue* q) { queue_clear(q); }
TM_PURE inline void pqueue_push(PtrQueue* q, void* item) {
  PrivateBlocks mark;
  queue_push(q, item);
}
TM_PURE inline bool pqueue_empty(const PtrQueue* q) { return queue_empty(q); }
TM_PURE inline void* pqueue_pop(PtrQueue* q) { return queue_pop(q); }

// ---- the network (bayes/net.c) ----

// Ids are stored in the lists' data pointers, ordered by value, as STAMP's
// compareId does.
struct IdOrder {
  TM_SAFE static long compare(const void* a, const void* b) { return long(a) - long(b); }
};
using IdList = StampList<void, IdOrder>;

TM_SAFE inline void* id_item(long id) { return reinterpret_cast<void*>(id); }
TM_SAFE inline long item_id(const void* item) { return reinterpret_cast<long>(item); }

enum NetMark : int { kMarkInit = 0, kMarkDone = 1, kMarkTest = 2 };

struct NetNode {
  long id;
  IdList* parents;
  IdList* children;
  NetMark mark;
};
static_assert(sizeof(NetNode) == 32 && sizeof(IdList) == 32, "STAMP's net_node_t and list_t");

struct Net {
  PtrVector* nodes;
};

enum Operation : int { kInsert = 0, kRemove = 1, kReverse = 2, kNumOperation = 3 };

inline Net* net_new(long num_nodes) {
  Net* net = static_cast<Net*>(malloc(sizeof(Net)));
  PtrVector* nodes = vector_new(num_nodes);
  for (long i = 0; i < num_nodes; ++i) {
    NetNode* node = static_cast<NetNode*>(malloc(sizeof(NetNode)));
    node->parents = IdList::create();
    node->children = IdList::create();
    node->id = i;
    vector_push(nodes, node);
  }
  net->nodes = nodes;
  return net;
}

inline void net_delete(Net* net) {
  for (long i = 0; i < net->nodes->size; ++i) {
    NetNode* node = static_cast<NetNode*>(net->nodes->elements[i]);
    IdList::destroy(node->children);
    IdList::destroy(node->parents);
    free(node);
  }
  vector_delete(net->nodes);
  free(net);
}

TM_SAFE inline NetNode* net_node(const Net* net, long id) { return static_cast<NetNode*>(net->nodes->elements[id]); }
TM_SAFE inline IdList* net_parents(const Net* net, long id) { return net_node(net, id)->parents; }
TM_SAFE inline IdList* net_children(const Net* net, long id) { return net_node(net, id)->children; }

TM_SAFE inline void net_insert_edge(Net* net, long from, long to) {
  net_parents(net, to)->insert(id_item(from));
  net_children(net, from)->insert(id_item(to));
}

TM_SAFE inline void net_remove_edge(Net* net, long from, long to) {
  net_parents(net, to)->remove(id_item(from));
  net_children(net, from)->remove(id_item(to));
}

TM_SAFE inline void net_apply(Net* net, Operation op, long from, long to) {
  switch (op) {
    case kInsert: net_insert_edge(net, from, to); break;
    case kRemove: net_remove_edge(net, from, to); break;
    case kReverse:
      net_remove_edge(net, from, to);
      net_insert_edge(net, to, from);
      break;
    default: break;
  }
}

TM_SAFE inline bool net_has_edge(const Net* net, long from, long to) {
  for (IdList::Node* n = net_parents(net, to)->head.next; n; n = n->next)
    if (item_id(n->data) == from) return true;
  return false;
}

// Whether `to` is reachable from `from` along child edges (breadth first).
TM_SAFE inline bool net_is_path(const Net* net, long from, long to, Bitmap* visited, PtrQueue* work) {
  bitmap_clear_all(visited);
  pqueue_clear(work);
  pqueue_push(work, id_item(from));
  while (!pqueue_empty(work)) {
    long id = item_id(pqueue_pop(work));
    if (id == to) {
      pqueue_clear(work);
      return true;
    }
    bitmap_set(visited, id);
    for (IdList::Node* n = net_children(net, id)->head.next; n; n = n->next) {
      long child = item_id(n->data);
      if (!bitmap_is_set(visited, child)) pqueue_push(work, id_item(child));
    }
  }
  return false;
}

// Marks every descendant of `id` in `found`; false if `id` is its own.
TM_SAFE inline bool net_find_descendants(const Net* net, long id, Bitmap* found, PtrQueue* work) {
  bitmap_clear_all(found);
  pqueue_clear(work);
  for (IdList::Node* n = net_children(net, id)->head.next; n; n = n->next) {
    long child = item_id(n->data);
    bitmap_set(found, child);
    pqueue_push(work, id_item(child));
  }
  while (!pqueue_empty(work)) {
    long child = item_id(pqueue_pop(work));
    if (child == id) {
      pqueue_clear(work);
      return false;
    }
    for (IdList::Node* n = net_children(net, child)->head.next; n; n = n->next) {
      long grandchild = item_id(n->data);
      if (!bitmap_is_set(found, grandchild)) {
        bitmap_set(found, grandchild);
        pqueue_push(work, id_item(grandchild));
      }
    }
  }
  return true;
}

// STAMP's random network: for each node, maxNumParent draws of whether to add
// a parent (percentParent in 100) and which; one that would repeat an edge or
// close a cycle is dropped.
template <typename Rng>
void net_generate_random_edges(Net* net, long max_num_parent, long percent_parent, Rng& random) {
  const long num_nodes = net->nodes->size;
  Bitmap* visited = bitmap_new(num_nodes);
  PtrQueue* work = queue_new(-1);
  for (long n = 0; n < num_nodes; ++n) {
    for (long p = 0; p < max_num_parent; ++p) {
      long value = long(random() % 100ul);
      if (value < percent_parent) {
        long parent = long(random() % (unsigned long)num_nodes);
        if (parent != n && !net_has_edge(net, parent, n) && !net_is_path(net, n, parent, visited, work))
          net_insert_edge(net, parent, n);
      }
    }
  }
  bitmap_delete(visited);
  queue_delete(work);
}

// Depth first from `node`: true if it reaches a node still under test.
inline bool net_reaches_cycle(const Net* net, NetNode* node) {
  if (node->mark == kMarkTest) return true;
  if (node->mark == kMarkDone) return false;
  node->mark = kMarkTest;
  for (IdList::Node* n = node->children->head.next; n; n = n->next)
    if (net_reaches_cycle(net, net_node(net, item_id(n->data)))) return true;
  node->mark = kMarkDone;
  return false;
}

inline bool net_is_cycle(const Net* net) {
  for (long i = 0; i < net->nodes->size; ++i) net_node(net, i)->mark = kMarkInit;
  for (long i = 0; i < net->nodes->size; ++i)
    if (net_node(net, i)->mark == kMarkInit && net_reaches_cycle(net, net_node(net, i))) return true;
  return false;
}
