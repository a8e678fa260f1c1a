// main.cpp — the stamp binary: STAMP-like transactional applications, run as
// `stamp <app> --threads N --size tiny|small|medium|large --seed S --tm M
// [app options]` (Contract 3). small is STAMP's simulator input, large its
// non-simulator input. Apps so far: vacation-low, vacation-high, kmeans-low,
// kmeans-high, ssca2, labyrinth, intruder, genome.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "genome.h"
#include "intruder.h"
#include "kmeans.h"
#include "labyrinth.h"
#include "command_line.h"
#include "ssca2.h"
#include "vacation.h"

namespace allocstamp::stamp {
// Each app's body is compiled into these three namespaces (see its *_stm.cpp).
#define ALLOCSTAMP_STAMP_BUILD(build)                \
  namespace build {                                  \
  VacationResult run(const VacationConfig&);         \
  KmeansResult run(const KmeansConfig&);             \
  Ssca2Result run(const Ssca2Config&);               \
  LabyrinthResult run(const LabyrinthConfig&);       \
  IntruderResult run(const IntruderConfig&);         \
  GenomeResult run(const GenomeConfig&);             \
  }
ALLOCSTAMP_STAMP_BUILD(stm)
ALLOCSTAMP_STAMP_BUILD(lock)
ALLOCSTAMP_STAMP_BUILD(seq)
#undef ALLOCSTAMP_STAMP_BUILD
}  // namespace allocstamp::stamp

namespace {

using namespace allocstamp;
using tm::usage_error;

const char* const kUsage =
    "usage: stamp <vacation-low|vacation-high|kmeans-low|kmeans-high|ssca2|labyrinth|intruder|genome> [--threads N]"
    " [--size tiny|small|medium|large] [--seed S] [--tm ml_wt|gl_wt|serialirr|lock|seq]\n"
    "  vacation options: [--relations R] [--transactions T] [--queries N] [--query-percent Q] [--user-percent U]\n"
    "  kmeans options: [--points N] [--dims D] [--clusters K] [--threshold T]\n"
    "  ssca2 options: [--scale S] [--max-path L] [--max-parallel P]\n"
    "  labyrinth options: [--x X] [--y Y] [--z Z] [--paths N]\n"
    "  intruder options: [--attack-percent A] [--max-packets L] [--flows N]\n"
    "  genome options: [--gene-length G] [--segment-length S] [--segments N]\n";

// STAMP's vacation inputs: small -r16384 -t4096, large -r1048576 -t4194304.
void size_vacation(stamp::VacationConfig& c, const std::string& size) {
  if (size == "tiny") c.relations = 1024, c.transactions = 2048;
  else if (size == "small") c.relations = 16384, c.transactions = 4096;
  else if (size == "medium") c.relations = 131072, c.transactions = 262144;
  else if (size == "large") c.relations = 1048576, c.transactions = 4194304;
  else usage_error("--size takes tiny, small, medium or large, not '" + size + "'");
}

// STAMP's kmeans inputs: small 2048 points x 16 dims -t0.05, large 65536 x 32 -t0.00001.
void size_kmeans(stamp::KmeansConfig& c, const std::string& size) {
  if (size == "tiny") c.points = 512, c.dims = 8;
  else if (size == "small") c.points = 2048, c.dims = 16;
  else if (size == "medium") c.points = 16384, c.dims = 24;
  else if (size == "large") c.points = 65536, c.dims = 32, c.threshold = 0.00001;
  else usage_error("--size takes tiny, small, medium or large, not '" + size + "'");
}

// Runs the app's body in the build --tm chose.
template <typename Config>
auto run_in_build(const tm::Method& method, const Config& c) {
  switch (method.build) {
    case tm::Build::stm: return stamp::stm::run(c);
    case tm::Build::lock: return stamp::lock::run(c);
    case tm::Build::seq: break;
  }
  return stamp::seq::run(c);
}

int run_kmeans(const std::string& app, int argc, char** argv) {
  stamp::KmeansConfig c;
  c.clusters = app == "kmeans-low" ? 40 : 15;  // -m40 -n40 / -m15 -n15
  long points = -1;
  int dims = -1;
  double threshold = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--points") points = tm::whole_number(option, value, 1, 1L << 28);
    else if (option == "--dims") dims = int(tm::whole_number(option, value, 1, 1024));
    else if (option == "--clusters") c.clusters = int(tm::whole_number(option, value, 1, 4096));
    else if (option == "--threshold") threshold = std::atof(value);
    else return false;
    return true;
  });
  size_kmeans(c, common.size);
  if (points > 0) c.points = points;
  if (dims > 0) c.dims = dims;
  if (threshold >= 0) c.threshold = threshold;
  if (c.clusters > c.points) usage_error("--clusters cannot exceed the number of points");
  c.threads = common.threads;
  c.seed = common.seed;
  stamp::KmeansResult r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("iterations_count", r.iterations);
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: %.4f of the points are nearer another final centre\n",
                 app.c_str(), r.moved_share);
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s points=%ld iterations=%d abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), c.points, r.iterations, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

