// bayes_adtree.h — the AD-tree (all-dimensions tree) bayes counts records
// with, as STAMP's bayes/adtree.c builds and queries it:
//   AdTree 24 B    variable and record counts, the root
//   AdNode 32 B    a variable, its value, a count, and a vector (24 B + a
//                  doubling element array) of one AdVary per later variable
//   AdVary 32 B    a variable, its most common value, and a node for each
//                  other value (the most common one is not stored)
// Built once, outside transactions, from records sorted as it goes. A count
// for a query whose value is a most common one is derived as (count without
// that query) − (count with it inverted): each derivation allocates and frees
// a vector of the other queries (24 B + 8 B per query): inside the learner's
// transactions when it counts there, as thread-private blocks (STAMP's
// PVECTOR_ALLOC; bayes_learner.h calls the counting uninstrumented). Include
// inside the build's namespace after bayes_data.h.
#pragma once

// A query: variable `index` has `value` (0, 1, or kWildcard).
struct Query {
  long index;
  long value;
};
constexpr long kWildcard = -1;

struct AdNode;

struct AdVary {
  long index;
  long most_common;
  AdNode* zero;
  AdNode* one;
};

struct AdNode {
  long index;
  long value;
  long count;
  PtrVector* varies;
};

struct AdTree {
  long num_var;
  long num_record;
  AdNode* root;
};
static_assert(sizeof(AdVary) == 32 && sizeof(AdNode) == 32 && sizeof(AdTree) == 24,
              "STAMP's adtree_vary_t, adtree_node_t and adtree_t");

inline AdTree* adtree_new() {
  AdTree* t = static_cast<AdTree*>(malloc(sizeof(AdTree)));
  t->num_var = -1;
  t->num_record = -1;
  t->root = nullptr;
  return t;
}

inline void adtree_free_nodes(AdNode* node) {
  if (!node) return;
  for (long v = 0; v < node->varies->size; ++v) {
    AdVary* vary = static_cast<AdVary*>(node->varies->elements[v]);
    adtree_free_nodes(vary->zero);
    adtree_free_nodes(vary->one);
    free(vary);
  }
  vector_delete(node->varies);
  free(node);
}

inline void adtree_delete(AdTree* t) {
  adtree_free_nodes(t->root);
  free(t);
}

inline AdNode* adtree_make_node(long parent_index, long index, long start, long num_record, Data* d);

// The split of records [start, start + num_record) on variable `index`; the
// records come sorted there unless `index` follows the parent's variable.
inline AdVary* adtree_make_vary(long parent_index, long index, long start, long num_record, Data* d) {
  AdVary* vary = static_cast<AdVary*>(malloc(sizeof(AdVary)));
  vary->index = index;
  vary->most_common = -1;
  vary->zero = nullptr;
  vary->one = nullptr;
  if (parent_index + 1 != index && num_record > 1) data_sort(d, start, num_record, index);
  long num0 = data_find_split(d, start, num_record, index);
  long num1 = num_record - num0;
  vary->most_common = num0 >= num1 ? 0 : 1;
  if (num0 != 0 && vary->most_common != 0) {
    vary->zero = adtree_make_node(index, index, start, num0, d);
    vary->zero->value = 0;
  }
  if (num1 != 0 && vary->most_common != 1) {
    vary->one = adtree_make_node(index, index, start + num0, num1, d);
    vary->one->value = 1;
  }
  return vary;
}

inline AdNode* adtree_make_node(long parent_index, long index, long start, long num_record, Data* d) {
  AdNode* node = static_cast<AdNode*>(malloc(sizeof(AdNode)));
  node->varies = vector_new(1);
  node->index = index;
  node->value = -1;
  node->count = num_record;
  for (long v = index + 1; v < d->num_var; ++v)
    vector_push(node->varies, adtree_make_vary(parent_index, v, start, num_record, d));
  return node;
}

inline void adtree_make(AdTree* t, Data* d) {
  t->num_var = d->num_var;
  t->num_record = d->num_record;
  data_sort(d, 0, d->num_record, 0);
  t->root = adtree_make_node(-1, -1, 0, d->num_record, d);
}

inline long adtree_count(const AdTree* t, PtrVector* queries);

// STAMP asserts a wildcard never reaches a count: the learner never asks one.
[[noreturn]] inline void adtree_wildcard_counted() { std::abort(); }

// Records matching queries [q, end) under `node`, queries sorted by variable.
inline long adtree_count_at(const AdTree* t, const AdNode* node, long q, PtrVector* queries,
                                    long last_index) {
  if (!node) return 0;
  if (node->index >= last_index) return node->count;
  if (q < 0 || q >= queries->size) return node->count;
  Query* query = static_cast<Query*>(queries->elements[q]);
  const AdVary* vary = static_cast<AdVary*>(node->varies->elements[query->index - node->index - 1]);
  const long value = query->value;
  if (value == vary->most_common) {
    PtrVector* others = vector_new(queries->size - 1);
    for (long i = 0; i < queries->size; ++i)
      if (i != q) vector_push(others, queries->elements[i]);
    long super_count = adtree_count(t, others);
    vector_delete(others);
    query->value = value == 0 ? 1 : 0;
    long invert_count = adtree_count_at(t, node, q, queries, last_index);
    query->value = value;
    return super_count - invert_count;
  }
  if (value == 0) return adtree_count_at(t, vary->zero, q + 1, queries, last_index);
  if (value == 1) return adtree_count_at(t, vary->one, q + 1, queries, last_index);
  adtree_wildcard_counted();
}

// Records matching every query (sorted by variable).
inline long adtree_count(const AdTree* t, PtrVector* queries) {
  if (!t->root) return 0;
  long last_index = -1;
  if (queries->size > 0) last_index = static_cast<Query*>(queries->elements[queries->size - 1])->index;
  return adtree_count_at(t, t->root, 0, queries, last_index);
}
