// main.cpp — the maps binary (Contract 3): `maps insert|churn --container NAME ...`.
// Reads the options, sizes the run, runs the app, reports its metrics and exits
// 0 (content checked), 2 (bad usage) or 3 (the container's content was wrong).
#include <cstdio>
#include <cstring>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "containers.h"
#include "key_names.h"
#include "run.h"

namespace allocstamp::maps {
namespace {

const char* const kUsage =
    "usage: maps insert|churn --container NAME [--elements N] [--key u32|u64|string]\n"
    "            [--order random|sorted] [--ops N] [--threads N] [--size tiny|small|medium|large] [--seed S]\n"
    "  insert  fills the container with --elements distinct keys; the measured phase ends with it full\n"
    "  churn   fills it, then runs --ops operations at that size: half lookups, half erase-oldest + insert\n"
    "  containers: std_map std_multimap std_unordered_map absl_btree_map absl_btree_multimap\n"
    "              absl_flat_hash_map absl_node_hash_map tbb_concurrent_hash_map std_vector_sorted\n"
    "  --threads N: each thread fills its own container (tbb_concurrent_hash_map: one shared)\n"
    "  --size: insert 10,000 / 256,000 / 1,024,000 / 8,192,000 elements (large = the 2013 STX study);\n"
    "          churn 10,000 / 100,000 / 1,000,000 / 8,192,000 elements, --ops = 2 x elements\n"
    "  exit status: 0 ok, 2 bad usage, 3 the content check failed\n";

bool known_container(std::string_view name) {
  for (std::string_view c : kContainers)
    if (c == name) return true;
  return false;
}

int run(int argc, char** argv) {
  workload::set_program({"maps", kUsage});
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string app = argv[1];
  if (app != "insert" && app != "churn") workload::usage_error("unknown app '" + app + "'");
  Config c;
  long elements = -1, ops = -1;
  std::string order = "random";
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--container") c.container = value;
    else if (option == "--elements") elements = workload::whole_number(option, value, 1, 1L << 31);
    else if (option == "--ops") ops = workload::whole_number(option, value, 0, 1L << 40);
    else if (option == "--key") c.key = value;
    else if (option == "--order") order = value;
    else return false;
    return true;
  });
  if (c.container.empty()) workload::usage_error("--container is required");
  if (!known_container(c.container)) workload::usage_error("unknown --container '" + std::string(c.container) + "'");
  if (c.key != "u32" && c.key != "u64" && c.key != "string")
    workload::usage_error("--key takes u32, u64 or string, not '" + c.key + "'");
  if (order != "random" && order != "sorted") workload::usage_error("--order takes random or sorted, not '" + order + "'");
  if (app == "churn" && c.container == "std_vector_sorted")
    workload::usage_error("churn needs erase: std_vector_sorted is insert-only (the lower bound for insert)");
  c.order = order == "sorted" ? Order::sorted : Order::random;
  c.elements = elements > 0 ? uint64_t(elements) : elements_for(app, common.size);
  c.ops = ops >= 0 ? uint64_t(ops) : 2 * c.elements;
  c.threads = common.threads;
  c.seed = common.seed;
  if (c.elements < uint64_t(c.threads)) workload::usage_error("--elements must be at least --threads");
  // u32 keys are distinct only while the key space (every key a run ever inserts) fits 32 bits.
  if (c.key == "u32" && c.elements + (app == "churn" ? c.ops + 2 * uint64_t(c.threads) : 0) > (uint64_t(1) << 32))
    workload::usage_error("u32 keys run out: --elements plus --ops exceed 2^32 distinct keys (use --key u64)");

  Result r;
  bool ran = app == "insert" ? run_insert(c, r) : run_churn(c, r);
  if (!ran) workload::usage_error(r.problem);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  memprof::metric(keys::elements_count, int64_t(r.elements));
  if (r.rss_baseline_kb >= 0) memprof::metric(keys::rss_baseline_kb, r.rss_baseline_kb);
  if (app == "churn") {
    memprof::metric("fill_ns", int64_t(r.fill_ns));
    memprof::metric("lookups_count", int64_t(r.lookups));
    memprof::metric("replaces_count", int64_t(r.replaces));
  }
  if (!r.problem.empty()) {
    std::fprintf(stderr, "maps %s: verification failed: %s %s\n", app.c_str(), std::string(c.container).c_str(),
                 r.problem.c_str());
    return 3;
  }
  std::printf("maps %s: container=%s key=%s order=%s threads=%d elements=%llu elapsed_ms=%.2f ns_per_op=%.1f",
              app.c_str(), std::string(c.container).c_str(), c.key.c_str(), order.c_str(), c.threads,
              static_cast<unsigned long long>(r.elements), double(r.elapsed_ns) / 1e6,
              double(r.elapsed_ns) / double(app == "insert" ? c.elements : (c.ops ? c.ops : 1)));
  if (r.held_bytes >= 0) std::printf(" held_bytes_per_element=%.2f", double(r.held_bytes) / double(r.elements));
  std::printf("\n");
  return 0;
}

}  // namespace
}  // namespace allocstamp::maps

int main(int argc, char** argv) { return allocstamp::maps::run(argc, argv); }
