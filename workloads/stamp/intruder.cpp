// intruder.cpp — the intruder app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is intruder_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "intruder.h"

namespace allocstamp::stamp {
namespace {

using workload::by_size;
using workload::usage_error;

// STAMP's intruder inputs: small -a10 -l4 -n2038 -s1, large -a10 -l128 -n262144 -s1
// (-l is a flow's maximum length in bytes). --seed s seeds the stream's MT19937
// with s, as STAMP's -s s: the default 1 is STAMP's -s1, so the flows, packets
// and their shuffle are STAMP's own.
int run_intruder(const std::string& app, int argc, char** argv) {
  IntruderConfig c;
  int attack = -1;
  long max_length = -1;
  long flows = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--attack-percent") attack = int(workload::whole_number(option, value, 0, 100));
    else if (option == "--max-length") max_length = workload::whole_number(option, value, 1, 1L << 20);
    else if (option == "--flows") flows = workload::whole_number(option, value, 1, 1L << 30);
    else return false;
    return true;
  });
  // tiny, small, medium, large
  c.flows = by_size<long>(common.size, 256, 2038, 32768, 262144);
  c.max_length = by_size<long>(common.size, 4, 4, 32, 128);
  if (attack >= 0) c.attack_percent = attack;
  if (max_length > 0) c.max_length = max_length;
  if (flows > 0) c.flows = flows;
  c.threads = common.threads;
  c.seed = common.seed;
  // STAMP prints its parameters before it starts (its stdout buffer is among its first blocks).
  std::printf("stamp %s: flows=%ld attack_percent=%d max_length=%ld\n", app.c_str(), c.flows, c.attack_percent,
              c.max_length);
  IntruderResult r = run_in_build(tm::method_for(common), c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("attacks_found_count", r.attacks_found);
  if (!r.exact) {
    std::fprintf(stderr, "stamp %s: verification failed: found %ld attacks, generated %ld (or a flow was malformed or left undecoded)\n",
                 app.c_str(), r.attacks_found, r.attacks_generated);
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s flows=%ld attacks=%ld abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), c.flows, r.attacks_found, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kIntruder = {"intruder", "intruder options: [--attack-percent A] [--max-length L] [--flows N]", run_intruder};
const Registration kIntruderRegistered(kIntruder);

}  // namespace allocstamp::stamp
