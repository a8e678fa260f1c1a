// bayes_learner.h — the learner's state and scoring, as STAMP's
// bayes/learner.c keeps and computes them:
//   Learner 336 B  fields padded to cache lines (adtree, net, local
//                  log-likelihoods: 4 B per variable, the total, the tasks:
//                  32 B per variable, the task list: a 32 B header, and the
//                  count of parents)
//   Task     32 B  an operation on an edge and its score; the sorted task
//                  list holds at most one per variable (16 B list nodes,
//                  inserted and removed inside transactions)
// The log-likelihood of a variable given its parents sums, over every value
// combination, count(values) / records * log(count / parent count), the counts
// from the AD-tree. The search for a variable's best next operation (insert a
// parent, remove one, reverse one) runs inside a transaction in STAMP, so its
// query vectors grow, and the AD-tree's derived counts allocate, there. They
// are STAMP's P_* operations, on one thread's blocks: in the stm build they
// run uninstrumented (TM_PURE), as in STAMP's TM builds, where P_MALLOC is a
// plain malloc, and every build counts them inside the transaction
// (PrivateBlocks, bayes_net.h). Where STAMP's code has quirks that decide what
// is computed (a parent skipped by position compared with an id, a stale
// vector sorted, a float-typed id, the running total's sign), they are kept,
// so the learned network and every count are STAMP's. Include inside the
// build's namespace after bayes_adtree.h.
#pragma once

struct Task {
  Operation op;
  long from;
  long to;
  float score;
};
static_assert(sizeof(Task) == 32, "STAMP's learner_task_t");

// Best score first, then by variable (STAMP's compareTask).
struct TaskOrder {
  TM_SAFE static long compare(const Task* a, const Task* b) {
    if (a->score < b->score) return 1;
    if (a->score > b->score) return -1;
    return a->to - b->to;
  }
};
using TaskList = StampList<Task, TaskOrder>;

constexpr size_t kCacheLine = 64;

struct Learner {
  AdTree* adtree;
  Net* net;
  float* local_base_log_likelihoods;
  char pad1[kCacheLine - sizeof(float*)];
  float base_log_likelihood;
  char pad2[kCacheLine - sizeof(float)];
  Task* tasks;
  char pad3[kCacheLine - sizeof(Task*)];
  TaskList* task_list;
  char pad4[kCacheLine - sizeof(TaskList*)];
  long num_total_parent;
  char pad5[kCacheLine - sizeof(long)];
};
static_assert(sizeof(Learner) == 336, "STAMP's learner_t");

// What the learner is run with (STAMP's globals, set from the flags).
struct LearnerParams {
  long insert_penalty;        // -i
  long max_num_edge_learned;  // -e; negative: no bound
  float quality_factor;       // -q
};

inline Learner* learner_new(const Data* d, AdTree* adtree) {
  Learner* l = static_cast<Learner*>(malloc(sizeof(Learner)));
  l->adtree = adtree;
  l->net = net_new(d->num_var);
  l->local_base_log_likelihoods = static_cast<float*>(malloc(size_t(d->num_var) * sizeof(float)));
  l->base_log_likelihood = 0.0f;
  l->tasks = static_cast<Task*>(malloc(size_t(d->num_var) * sizeof(Task)));
  l->task_list = TaskList::create();
  l->num_total_parent = 0;
  return l;
}

inline void learner_delete(Learner* l) {
  TaskList::destroy(l->task_list);
  free(l->tasks);
  free(l->local_base_log_likelihoods);
  net_delete(l->net);
  free(l);
}

// libm's log, uninstrumented: it reads only its argument.
TM_PURE inline double log_of(double x) { return std::log(x); }

