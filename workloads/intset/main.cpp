// main.cpp — intset: sets as sorted linked list, hash set, red-black tree and
// skip list under transactions (PPoPP'15's microbenchmark). Run as
// `intset <list|hash|rbtree|skiplist> --threads N --size S --seed S --tm M
// [--update PCT] [--initial N] [--range N] [--ops N]` (Contract 3).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <memprof/memprof.h>

#include "config.h"
#include "command_line.h"
#include "key_names.h"
#include "runtime.h"

namespace allocstamp::intset {
namespace stm { Result run(const Config&); }
namespace lock { Result run(const Config&); }
namespace seq { Result run(const Config&); }
}  // namespace allocstamp::intset

namespace {

using namespace allocstamp;
using workload::usage_error;

const char* const kUsage =
    "usage: intset <list|hash|rbtree|skiplist> [--threads N] [--size tiny|small|medium|large]"
    " [--seed S] [--tm ml_wt|gl_wt|serialirr|lock|seq] [--update PCT] [--initial N] [--range N] [--ops N]\n";

long ops_for_size(const std::string& size) {
  return workload::by_size<long>(size, 2000, 20000, 200000, 1000000);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace allocstamp::intset;
  workload::set_program({"intset", kUsage});
  if (argc < 2) usage_error("which set? list, hash, rbtree or skiplist");
  Config c;
  std::string app = argv[1];
  if (app == "list") c.structure = Structure::list;
  else if (app == "hash") c.structure = Structure::hash;
  else if (app == "rbtree") c.structure = Structure::rbtree;
  else if (app == "skiplist") c.structure = Structure::skiplist;
  else usage_error("unknown set '" + app + "'");
  long ops = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--update") c.update_percent = int(workload::whole_number(option, value, 0, 100));
    else if (option == "--initial") c.initial = workload::whole_number(option, value, 0, 1L << 30);
    else if (option == "--range") c.range = workload::whole_number(option, value, 1, 1L << 30);
    else if (option == "--ops") ops = workload::whole_number(option, value, 0, 1L << 40);
    else return false;
    return true;
  });
  c.ops = ops >= 0 ? ops : ops_for_size(common.size);
  c.threads = common.threads;
  c.seed = common.seed;
  if (c.initial > c.range) usage_error("--initial cannot exceed --range (keys are distinct)");
  tm::Method method = tm::method_for(common);

  Result r = method.build == tm::Build::stm    ? stm::run(c)
             : method.build == tm::Build::lock ? lock::run(c)
                                               : seq::run(c);
  auto totals = tm::totals();
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("ops_count", int64_t(r.inserts + r.removes + r.lookups));
  memprof::metric("set_size_count", r.final_size);
  if (!r.valid || r.final_size != r.expected_size) {
    std::fprintf(stderr, "intset: verification failed: %s, size %ld, expected %ld\n",
                 r.valid ? "structure valid" : "structure broken", r.final_size, r.expected_size);
    return 3;
  }
  std::printf("intset %s: threads=%d ops=%llu tm=%s attempts=%llu commits=%llu abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, (unsigned long long)(r.inserts + r.removes + r.lookups), common.method.c_str(),
              (unsigned long long)totals.attempts, (unsigned long long)totals.commits, tm::abort_rate(),
              double(r.elapsed_ns) / 1e6);
  return 0;
}