// STAMP's ssca2 inputs: small -s13, large -s20 (-i1.0 -u1.0 -l3 -p3).
int run_ssca2(const std::string& app, int argc, char** argv) {
  stamp::Ssca2Config c;
  int scale = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--scale") scale = int(tm::whole_number(option, value, 1, 30));
    else if (option == "--max-path") c.max_path = int(tm::whole_number(option, value, 1, 64));
    else if (option == "--max-parallel") c.max_parallel = int(tm::whole_number(option, value, 1, 64));
    else return false;
    return true;
  });
  if (common.size == "tiny") c.scale = 10;
  else if (common.size == "small") c.scale = 13;
  else if (common.size == "medium") c.scale = 17;
  else if (common.size == "large") c.scale = 20;
  else usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (scale > 0) c.scale = scale;
  c.threads = common.threads;
  c.seed = common.seed;
  stamp::Ssca2Result r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("edges_count", r.edges);
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: the adjacency arrays do not hold exactly the edges\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s vertices=%ld edges=%ld abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), r.vertices, r.edges, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

// STAMP's labyrinth inputs: small a 32x32x3 maze with 96 paths, large 512x512x7 with 512.
int run_labyrinth(const std::string& app, int argc, char** argv) {
  stamp::LabyrinthConfig c;
  int x = -1, y = -1, z = -1, paths = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--x") x = int(tm::whole_number(option, value, 2, 4096));
    else if (option == "--y") y = int(tm::whole_number(option, value, 2, 4096));
    else if (option == "--z") z = int(tm::whole_number(option, value, 1, 64));
    else if (option == "--paths") paths = int(tm::whole_number(option, value, 1, 1 << 20));
    else return false;
    return true;
  });
  if (common.size == "tiny") c.x = 16, c.y = 16, c.z = 2, c.paths = 16;
  else if (common.size == "small") c.x = 32, c.y = 32, c.z = 3, c.paths = 96;
  else if (common.size == "medium") c.x = 128, c.y = 128, c.z = 5, c.paths = 256;
  else if (common.size == "large") c.x = 512, c.y = 512, c.z = 7, c.paths = 512;
  else usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (x > 0) c.x = x;
  if (y > 0) c.y = y;
  if (z > 0) c.z = z;
  if (paths > 0) c.paths = paths;
  c.threads = common.threads;
  c.seed = common.seed;
  stamp::LabyrinthResult r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("paths_routed_count", r.routed);
  memprof::metric("paths_unroutable_count", r.unroutable);
  memprof::metric("reroutes_count", r.retries);
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: a path is broken or two paths share a cell\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s routed=%ld unroutable=%ld reroutes=%ld abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, common.method.c_str(), r.routed, r.unroutable, r.retries, tm::abort_rate(),
              double(r.elapsed_ns) / 1e6);
  return 0;
}

