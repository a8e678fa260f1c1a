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
#include "runtime.h"

namespace allocstamp::intset {
namespace stm { Result run(const Config&); }
namespace lock { Result run(const Config&); }
namespace seq { Result run(const Config&); }
}  // namespace allocstamp::intset

namespace {

using namespace allocstamp;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "intset: %s\nusage: intset <list|hash|rbtree|skiplist> [--threads N] [--size tiny|small|medium|large]"
               " [--seed S] [--tm ml_wt|gl_wt|serialirr|lock|seq] [--update PCT] [--initial N] [--range N] [--ops N]\n",
               problem.c_str());
  std::exit(2);
}

long number(const char* option, const char* text, long min) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!*text || *end || v < min) usage(std::string(option) + " takes a whole number >= " + std::to_string(min) + ", not '" + text + "'");
  return v;
}

long ops_for_size(const std::string& size) {
  if (size == "tiny") return 2000;
  if (size == "small") return 20000;
  if (size == "medium") return 200000;
  if (size == "large") return 1000000;
  usage("--size takes tiny, small, medium or large, not '" + size + "'");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace allocstamp::intset;
  if (argc < 2) usage("which set? list, hash, rbtree or skiplist");
  Config c;
  std::string app = argv[1];
  if (app == "list") c.structure = Structure::list;
  else if (app == "hash") c.structure = Structure::hash;
  else if (app == "rbtree") c.structure = Structure::rbtree;
  else if (app == "skiplist") c.structure = Structure::skiplist;
  else usage("unknown set '" + app + "'");
  std::string method_name = "ml_wt";
  bool ops_given = false;
  for (int i = 2; i < argc; ++i) {
    std::string option = argv[i];
    if (i + 1 >= argc) usage("missing value for " + option);
    const char* value = argv[++i];
    if (option == "--threads") c.threads = int(number("--threads", value, 1));
    else if (option == "--size") { if (!ops_given) c.ops = ops_for_size(value); }
    else if (option == "--seed") c.seed = uint64_t(number("--seed", value, 0));
    else if (option == "--tm") method_name = value;
    else if (option == "--update") c.update_percent = int(number("--update", value, 0));
    else if (option == "--initial") c.initial = number("--initial", value, 0);
    else if (option == "--range") c.range = number("--range", value, 1);
    else if (option == "--ops") { c.ops = number("--ops", value, 0); ops_given = true; }
    else usage("unknown option " + option);
  }
  if (c.update_percent > 100) usage("--update is a percentage (0..100)");
  if (c.initial > c.range) usage("--initial cannot exceed --range (keys are distinct)");
  allocstamp::tm::Method method;
  if (!allocstamp::tm::parse_method(method_name, method)) usage("unknown --tm '" + method_name + "'");
  if (method.build == allocstamp::tm::Build::seq && c.threads != 1) usage("--tm seq runs one thread only");
  allocstamp::tm::apply(method);

  Result r = method.build == allocstamp::tm::Build::stm    ? stm::run(c)
             : method.build == allocstamp::tm::Build::lock ? lock::run(c)
                                                            : seq::run(c);
  auto totals = allocstamp::tm::totals();
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  memprof::metric("tx_attempts_count", int64_t(totals.attempts));
  memprof::metric("tx_commits_count", int64_t(totals.commits));
  memprof::metric("ops_count", int64_t(r.inserts + r.removes + r.lookups));
  memprof::metric("set_size_count", r.final_size);
  double abort_rate = totals.attempts ? 1.0 - double(totals.commits) / double(totals.attempts) : 0.0;
  if (!r.valid || r.final_size != r.expected_size) {
    std::fprintf(stderr, "intset: verification failed: %s, size %ld, expected %ld\n",
                 r.valid ? "structure valid" : "structure broken", r.final_size, r.expected_size);
    return 3;
  }
  std::printf("intset %s: threads=%d ops=%llu tm=%s attempts=%llu commits=%llu abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, (unsigned long long)(r.inserts + r.removes + r.lookups), method_name.c_str(),
              (unsigned long long)totals.attempts, (unsigned long long)totals.commits, abort_rate, double(r.elapsed_ns) / 1e6);
  return 0;
}
