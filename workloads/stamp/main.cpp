// main.cpp — the stamp binary: STAMP-like transactional applications, run as
// `stamp <app> --threads N --size tiny|small|medium|large --seed S --tm M
// [app options]` (Contract 3). small is STAMP's simulator input, large its
// non-simulator input. Apps so far: vacation-low, vacation-high.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "runtime.h"
#include "vacation.h"

namespace allocstamp::stamp {
namespace stm { VacationResult run(const VacationConfig&); }
namespace lock { VacationResult run(const VacationConfig&); }
namespace seq { VacationResult run(const VacationConfig&); }
}  // namespace allocstamp::stamp

namespace {

using namespace allocstamp;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "stamp: %s\nusage: stamp <vacation-low|vacation-high> [--threads N] [--size tiny|small|medium|large]"
               " [--seed S] [--tm ml_wt|gl_wt|serialirr|lock|seq]\n"
               "  vacation options: [--relations R] [--transactions T] [--queries N] [--query-percent Q] [--user-percent U]\n",
               problem.c_str());
  std::exit(2);
}

long number(const std::string& option, const char* text, long min, long max) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!*text || *end || v < min || v > max)
    usage(option + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", not '" + text + "'");
  return v;
}

// STAMP's vacation inputs: small -r16384 -t4096, large -r1048576 -t4194304.
void size_vacation(stamp::VacationConfig& c, const std::string& size) {
  if (size == "tiny") c.relations = 1024, c.transactions = 2048;
  else if (size == "small") c.relations = 16384, c.transactions = 4096;
  else if (size == "medium") c.relations = 131072, c.transactions = 262144;
  else if (size == "large") c.relations = 1048576, c.transactions = 4194304;
  else usage("--size takes tiny, small, medium or large, not '" + size + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("which app?");
  std::string app = argv[1];
  stamp::VacationConfig c;
  if (app == "vacation-low") c.queries = 2, c.query_percent = 90, c.user_percent = 98;        // -n2 -q90 -u98
  else if (app == "vacation-high") c.queries = 4, c.query_percent = 60, c.user_percent = 90;  // -n4 -q60 -u90
  else usage("unknown app '" + app + "'");
  std::string method_name = "ml_wt";
  std::string size = "small";
  long relations = -1, transactions = -1;
  for (int i = 2; i < argc; ++i) {
    std::string option = argv[i];
    if (i + 1 >= argc) usage("missing value for " + option);
    const char* value = argv[++i];
    if (option == "--threads") c.threads = int(number(option, value, 1, 1024));
    else if (option == "--size") size = value;
    else if (option == "--seed") c.seed = uint64_t(number(option, value, 0, 1L << 62));
    else if (option == "--tm") method_name = value;
    else if (option == "--relations") relations = number(option, value, 1, 1L << 30);
    else if (option == "--transactions") transactions = number(option, value, 0, 1L << 40);
    else if (option == "--queries") c.queries = int(number(option, value, 1, 64));
    else if (option == "--query-percent") c.query_percent = int(number(option, value, 1, 100));
    else if (option == "--user-percent") c.user_percent = int(number(option, value, 0, 100));
    else usage("unknown option " + option);
  }
  size_vacation(c, size);
  if (relations > 0) c.relations = relations;
  if (transactions >= 0) c.transactions = transactions;
  tm::Method method;
  if (!tm::parse_method(method_name, method)) usage("unknown --tm '" + method_name + "'");
  if (method.build == tm::Build::seq && c.threads != 1) usage("--tm seq runs one thread only");
  tm::apply(method);

  stamp::VacationResult r = method.build == tm::Build::stm    ? stamp::stm::run(c)
                            : method.build == tm::Build::lock ? stamp::lock::run(c)
                                                               : stamp::seq::run(c);
  auto totals = tm::totals();
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  memprof::metric("tx_attempts_count", int64_t(totals.attempts));
  memprof::metric("tx_commits_count", int64_t(totals.commits));
  memprof::metric("reservations_made_count", int64_t(r.made));
  memprof::metric("customers_deleted_count", int64_t(r.deleted));
  memprof::metric("table_updates_count", int64_t(r.updates));
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: the tables and the customers' reservations disagree\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s transactions=%ld attempts=%llu commits=%llu abort_rate=%.4f elapsed_ms=%.2f"
              " reservations=%ld\n",
              app.c_str(), c.threads, method_name.c_str(), c.transactions, (unsigned long long)totals.attempts,
              (unsigned long long)totals.commits,
              totals.attempts ? 1.0 - double(totals.commits) / double(totals.attempts) : 0.0, double(r.elapsed_ns) / 1e6,
              r.reservations);
  return 0;
}