// One thread's query vectors (STAMP's PVECTOR_*).
TM_PURE inline void pvector_clear(PtrVector* v) { v->size = 0; }
TM_PURE inline void pvector_push(PtrVector* v, void* item) {
  PrivateBlocks mark;
  vector_push(v, item);
}
TM_PURE inline void pvector_copy(PtrVector* dst, const PtrVector* src) {
  PrivateBlocks mark;
  vector_copy(dst, src);
}
TM_PURE inline long pvector_size(const PtrVector* v) { return v->size; }
TM_PURE inline long pvector_index(const PtrVector* v, long i) { return static_cast<Query*>(v->elements[i])->index; }

// By variable; the queries of one vector are of distinct variables.
TM_PURE inline void sort_queries(PtrVector* v) {
  for (long i = 1; i < v->size; ++i) {
    void* item = v->elements[i];
    long index = static_cast<Query*>(item)->index;
    long j = i;
    for (; j > 0 && static_cast<Query*>(v->elements[j - 1])->index > index; --j) v->elements[j] = v->elements[j - 1];
    v->elements[j] = item;
  }
}

// count(queries) / records * log(count / count(parent queries)).
inline float specific_log_likelihood(const AdTree* t, PtrVector* queries, PtrVector* parent_queries) {
  long count = adtree_count(t, queries);
  if (count == 0) return 0.0f;
  double probability = double(count) / double(t->num_record);
  long parent_count = adtree_count(t, parent_queries);
  return float(probability * log_of(double(count) / double(parent_count)));
}

// Sums over both values of parents [i, numParent) (STAMP's helper recursion).
inline float log_likelihood_over_parents(long i, long num_parent, const AdTree* t, Query* queries,
                                                 PtrVector* query_vector, PtrVector* parent_vector) {
  if (i >= num_parent) return specific_log_likelihood(t, query_vector, parent_vector);
  float sum = 0.0f;
  long parent = static_cast<Query*>(parent_vector->elements[i])->index;
  queries[parent].value = 0;
  sum += log_likelihood_over_parents(i + 1, num_parent, t, queries, query_vector, parent_vector);
  queries[parent].value = 1;
  sum += log_likelihood_over_parents(i + 1, num_parent, t, queries, query_vector, parent_vector);
  queries[parent].value = kWildcard;
  return sum;
}

TM_PURE inline float local_log_likelihood(long id, const AdTree* t, Query* queries, PtrVector* query_vector,
                                          PtrVector* parent_vector) {
  PrivateBlocks mark;  // the AD-tree's derived counts allocate
  const long num_parent = parent_vector->size;
  float sum = 0.0f;
  queries[id].value = 0;
  sum += log_likelihood_over_parents(0, num_parent, t, queries, query_vector, parent_vector);
  queries[id].value = 1;
  sum += log_likelihood_over_parents(0, num_parent, t, queries, query_vector, parent_vector);
  queries[id].value = kWildcard;
  return sum;
}

// parent_vector: the queries of id's parents, in the parent list's order.
TM_SAFE inline void populate_parent_queries(const Net* net, long id, Query* queries, PtrVector* parent_vector) {
  pvector_clear(parent_vector);
  for (IdList::Node* n = net_parents(net, id)->head.next; n; n = n->next)
    pvector_push(parent_vector, &queries[item_id(n->data)]);
}

// Also query_vector: the parents' queries and id's, sorted by variable.
TM_SAFE inline void populate_queries(const Net* net, long id, Query* queries, PtrVector* query_vector,
                                     PtrVector* parent_vector) {
  populate_parent_queries(net, id, queries, parent_vector);
  pvector_copy(query_vector, parent_vector);
  pvector_push(query_vector, &queries[id]);
  sort_queries(query_vector);
}

// One thread's scratch for the searches (STAMP's findBestTaskArg_t).
struct Search {
  long to;
  Learner* learner;
  Query* queries;
  PtrVector* query_vector;
  PtrVector* parent_vector;
  long num_total_parent;
  float base_penalty;
  float base_log_likelihood;
  Bitmap* bitmap;
  PtrQueue* work;
  PtrVector* a_vector;
  PtrVector* b_vector;
  const LearnerParams* params;
};

