// bayes_tm.cpp — STAMP's bayes, object for object: records drawn from a
// random network (bayes_data.h), an AD-tree built over them
// (bayes_adtree.h), the generating network scored, then the learner
// (bayes_learner.h) run on every thread in two phases, as STAMP's
// learner_run:
//   1. each thread scores, for its share of the variables, every single
//      parent and files the best as an insert task (a transaction per task:
//      a 16 B list node);
//   2. each thread pops the best task (a transaction, freeing the node),
//      checks and applies it to the network (a transaction: edge list nodes),
//      updates the local log-likelihoods it changes, then searches the
//      variable's best insert, remove and reverse (a transaction each, in
//      which the query vectors grow and the AD-tree's derived counts allocate
//      and free their vectors) and files the best (a transaction).
// Thread-private blocks (the queries, the scratch vectors, bitmap and queue)
// are allocated outside transactions, as STAMP's P_MALLOC. The same
// generator (MT19937), seeds and draw order give STAMP's records, network and
// hence every count. STAMP never frees the learner (and the learned network
// in it); it is freed after the measured phase. Verified as STAMP does: the
// learned network is acyclic, and its score is the one the learner kept.
// Compiled once per TM build (seq, lock, stm; see stamp_app in
// CMakeLists.txt), each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include <memprof/memprof.h>

#include "bayes.h"
#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
#include "stamp_containers.h"
#include "stamp_list.h"