// STAMP's intruder inputs: small -a10 -l4 -n2038 -s1, large -a10 -l128 -n262144 -s1.
int run_intruder(const std::string& app, int argc, char** argv) {
  stamp::IntruderConfig c;
  int attack = -1, max_packets = -1;
  long flows = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--attack-percent") attack = int(tm::whole_number(option, value, 0, 100));
    else if (option == "--max-packets") max_packets = int(tm::whole_number(option, value, 1, 1 << 16));
    else if (option == "--flows") flows = tm::whole_number(option, value, 1, 1L << 30);
    else return false;
    return true;
  });
  if (common.size == "tiny") c.flows = 256, c.max_packets = 4;
  else if (common.size == "small") c.flows = 2038, c.max_packets = 4;
  else if (common.size == "medium") c.flows = 32768, c.max_packets = 32;
  else if (common.size == "large") c.flows = 262144, c.max_packets = 128;
  else usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (attack >= 0) c.attack_percent = attack;
  if (max_packets > 0) c.max_packets = max_packets;
  if (flows > 0) c.flows = flows;
  c.threads = common.threads;
  c.seed = common.seed;
  stamp::IntruderResult r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("attacks_found_count", r.attacks_found);
  if (!r.exact) {
    std::fprintf(stderr, "stamp %s: verification failed: found %ld attacks, generated %ld (or flows left undecoded)\n",
                 app.c_str(), r.attacks_found, r.attacks_generated);
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s flows=%ld attacks=%ld abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), c.flows, r.attacks_found, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

// STAMP's genome inputs: small -g256 -s16 -n16384, large -g16384 -s64 -n16777216.
int run_genome(const std::string& app, int argc, char** argv) {
  stamp::GenomeConfig c;
  long gene = -1, segments = -1;
  int segment = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--gene-length") gene = tm::whole_number(option, value, 8, 1L << 30);
    else if (option == "--segment-length") segment = int(tm::whole_number(option, value, 4, 4096));
    else if (option == "--segments") segments = tm::whole_number(option, value, 1, 1L << 32);
    else return false;
    return true;
  });
  if (common.size == "tiny") c.gene_length = 128, c.segment_length = 16, c.segments = 1024;
  else if (common.size == "small") c.gene_length = 256, c.segment_length = 16, c.segments = 16384;
  else if (common.size == "medium") c.gene_length = 4096, c.segment_length = 32, c.segments = 262144;
  else if (common.size == "large") c.gene_length = 16384, c.segment_length = 64, c.segments = 16777216;
  else usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (gene > 0) c.gene_length = gene;
  if (segment > 0) c.segment_length = segment;
  if (segments > 0) c.segments = segments;
  if (c.segment_length > c.gene_length) usage_error("--segment-length cannot exceed --gene-length");
  c.threads = common.threads;
  c.seed = common.seed;
  stamp::GenomeResult r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("unique_segments_count", r.unique_segments);
  if (!r.rebuilt) {
    std::fprintf(stderr, "stamp %s: verification failed: the rebuilt sequence is not the gene\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s gene=%ld unique_segments=%ld abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), c.gene_length, r.unique_segments, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

int run_vacation(const std::string& app, int argc, char** argv) {
  stamp::VacationConfig c;
  if (app == "vacation-low") c.queries = 2, c.query_percent = 90, c.user_percent = 98;  // -n2 -q90 -u98
  else c.queries = 4, c.query_percent = 60, c.user_percent = 90;                         // -n4 -q60 -u90
  long relations = -1, transactions = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--relations") relations = tm::whole_number(option, value, 1, 1L << 30);
    else if (option == "--transactions") transactions = tm::whole_number(option, value, 0, 1L << 40);
    else if (option == "--queries") c.queries = int(tm::whole_number(option, value, 1, 64));
    else if (option == "--query-percent") c.query_percent = int(tm::whole_number(option, value, 1, 100));
    else if (option == "--user-percent") c.user_percent = int(tm::whole_number(option, value, 0, 100));
    else return false;
    return true;
  });
  size_vacation(c, common.size);
  if (relations > 0) c.relations = relations;
  if (transactions >= 0) c.transactions = transactions;
  c.threads = common.threads;
  c.seed = common.seed;
  stamp::VacationResult r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
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

int main(int argc, char** argv) {
  allocstamp::tm::set_program({"stamp", kUsage});
  if (argc < 2) usage_error("which app?");
  std::string app = argv[1];
  if (app == "vacation-low" || app == "vacation-high") return run_vacation(app, argc, argv);
  if (app == "kmeans-low" || app == "kmeans-high") return run_kmeans(app, argc, argv);
  if (app == "ssca2") return run_ssca2(app, argc, argv);
  if (app == "labyrinth") return run_labyrinth(app, argc, argv);
  if (app == "intruder") return run_intruder(app, argc, argv);
  if (app == "genome") return run_genome(app, argc, argv);
  usage_error("unknown app '" + app + "'");
}