// For a candidate parent `from` of s.to: s.parent_vector gets the queries of
// `parents` but the one at position `from` (STAMP compares the position with
// the id), s.query_vector those and s.to's, sorted.
TM_SAFE inline void queries_without(Search& s, const PtrVector* parents, long from) {
  const long num_parent = pvector_size(parents);
  pvector_clear(s.parent_vector);
  for (long p = 0; p < num_parent; ++p)
    if (p != from) pvector_push(s.parent_vector, &s.queries[pvector_index(parents, p)]);
  pvector_copy(s.query_vector, s.parent_vector);
  pvector_push(s.query_vector, &s.queries[s.to]);
  sort_queries(s.query_vector);
}

// The best parent to add to `to`: any variable not a descendant, not a parent.
TM_SAFE inline Task find_best_insert(Search& s) {
  const long to = s.to;
  Query* queries = s.queries;
  const AdTree* t = s.learner->adtree;
  const Net* net = s.learner->net;
  PtrVector* base_parents = s.a_vector;
  PtrVector* base_queries = s.b_vector;
  populate_parent_queries(net, to, queries, s.parent_vector);
  pvector_copy(base_parents, s.parent_vector);
  pvector_copy(base_queries, base_parents);
  pvector_push(base_queries, &queries[to]);
  sort_queries(s.query_vector);  // STAMP sorts this (stale) vector, not base_queries
  float best_from = float(to);   // a float in STAMP
  const float old_local = s.learner->local_base_log_likelihoods[to];
  float best_local = old_local;
  net_find_descendants(net, to, s.bitmap, s.work);
  IdList* parents = net_parents(net, to);
  const long max_edges = s.params->max_num_edge_learned;
  if (max_edges < 0 || parents->size <= max_edges) {
    for (IdList::Node* n = parents->head.next; n; n = n->next) bitmap_set(s.bitmap, item_id(n->data));
    for (long from = bitmap_find_clear(s.bitmap, 0); from >= 0; from = bitmap_find_clear(s.bitmap, from + 1)) {
      if (from == to) continue;
      pvector_copy(s.query_vector, base_queries);
      pvector_push(s.query_vector, &queries[from]);
      sort_queries(s.query_vector);
      pvector_copy(s.parent_vector, base_parents);
      pvector_push(s.parent_vector, &queries[from]);
      sort_queries(s.parent_vector);
      float local = local_log_likelihood(to, t, queries, s.query_vector, s.parent_vector);
      if (local > best_local) {
        best_local = local;
        best_from = float(from);
      }
    }
  }
  Task best{kInsert, long(best_from), to, 0.0f};
  if (best_from != float(to)) {
    long num_parent = parents->size + 1;
    float penalty = float(s.num_total_parent + num_parent * s.params->insert_penalty) * s.base_penalty;
    float log_likelihood = float(t->num_record) * (s.base_log_likelihood + best_local - old_local);
    best.score = penalty + log_likelihood;
  }
  return best;
}

// The best parent of `to` to remove.
TM_SAFE inline Task find_best_remove(Search& s) {
  const long to = s.to;
  Query* queries = s.queries;
  const AdTree* t = s.learner->adtree;
  PtrVector* original = s.a_vector;
  populate_parent_queries(s.learner->net, to, queries, original);
  const long num_parent = pvector_size(original);
  float best_from = float(to);
  const float old_local = s.learner->local_base_log_likelihoods[to];
  float best_local = old_local;
  for (long i = 0; i < num_parent; ++i) {
    long from = pvector_index(original, i);
    queries_without(s, original, from);
    float local = local_log_likelihood(to, t, queries, s.query_vector, s.parent_vector);
    if (local > best_local) {
      best_local = local;
      best_from = float(from);
    }
  }
  Task best{kRemove, long(best_from), to, 0.0f};
  if (best_from != float(to)) {
    float penalty = float(s.num_total_parent - 1) * s.base_penalty;
    float log_likelihood = float(t->num_record) * (s.base_log_likelihood + best_local - old_local);
    best.score = penalty + log_likelihood;
  }
  return best;
}