namespace {
#include "bayes_net.h"
#include "bayes_data.h"
#include "bayes_adtree.h"
#include "bayes_learner.h"

// [begin, end) of the variables for thread `id` of `threads` (STAMP's
// createPartition: rounded shares, the last thread takes the rest).
struct Range {
  long begin, end;
};
Range partition(long total, long id, long threads) {
  long chunk = (total + threads / 2) / threads;
  if (chunk < 1) chunk = 1;
  long begin = chunk * id;
  long end = id == threads - 1 ? total : (begin + chunk < total ? begin + chunk : total);
  return {begin, end};
}

// Each transaction in a function of its own (the stm build's transactions
// save and restore the caller's registers; small callers keep that cheap).
__attribute__((noinline)) void tx_add_base(Learner* l, float sum) {
  TM_BEGIN
  l->base_log_likelihood = sum + l->base_log_likelihood;
  TM_END
}

__attribute__((noinline)) void tx_insert_task(TaskList* list, Task* task) {
  TM_BEGIN
  list->insert(task);
  TM_END
}

__attribute__((noinline)) Task* tx_pop_task(TaskList* list) {
  Task* task = nullptr;
  TM_BEGIN
  TaskList::Node* first = list->head.next;
  task = first ? first->data : nullptr;
  if (task) list->remove(task);
  TM_END
  return task;
}

// Applies the task's operation if it keeps the network acyclic (and, for an
// insert, adds no edge twice); whether it did.
__attribute__((noinline)) bool tx_apply(Net* net, Operation op, long from, long to, Bitmap* visited, PtrQueue* work) {
  bool valid;
  TM_BEGIN
  valid = true;
  if (op == kInsert) {
    if (net_has_edge(net, from, to) || net_is_path(net, to, from, visited, work)) valid = false;
  } else if (op == kReverse) {
    net_apply(net, kRemove, from, to);
    if (net_is_path(net, from, to, visited, work)) valid = false;
    net_apply(net, kInsert, from, to);
  }
  if (valid) net_apply(net, op, from, to);
  TM_END
  return valid;
}

// Recomputes id's local log-likelihood under its parents now; old − new,
// which STAMP adds to the running total (a gain lowers it: kept, since the
// total feeds the scores that order the tasks).
__attribute__((noinline)) float tx_update_local(Learner* l, long id, Query* queries, PtrVector* query_vector,
                                                PtrVector* parent_vector) {
  float change;
  TM_BEGIN
  populate_queries(l->net, id, queries, query_vector, parent_vector);
  float fresh = local_log_likelihood(id, l->adtree, queries, query_vector, parent_vector);
  float old = l->local_base_log_likelihoods[id];
  change = old - fresh;
  l->local_base_log_likelihoods[id] = fresh;
  TM_END
  return change;
}

__attribute__((noinline)) void tx_add_parents(Learner* l, long delta) {
  TM_BEGIN
  l->num_total_parent = l->num_total_parent + delta;
  TM_END
}

// Adds delta to the total log-likelihood; the total and the parent count now.
__attribute__((noinline)) float tx_update_base(Learner* l, float delta, long* num_total_parent) {
  float base;
  TM_BEGIN
  base = l->base_log_likelihood + delta;
  l->base_log_likelihood = base;
  *num_total_parent = l->num_total_parent;
  TM_END
  return base;
}

// One search (find_best_insert, _remove or _reverse) as a transaction. The
// result is copied out field by field: as one block it would be a libitm block
// copy, which ml_wt can restart without end (docs/stamp-fidelity.md, "Block
// copies inside transactions").
template <Task (*find)(Search&)>
__attribute__((noinline)) Task tx_find(Search& s) {
  Task t;
  TM_BEGIN
  Task found = find(s);
  t.op = found.op;
  t.from = found.from;
  t.to = found.to;
  t.score = found.score;
  TM_END
  return t;
}

// Phase 1 (STAMP's createTaskList) on thread `id` of `threads`.
void create_task_list(Learner* l, long id, long threads) {
  const AdTree* t = l->adtree;
  float* local_base = l->local_base_log_likelihoods;
  Query queries[2];
  PtrVector* query_vector = vector_new(2);
  vector_push(query_vector, &queries[0]);
  Query parent_query;
  PtrVector* parent_vector = vector_new(1);
  const long num_var = t->num_var;
  const long num_record = t->num_record;
  float base = 0.0f;
  const float penalty = float(-0.5 * std::log(double(num_record)));  // one edge
  const Range mine = partition(num_var, id, threads);

  // Each variable alone.
  for (long v = mine.begin; v < mine.end; ++v) {
    float local = 0.0f;
    queries[0] = Query{v, 0};
    local += specific_log_likelihood(t, query_vector, parent_vector);
    queries[0].value = 1;
    local += specific_log_likelihood(t, query_vector, parent_vector);
    local_base[v] = local;
    base += local;
  }
  tx_add_base(l, base);

  // Each variable with its best single parent.
  vector_push(parent_vector, &parent_query);
  for (long v = mine.begin; v < mine.end; ++v) {
    queries[0].index = v;
    long best_index = v;
    float best = local_base[v];
    vector_push(query_vector, &queries[1]);
    for (long vv = 0; vv < num_var; ++vv) {
      if (vv == v) continue;
      parent_query.index = vv;
      queries[0].index = v < vv ? v : vv;
      queries[1].index = v < vv ? vv : v;
      float local = 0.0f;
      queries[0].value = 0, queries[1].value = 0, parent_query.value = 0;
      local += specific_log_likelihood(t, query_vector, parent_vector);
      queries[0].value = 0, queries[1].value = 1, parent_query.value = vv < v ? 0 : 1;
      local += specific_log_likelihood(t, query_vector, parent_vector);
      queries[0].value = 1, queries[1].value = 0, parent_query.value = vv < v ? 1 : 0;
      local += specific_log_likelihood(t, query_vector, parent_vector);
      queries[0].value = 1, queries[1].value = 1, parent_query.value = 1;
      local += specific_log_likelihood(t, query_vector, parent_vector);
      if (local > best) {
        best_index = vv;
        best = local;
      }
    }
    --query_vector->size;
    if (best_index != v) {
      float log_likelihood = float(num_record) * (base + best - local_base[v]);
      l->tasks[v] = Task{kInsert, best_index, v, penalty + log_likelihood};
      tx_insert_task(l->task_list, &l->tasks[v]);
    }
  }
  vector_delete(query_vector);
  vector_delete(parent_vector);
}

// Phase 2 (STAMP's learnStructure): until no task is left. Counts the
// removals applied (see BayesResult::removals).
void learn_structure(Learner* l, const LearnerParams& params, std::atomic<long>& removals) {
  const AdTree* t = l->adtree;
  Net* net = l->net;
  const long num_record = t->num_record;
  const long num_var = t->num_var;
  Bitmap* visited = bitmap_new(num_var);
  PtrQueue* work = queue_new(-1);
  Query* queries = static_cast<Query*>(malloc(size_t(num_var) * sizeof(Query)));
  for (long v = 0; v < num_var; ++v) queries[v] = Query{v, kWildcard};
  const float base_penalty = float(-0.5 * std::log(double(num_record)));
  PtrVector* query_vector = vector_new(1);
  PtrVector* parent_vector = vector_new(1);
  PtrVector* a_vector = vector_new(1);
  PtrVector* b_vector = vector_new(1);
  Search s{0, l, queries, query_vector, parent_vector, 0, 0.0f, 0.0f, visited, work, a_vector, b_vector, &params};

  for (;;) {
    Task* task = tx_pop_task(l->task_list);
    if (!task) break;
    const Operation op = task->op;
    const long from = task->from;
    const long to = task->to;
    const bool valid = tx_apply(net, op, from, to, visited, work);

    float delta = 0.0f;
    if (valid) {
      if (op == kInsert) {
        delta += tx_update_local(l, to, queries, query_vector, parent_vector);
        tx_add_parents(l, 1);
      } else if (op == kRemove) {
        removals.fetch_add(1, std::memory_order_relaxed);
        delta += tx_update_local(l, from, queries, query_vector, parent_vector);  // STAMP's: not `to`'s
        tx_add_parents(l, -1);
      } else {
        delta += tx_update_local(l, from, queries, query_vector, parent_vector);
        delta += tx_update_local(l, to, queries, query_vector, parent_vector);
      }
    }
    long num_total_parent = 0;
    const float base = tx_update_base(l, delta, &num_total_parent);

    Task best{kNumOperation, -1, -1, (float(num_total_parent) * base_penalty) + (float(num_record) * base)};
    s.to = to;
    s.num_total_parent = num_total_parent;
    s.base_penalty = base_penalty;
    s.base_log_likelihood = base;
    Task found = tx_find<find_best_insert>(s);
    if (found.from != found.to && found.score > best.score / params.quality_factor) best = found;
    found = tx_find<find_best_remove>(s);
    if (found.from != found.to && found.score > best.score / params.quality_factor) best = found;
    found = tx_find<find_best_reverse>(s);
    if (found.from != found.to && found.score > best.score / params.quality_factor) best = found;
    if (best.to != -1) {
      l->tasks[to] = best;
      tx_insert_task(l->task_list, &l->tasks[to]);
    }
  }

  bitmap_delete(visited);
  queue_delete(work);
  vector_delete(b_vector);
  vector_delete(a_vector);
  vector_delete(query_vector);
  vector_delete(parent_vector);
  free(queries);
}

// Both phases on every thread, thread 0 being the caller; phase 2 starts
// when every thread has finished phase 1 (STAMP starts them one after the other).
void learner_run(Learner* l, const LearnerParams& params, StampThreadBlocks& pool, int threads,
                 std::atomic<long>& removals) {
  std::atomic<long> finished_phase1{0};
  auto body = [&](long id) {
    create_task_list(l, id, threads);
    finished_phase1.fetch_add(1);
    while (finished_phase1.load() < threads) std::this_thread::yield();
    learn_structure(l, params, removals);
    ::allocstamp::tm::publish_thread_counts();
  };
  if (threads == 1) {
    body(0);
    return;
  }
  memprof::region parallel(MEMPROF_PAR);
  std::thread* handles = reinterpret_cast<std::thread*>(pool.handles);
  static_assert(sizeof(std::thread) == sizeof(unsigned long), "a thread handle is one word, as pthread_t");
  for (int i = 1; i < threads; ++i) new (&handles[i]) std::thread(body, pool.ids[i]);
  body(0);
  for (int i = 1; i < threads; ++i) {
    handles[i].join();
    handles[i].~thread();
  }
}

// The generating network's score, as STAMP's score(): a learner around it
// (with a one-record data block and a one-node network of its own, unused).
float score_of(Net* net, AdTree* adtree) {
  Data* dummy = data_new(1, 1, nullptr);
  Learner* l = learner_new(dummy, adtree);
  Net* own = l->net;
  l->net = net;
  float score = learner_score(l);
  l->net = own;
  learner_delete(l);
  data_delete(dummy);
  return score;
}

}  // namespace

