// vacation.cpp — the vacation app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is vacation_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "vacation.h"

namespace allocstamp::stamp {
namespace {

using workload::by_size;
using workload::usage_error;

// STAMP's vacation inputs: small -r16384 -t4096, large -r1048576 -t4194304.
void size_vacation(VacationConfig& c, const std::string& size) {
  // tiny, small, medium, large
  c.relations = by_size<long>(size, 1024, 16384, 131072, 1048576);
  c.transactions = by_size<long>(size, 2048, 4096, 262144, 4194304);
}

int run_vacation(const std::string& app, int argc, char** argv) {
  VacationConfig c;
  if (app == "vacation-low") c.queries = 2, c.query_percent = 90, c.user_percent = 98;  // -n2 -q90 -u98
  else c.queries = 4, c.query_percent = 60, c.user_percent = 90;                         // -n4 -q60 -u90
  long relations = -1, transactions = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--relations") relations = workload::whole_number(option, value, 1, 1L << 30);
    else if (option == "--transactions") transactions = workload::whole_number(option, value, 0, 1L << 40);
    else if (option == "--queries") c.queries = int(workload::whole_number(option, value, 1, 64));
    else if (option == "--query-percent") c.query_percent = int(workload::whole_number(option, value, 1, 100));
    else if (option == "--user-percent") c.user_percent = int(workload::whole_number(option, value, 0, 100));
    else return false;
    return true;
  });
  size_vacation(c, common.size);
  if (relations > 0) c.relations = relations;
  if (transactions >= 0) c.transactions = transactions;
  c.threads = common.threads;
  c.seed = common.seed;
  // STAMP prints its parameters before it starts (its stdout buffer is among its first blocks).
  std::printf("stamp %s: relations=%ld transactions=%ld queries=%d query_percent=%d user_percent=%d\n", app.c_str(),
              c.relations, c.transactions, c.queries, c.query_percent, c.user_percent);
  VacationResult r = run_in_build(tm::method_for(common), c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("reservations_made_count", int64_t(r.made));
  memprof::metric("customers_deleted_count", int64_t(r.deleted));
  memprof::metric("table_updates_count", int64_t(r.updates));
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: the tables and the customers' reservations disagree\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s transactions=%ld abort_rate=%.4f elapsed_ms=%.2f reservations=%ld\n",
              app.c_str(), c.threads, common.method.c_str(), c.transactions, tm::abort_rate(), double(r.elapsed_ns) / 1e6,
              r.reservations);
  return 0;
}

}  // namespace

constexpr char kVacationOptions[] =
    "vacation options: [--relations R] [--transactions T] [--queries N] [--query-percent Q] [--user-percent U]";
const App kVacationLow = {"vacation-low", kVacationOptions, run_vacation};
const Registration kVacationLowRegistered(kVacationLow);
const App kVacationHigh = {"vacation-high", kVacationOptions, run_vacation};
const Registration kVacationHighRegistered(kVacationHigh);

}  // namespace allocstamp::stamp
