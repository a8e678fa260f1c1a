// bayes.h — STAMP's bayes (Bayesian network structure learning with an
// AD-tree) as parameters and result; the body is compiled per TM build
// (bayes_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct BayesConfig {
  int threads = 1;
  long vars = 32;             // -v
  long records = 1024;        // -r
  long max_parents = 2;       // -n: parents drawn per variable of the generated network
  long percent_parent = 20;   // -p: chance in 100 of each draw adding a parent
  long insert_penalty = 2;    // -i
  long max_edges = 2;         // -e: parents the learner may give a variable (negative: any)
  float quality = 1.0f;       // -q: how much better than the current score a task must be
  uint64_t seed = 0;          // -s: STAMP's generator seed
};

struct BayesResult {
  uint64_t elapsed_ns = 0;    // the learning (STAMP's "Learn time")
  bool acyclic = false;       // the learned network has no cycle
  float learn_score = 0;      // the learned network's score, computed afresh
  float tracked_score = 0;    // the score the learner kept while learning
  float actual_score = 0;     // the generating network's score
  long edges = 0;             // in the learned network
  // Edges removed. After a removal STAMP's learner recomputes the removed
  // parent's log-likelihood instead of the child's, so its own score no longer
  // describes the network: then only acyclicity is checked. (At STAMP's inputs
  // the learner never removes; it inserts and reverses.)
  long removals = 0;
};

ALLOCSTAMP_STAMP_BUILDS(BayesConfig, BayesResult)

}  // namespace allocstamp::stamp