BayesResult run(const BayesConfig& c) {
  BayesResult r;
  memprof::phase_begin();  // STAMP's figures are its whole run
  StampThreadBlocks pool = stamp_thread_startup(c.threads);

  StampRandom* random = stamp_random_new();
  random->mt.seed(uint32_t(c.seed));
  Data* data = data_new(c.vars, c.records, random);
  Net* generating = data_generate(data, c.max_parents, c.percent_parent);
  AdTree* adtree = adtree_new();
  adtree_make(adtree, data);
  r.actual_score = score_of(generating, adtree);
  net_delete(generating);

  Learner* learner = learner_new(data, adtree);
  data_delete(data);
  const LearnerParams params{c.insert_penalty, c.max_edges, c.quality};
  std::atomic<long> removals{0};
  auto start = std::chrono::steady_clock::now();
  learner_run(learner, params, pool, c.threads, removals);
  r.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());

  r.acyclic = !net_is_cycle(learner->net);
  r.learn_score = learner_score(learner);
  r.tracked_score = learner_tracked_score(learner);
  r.removals = removals.load();
  for (long v = 0; v < c.vars; ++v) r.edges += net_parents(learner->net, v)->size;

  stamp_random_delete(random);
  adtree_delete(adtree);
  stamp_thread_shutdown(pool);
  memprof::phase_end();

  learner_delete(learner);  // STAMP never frees it
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
