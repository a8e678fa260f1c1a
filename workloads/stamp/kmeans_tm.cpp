// kmeans_tm.cpp — STAMP's kmeans, allocation for allocation. The input is
// STAMP's generated file (inputs/generate.py: points around 16 uniform random
// centres with Gaussian noise, Python's random seeded with 0), written again
// number for number to a temporary file and read back as STAMP reads it: a
// 1,000,000-byte line buffer (never freed), fopen, three passes of fgets and
// strtok, atof into floats. Then as STAMP's cluster.c and normal.c: the
// z-score transform (one 8-byte moments block per dimension), the random
// generator (a 5000-byte MT19937, seeded 7) picking the initial centres, the
// centre and sum arrays, and Lloyd's iterations in which each point's sum is
// added in one short transaction, each chunk of 3 points is claimed in one,
// and each thread's moved count is added in one; nothing is allocated inside
// them. Like STAMP, a centre whose cluster is empty becomes 0/0 (STAMP's test
// of the member count compares a pointer, so it always divides).
// Verified: every final centre that has members is their mean.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <fcntl.h>
#include <unistd.h>

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "kmeans.h"
#include "python_random.h"
#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
namespace {

constexpr int kChunk = 3;             // points a thread claims at a time
constexpr int kMaxLine = 1000000;     // STAMP's line buffer
constexpr int kMaxLoops = 500;

// Writes generate.py's output for the config to a new temporary file, with
// system calls and a stack buffer: nothing here allocates. Returns the open
// descriptor's path in `path`, or false.
bool write_input(const KmeansConfig& c, char (&path)[512]) {
  const char* dir = std::getenv("TMPDIR");
  std::snprintf(path, sizeof path, "%s/allocstamp-kmeans-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return false;
  PythonRandom random(c.input_seed);
  static double centres[64][1024];  // at most 64 centres x 1024 dims (the options' bounds); main thread only
  for (int k = 0; k < c.centres; ++k)
    for (int d = 0; d < c.dims; ++d) centres[k][d] = random.random();
  const double sigma = std::pow(1.0 / c.centres, 3);
  char out[1 << 16];
  std::size_t used = 0;
  bool ok = true;
  auto flush = [&] {
    ok = ok && write(fd, out, used) == ssize_t(used);
    used = 0;
  };
  for (long row = 1; row <= c.points; ++row) {
    int centre = int(random.random() * c.centres);
    used += std::size_t(std::snprintf(out + used, sizeof out - used, "%ld", row));
    for (int d = 0; d < c.dims; ++d) {
      if (sizeof out - used < 64) flush();
      used += std::size_t(std::snprintf(out + used, sizeof out - used, " %.12g", centres[centre][d] + random.gauss(0, sigma)));
    }
    out[used++] = '\n';
    if (sizeof out - used < 64) flush();
  }
  flush();
  return close(fd) == 0 && ok;
}

// The input read as STAMP's kmeans.c reads its file.
struct Input {
  char* line = nullptr;
  float* buf = nullptr;
  float** attributes = nullptr;
  int objects = 0, dims = 0;
};

bool read_input(const char* path, Input& in) {
  in.line = static_cast<char*>(std::malloc(kMaxLine));
  FILE* file = std::fopen(path, "r");
  if (!file) return false;
  while (std::fgets(in.line, kMaxLine, file))
    if (std::strtok(in.line, " \t\n")) ++in.objects;
  std::rewind(file);
  while (std::fgets(in.line, kMaxLine, file))
    if (std::strtok(in.line, " \t\n")) {
      while (std::strtok(nullptr, " ,\t\n")) ++in.dims;
      break;
    }
  std::size_t values = std::size_t(in.objects) * std::size_t(in.dims);
  in.buf = static_cast<float*>(std::malloc(values * sizeof(float)));
  in.attributes = static_cast<float**>(std::malloc(std::size_t(in.objects) * sizeof(float*)));
  in.attributes[0] = static_cast<float*>(std::malloc(values * sizeof(float)));
  for (int i = 1; i < in.objects; ++i) in.attributes[i] = in.attributes[i - 1] + in.dims;
  std::rewind(file);
  std::size_t i = 0;
  while (std::fgets(in.line, kMaxLine, file)) {
    if (!std::strtok(in.line, " \t\n")) continue;
    for (int j = 0; j < in.dims; ++j) in.buf[i++] = float(std::atof(std::strtok(nullptr, " ,\t\n")));
  }
  std::fclose(file);
  return true;
}

float* moments_of(const float* data, int n) {
  float* moments = static_cast<float*>(std::calloc(2, sizeof(float)));
  for (int i = 0; i < n; ++i) moments[0] += data[i];
  moments[0] = moments[0] / n;
  moments[1] = 0;
  for (int i = 0; i < n; ++i) moments[1] += std::pow(data[i] - moments[0], 2);
  moments[1] = moments[1] / n;
  return moments;
}

void zscore_transform(float** data, int objects, int dims) {
  float* column = static_cast<float*>(std::calloc(std::size_t(objects), sizeof(float)));
  for (int d = 0; d < dims; ++d) {
    for (int i = 0; i < objects; ++i) column[i] = data[i][d];
    float* moments = moments_of(column, objects);
    moments[1] = float(std::sqrt(double(moments[1])));
    for (int i = 0; i < objects; ++i) data[i][d] = (data[i][d] - moments[0]) / moments[1];
    std::free(moments);
  }
  std::free(column);
}

float distance2(const float* a, const float* b, int dims) {
  float sum = 0.0f;
  for (int i = 0; i < dims; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

int nearest(const float* point, int dims, float** centres, int clusters) {
  int index = -1;
  float best = FLT_MAX;
  const float limit = 0.99999f;
  for (int k = 0; k < clusters; ++k) {
    float d = distance2(point, centres[k], dims);
    if (d / best < limit) {
      best = d;
      index = k;
      if (best == 0) break;
    }
  }
  return index;
}

// What the threads of one iteration share (STAMP's args_t and its globals).
struct Shared {
  float** feature;
  int dims, points, clusters;
  int* membership;
  float** centres;
  int** new_len;
  float** new_centres;
  long next_start;  // global_i
  float delta;      // global_delta
};

// One transaction per function: _ITM_beginTransaction returns twice, so no
// caller's local lives across it.
__attribute__((noinline)) void tx_add_point(Shared& s, int index, const float* point) {
  TM_BEGIN
  *s.new_len[index] = *s.new_len[index] + 1;
  for (int j = 0; j < s.dims; ++j) s.new_centres[index][j] = s.new_centres[index][j] + point[j];
  TM_END
}

__attribute__((noinline)) long tx_claim_chunk(Shared& s) {
  long start;
  TM_BEGIN
  start = s.next_start;
  s.next_start = start + kChunk;
  TM_END
  return start;
}

__attribute__((noinline)) void tx_add_delta(Shared& s, float delta) {
  TM_BEGIN
  s.delta = s.delta + delta;
  TM_END
}

void work(Shared& s, long id) {
  float delta = 0.0f;
  long start = id * kChunk;
  while (start < s.points) {
    long stop = start + kChunk < s.points ? start + kChunk : s.points;
    for (long i = start; i < stop; ++i) {
      int index = nearest(s.feature[i], s.dims, s.centres, s.clusters);
      if (s.membership[i] != index) delta += 1.0f;
      s.membership[i] = index;
      tx_add_point(s, index, s.feature[i]);
    }
    if (start + kChunk >= s.points) break;
    start = tx_claim_chunk(s);
  }
  tx_add_delta(s, delta);
}

// One iteration's work on every thread: the main thread is thread 0, as in STAMP.
void run_threads(Shared& s, int threads) {
  if (threads == 1) {
    work(s, 0);
    ::allocstamp::tm::publish_thread_counts();
    return;
  }
  memprof::region parallel(MEMPROF_PAR);
  std::vector<std::thread> others;
  others.reserve(std::size_t(threads - 1));
  for (long id = 1; id < threads; ++id)
    others.emplace_back([&s, id] {
      work(s, id);
      ::allocstamp::tm::publish_thread_counts();
    });
  work(s, 0);
  ::allocstamp::tm::publish_thread_counts();
  for (auto& t : others) t.join();
}

// normal.c's clustering for one number of clusters: returns the centres
// ([clusters][dims] as two blocks) and the iterations it took.
float** cluster(const KmeansConfig& c, float** feature, int dims, int points, int* membership, StampRandom& random,
                int& iterations, uint64_t& elapsed_ns) {
  const int k = c.clusters;
  float** centres = static_cast<float**>(std::malloc(std::size_t(k) * sizeof(float*)));
  centres[0] = static_cast<float*>(std::malloc(std::size_t(k) * std::size_t(dims) * sizeof(float)));
  for (int i = 1; i < k; ++i) centres[i] = centres[i - 1] + dims;
  for (int i = 0; i < k; ++i) {
    int n = int(random() % (unsigned long)points);
    for (int j = 0; j < dims; ++j) centres[i][j] = feature[n][j];
  }
  for (int i = 0; i < points; ++i) membership[i] = -1;
  // Each cluster's count and sums on their own 32-byte-aligned stretch, as STAMP lays them out.
  int stride = int(sizeof(int) + sizeof(float) * std::size_t(dims));
  stride += 31 - ((stride - 1) % 32);
  char* sums = static_cast<char*>(std::calloc(std::size_t(k), std::size_t(stride)));
  int** new_len = static_cast<int**>(std::malloc(std::size_t(k) * sizeof(int*)));
  float** new_centres = static_cast<float**>(std::malloc(std::size_t(k) * sizeof(float*)));
  for (int i = 0; i < k; ++i) {
    new_len[i] = reinterpret_cast<int*>(sums + std::size_t(stride) * std::size_t(i));
    new_centres[i] = reinterpret_cast<float*>(sums + std::size_t(stride) * std::size_t(i) + sizeof(int));
  }
  auto start = std::chrono::steady_clock::now();
  int loop = 0;
  float delta;
  do {
    Shared s{feature, dims, points, k, membership, centres, new_len, new_centres, long(c.threads) * kChunk, 0.0f};
    run_threads(s, c.threads);
    delta = s.delta;
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < dims; ++j) {
        centres[i][j] = new_centres[i][j] / float(*new_len[i]);  // STAMP divides even by 0
        new_centres[i][j] = 0.0f;
      }
      *new_len[i] = 0;
    }
    delta /= float(points);
    ++iterations;
  } while (delta > c.threshold && loop++ < kMaxLoops);
  elapsed_ns += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  std::free(sums);
  std::free(new_centres);
  std::free(new_len);
  return centres;
}

// Every final centre with members is their mean (the last update computed it
// from the last memberships), to float precision.
double worst_centre_error(float** feature, int dims, int points, const int* membership, float** centres, int k) {
  double worst = 0;
  for (int cl = 0; cl < k; ++cl)
    for (int d = 0; d < dims; ++d) {
      double sum = 0;
      long members = 0;
      for (int i = 0; i < points; ++i)
        if (membership[i] == cl) sum += feature[i][d], ++members;
      if (members == 0) continue;
      double mean = sum / double(members);
      worst = std::fmax(worst, std::fabs(mean - centres[cl][d]) / (1.0 + std::fabs(mean)));
    }
  return worst;
}

}  // namespace

KmeansResult run(const KmeansConfig& c) {
  KmeansResult r;
  char path[512];
  if (!write_input(c, path)) {
    std::perror("stamp kmeans: cannot write the input file");
    std::exit(1);
  }
  Input in;
  bool read = read_input(path, in);
  unlink(path);
  if (!read || in.objects != c.points || in.dims != c.dims) {
    std::fprintf(stderr, "stamp kmeans: the input file %s did not read back\n", path);
    std::exit(1);
  }
  memprof::phase_begin();
  StampThreadBlocks pool = stamp_thread_startup(c.threads);
  int* assignment = static_cast<int*>(std::malloc(std::size_t(in.objects) * sizeof(int)));  // STAMP's cluster_assign, unused
  keep(assignment);
  std::memcpy(in.attributes[0], in.buf, std::size_t(in.objects) * std::size_t(in.dims) * sizeof(float));
  // cluster.c: membership, the generator, the z-score transform, then one clustering (-m = -n).
  int* membership = static_cast<int*>(std::malloc(std::size_t(in.objects) * sizeof(int)));
  StampRandom* random = stamp_random_new();  // random_alloc: seeded 0
  zscore_transform(in.attributes, in.objects, in.dims);
  random->mt.seed(7);
  float** centres = cluster(c, in.attributes, in.dims, in.objects, membership, *random, r.iterations, r.elapsed_ns);
  r.worst_error = worst_centre_error(in.attributes, in.dims, in.objects, membership, centres, c.clusters);
  r.consistent = r.worst_error < 1e-3;
  std::free(membership);
  stamp_random_delete(random);
  // STAMP prints its centres and time here, before its frees (its stdout
  // buffer is allocated now and never freed).
  std::printf("stamp kmeans: %d points clustered in %d iterations\n", in.objects, r.iterations);
  std::fflush(stdout);
  // kmeans.c's end: everything but the line buffer and the attributes' block
  // is freed (those two after the measured phase).
  float* attribute_block = in.attributes[0];
  std::free(assignment);
  std::free(in.attributes);
  std::free(centres[0]);
  std::free(centres);
  std::free(in.buf);
  stamp_thread_shutdown(pool);
  memprof::phase_end();
  std::free(in.line);
  std::free(attribute_block);
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
