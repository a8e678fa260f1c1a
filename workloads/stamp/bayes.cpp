// bayes.cpp — the bayes app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is bayes_tm.cpp.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "bayes.h"
#include "command_line.h"
#include "key_names.h"
#include "runtime.h"

namespace allocstamp::stamp {
namespace {

using workload::by_size;
using workload::usage_error;

// The learner's running score and the learned network's score computed afresh
// sum the same terms in another order (in float): they agree to about 1e-6 of
// their size; a learner that lost track of its network misses by far more.
constexpr double kScoreTolerance = 1e-4;

// STAMP's bayes inputs: small -v32 -r1024 -n2 -p20 -s0 -i2 -e2, large
// -v32 -r4096 -n10 -p40 -i2 -e8 -s1. STAMP seeds its generator with -s; each
// size has its seed and --seed s adds s - 1 to it, so the default 1 gives
// STAMP's inputs. medium is large's network with fewer records: the learning
// takes about 150 ms and the AD-tree builds in about a second (at -r2048 the
// tree alone takes seconds).
int run_bayes(const std::string& app, int argc, char** argv) {
  BayesConfig c;
  long vars = -1, records = -1, parents = -1, percent = -1, penalty = -1, edges = -2;
  double quality = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--vars") vars = workload::whole_number(option, value, 2, 4096);
    else if (option == "--records") records = workload::whole_number(option, value, 1, 1L << 24);
    else if (option == "--max-parents") parents = workload::whole_number(option, value, 0, 64);
    else if (option == "--percent-parent") percent = workload::whole_number(option, value, 0, 100);
    else if (option == "--insert-penalty") penalty = workload::whole_number(option, value, 0, 1L << 20);
    else if (option == "--max-edges") edges = workload::whole_number(option, value, -1, 4096);
    else if (option == "--quality") {
      char* end = nullptr;
      quality = std::strtod(value, &end);
      if (end == value || *end || !(quality > 0)) usage_error("--quality takes a positive number, not '" + std::string(value) + "'");
    } else return false;
    return true;
  });
  // -v -r -n -p -i -e and the seed of each size.
  c.vars = by_size<long>(common.size, 16, 32, 32, 32);
  c.records = by_size<long>(common.size, 256, 1024, 768, 4096);
  c.max_parents = by_size<long>(common.size, 2, 2, 10, 10);
  c.percent_parent = by_size<long>(common.size, 20, 20, 40, 40);
  c.max_edges = by_size<long>(common.size, 2, 2, 8, 8);
  c.seed = by_size<uint64_t>(common.size, 0, 0, 1, 1);
  c.insert_penalty = 2;
  if (vars > 0) c.vars = vars;
  if (records > 0) c.records = records;
  if (parents >= 0) c.max_parents = parents;
  if (percent >= 0) c.percent_parent = percent;
  if (penalty >= 0) c.insert_penalty = penalty;
  if (edges >= -1) c.max_edges = edges;
  if (quality > 0) c.quality = float(quality);
  c.seed += common.seed - 1;
  c.threads = common.threads;
  const tm::Method method = tm::method_for(common);
  // STAMP prints its parameters first: stdout's buffer is its first block.
  std::printf("stamp %s: vars=%ld records=%ld max_parents=%ld percent_parent=%ld insert_penalty=%ld max_edges=%ld seed=%llu\n",
              app.c_str(), c.vars, c.records, c.max_parents, c.percent_parent, c.insert_penalty, c.max_edges,
              (unsigned long long)c.seed);
  BayesResult r = run_in_build(method, c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("edges_count", r.edges);
  memprof::metric("removals_count", r.removals);
  const double gap = std::fabs(double(r.learn_score) - double(r.tracked_score));
  const bool score_kept = r.removals > 0 || gap <= kScoreTolerance * std::fabs(double(r.learn_score));
  if (!r.acyclic || !score_kept) {
    std::fprintf(stderr, "stamp %s: verification failed: %s (learned score %.6f, the learner's own %.6f)\n",
                 app.c_str(), r.acyclic ? "the learned score is not the learner's" : "the learned network has a cycle",
                 double(r.learn_score), double(r.tracked_score));
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s edges=%ld learn_score=%.6f actual_score=%.6f abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, common.method.c_str(), r.edges, double(r.learn_score), double(r.actual_score),
              tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kBayes = {"bayes",
                    "bayes options: [--vars V] [--records R] [--max-parents N] [--percent-parent P] "
                    "[--insert-penalty I] [--max-edges E] [--quality Q]",
                    run_bayes};
const Registration kBayesRegistered(kBayes);

}  // namespace allocstamp::stamp