// The best parent of `to` to make its child, if that closes no cycle.
TM_SAFE inline Task find_best_reverse(Search& s) {
  const long to = s.to;
  Query* queries = s.queries;
  const AdTree* t = s.learner->adtree;
  Net* net = s.learner->net;
  float* local_base = s.learner->local_base_log_likelihoods;
  PtrVector* to_original = s.a_vector;
  PtrVector* from_original = s.b_vector;
  populate_parent_queries(net, to, queries, to_original);
  const long num_parent = pvector_size(to_original);
  long best_from = to;
  const float old_local = local_base[to];
  float best_local = old_local;
  for (long i = 0; i < num_parent; ++i) {
    long from = pvector_index(to_original, i);
    best_local = old_local + local_base[from];  // as STAMP: reset for every candidate
    populate_parent_queries(net, from, queries, from_original);
    queries_without(s, to_original, from);
    float local = local_log_likelihood(to, t, queries, s.query_vector, s.parent_vector);
    pvector_copy(s.parent_vector, from_original);
    pvector_push(s.parent_vector, &queries[to]);
    sort_queries(s.parent_vector);
    pvector_copy(s.query_vector, s.parent_vector);
    pvector_push(s.query_vector, &queries[from]);
    sort_queries(s.query_vector);
    local += local_log_likelihood(from, t, queries, s.query_vector, s.parent_vector);
    if (local > best_local) {
      best_local = local;
      best_from = from;
    }
  }
  if (best_from != to) {
    net_apply(net, kRemove, best_from, to);
    bool valid = !net_is_path(net, best_from, to, s.bitmap, s.work);
    net_apply(net, kInsert, best_from, to);
    if (!valid) best_from = to;
  }
  Task best{kReverse, best_from, to, 0.0f};
  if (best_from != to) {
    float from_local = local_base[best_from];
    float penalty = float(s.num_total_parent) * s.base_penalty;
    float log_likelihood =
        float(t->num_record) * (s.base_log_likelihood + best_local - old_local - from_local);
    best.score = penalty + log_likelihood;
  }
  return best;
}

// The network's score: the log-likelihood of the records under it, less a
// penalty per edge (STAMP's learner_score; outside transactions).
inline float learner_score(const Learner* l) {
  const AdTree* t = l->adtree;
  const Net* net = l->net;
  PtrVector* query_vector = vector_new(1);
  PtrVector* parent_vector = vector_new(1);
  const long num_var = t->num_var;
  Query* queries = static_cast<Query*>(malloc(size_t(num_var) * sizeof(Query)));
  for (long v = 0; v < num_var; ++v) queries[v] = Query{v, kWildcard};
  long num_total_parent = 0;
  float log_likelihood = 0.0f;
  for (long v = 0; v < num_var; ++v) {
    num_total_parent += net_parents(net, v)->size;
    populate_queries(net, v, queries, query_vector, parent_vector);
    log_likelihood += local_log_likelihood(v, t, queries, query_vector, parent_vector);
  }
  vector_delete(query_vector);
  vector_delete(parent_vector);
  free(queries);
  const long num_record = t->num_record;
  float penalty = float(-0.5 * double(num_total_parent) * std::log(double(num_record)));
  return penalty + float(num_record) * log_likelihood;
}

// The score by the learner's own bookkeeping: its parent count and the local
// log-likelihood it last computed for each variable. (Not its running total:
// STAMP adds each change with the wrong sign there, old − new.)
inline float learner_tracked_score(const Learner* l) {
  const long num_record = l->adtree->num_record;
  float log_likelihood = 0.0f;
  for (long v = 0; v < l->adtree->num_var; ++v) log_likelihood += l->local_base_log_likelihoods[v];
  float penalty = float(-0.5 * double(l->num_total_parent) * std::log(double(num_record)));
  return penalty + float(num_record) * log_likelihood;
}
