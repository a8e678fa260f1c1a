// larson.cpp — Larson and Krishnan's server simulation as mimalloc-bench runs
// it (`larson 5 8 1000 5000 100 4141 N`): the main thread fills one array of
// 5000 blocks per thread (sizes 8–999), shuffles them and replaces each four
// times over; then each of N threads replaces random blocks of its own array
// (delete[], new char[] of a random size, two bytes written), and after
// rounds × blocks replacements starts a successor thread on the same array and
// ends — so a block dies in the thread after the one that made it.
//
// The original stops after a fixed time; here each array gets a fixed number
// of replacements (--replacements, split into thread lifetimes of rounds ×
// blocks), so the counts are the same under every allocator and elapsed_ns is
// the time of that work. The sizes and victims come from the original's own
// generator (Numerical Recipes' shuffled LCG, Wolfram Gloger's lran2), seeded
// by 4141 + --seed - 1 (bench's seed 1 is bench.sh's 4141): N replacements here are the first N of the
// original's. Verified at the end: every block's two written bytes and the
// replacements made. The blocks are left live at exit, as the original does.
#include <pthread.h>
#include <semaphore.h>

#include <algorithm>
#include <new>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

// Numerical Recipes' linear congruential generator behind a 97-entry shuffle
// table, as Larson's driver uses it: the same seed gives the original's sizes.
class ShuffledLcg {
 public:
  explicit ShuffledLcg(long seed = 0) {
    long x = (kIncrement - seed) % kModulus;
    if (x < 0) x = -x;
    for (long& entry : table_) entry = x = (kMultiplier * x + kIncrement) % kModulus;
    x_ = y_ = (kMultiplier * x + kIncrement) % kModulus;
  }
  long next() {
    long& entry = table_[y_ % 97];
    y_ = entry;
    x_ = (kMultiplier * x_ + kIncrement) % kModulus;
    entry = x_;
    return y_;
  }

 private:
  static constexpr long kModulus = 714025, kMultiplier = 1366, kIncrement = 150889;
  long table_[97];
  long x_, y_;
};

struct Config {
  int threads = 1;
  long min_size = 8, max_size = 1000;  // sizes in [min, max), as the original draws them
  long blocks = 5000;                  // per thread
  long rounds = 100;                   // a thread lives rounds × blocks replacements
  long replacements = 0;               // per array, over all its threads
  bool sized = false;                  // larson-sized: sized delete[]
  long seed = 4141;
};

// The two bytes each block gets: the original writes 'a' and 'b'; these also
// say which slot and size the block was made for, so an overlap shows.
inline char first_byte(size_t slot) { return char('a' + slot % 26); }
inline char second_byte(size_t size) { return char(size); }

// One array and the chain of threads that works on it, one after another.
struct alignas(64) Lane {
  const Config* config;
  char** blocks;
  size_t* sizes;
  ShuffledLcg random;
  long left;  // replacements still to make
  long made = 0;
  sem_t* done;
};

void release(const Config& c, char* block, size_t size) {
  if (c.sized) ::operator delete[](block, size);
  else delete[] block;
}

size_t draw_size(const Config& c, ShuffledLcg& random) {
  long range = c.max_size - c.min_size;
  return size_t(range == 0 ? c.min_size : c.min_size + random.next() % range);
}

void* lifetime(void* argument);

void start_thread(Lane* lane) {
  // Never joined, like the original's threads: each new one gets a new stack.
  pthread_t thread;
  if (int error = pthread_create(&thread, nullptr, lifetime, lane)) {
    std::fprintf(stderr, "stress larson: pthread_create failed (%d)\n", error);
    std::exit(1);
  }
#if defined(__SANITIZE_THREAD__)
  pthread_detach(thread);  // ThreadSanitizer reports a thread never joined as a leak
#endif
}

// One thread's life: rounds × blocks replacements on its lane's array (the
// first ones free the blocks its predecessor made), then a successor.
void* lifetime(void* argument) {
  Lane& lane = *static_cast<Lane*>(argument);
  const Config& c = *lane.config;
  LeftAtExit leaves;
  long n = std::min(lane.left, c.rounds * c.blocks);
  for (long i = 0; i < n; ++i) {
    size_t victim = size_t(lane.random.next() % c.blocks);
    release(c, lane.blocks[victim], lane.sizes[victim]);
    size_t size = draw_size(c, lane.random);
    char* block = new char[size];
    lane.blocks[victim] = block;
    lane.sizes[victim] = size;
    volatile char* touch = block;  // the original writes two bytes and reads one back
    touch[0] = first_byte(victim);
    (void)touch[0];
    touch[1] = second_byte(size);
  }
  lane.made += n;
  lane.left -= n;
  if (lane.left > 0) start_thread(&lane);
  else sem_post(lane.done);
  // As the original ends its threads: the first pthread_exit has glibc load its
  // unwinder, one 56-byte block that is part of the original's figures.
  pthread_exit(nullptr);
}

// The original keeps its arrays in static storage, off the heap; these come
// from the heap where memprof does not count them, and stay until exit.
template <typename T>
T* bookkeeping(size_t n) {
  memprof::ignore_begin();
  T* table = new T[n]();
  memprof::ignore_end();
  return table;
}

int run_larson(const std::string& app, int argc, char** argv) {
  Config c;
  long replacements = -1, rounds = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--replacements") replacements = workload::whole_number(option, value, 1, 1L << 40);
    else if (option == "--rounds") rounds = workload::whole_number(option, value, 1, 1L << 20);
    else if (option == "--blocks") c.blocks = workload::whole_number(option, value, 2, 1L << 20);
    else if (option == "--min-size") c.min_size = workload::whole_number(option, value, 2, 1L << 30);
    else if (option == "--max-size") c.max_size = workload::whole_number(option, value, 2, 1L << 30);
    else if (option == "--sized") c.sized = workload::whole_number(option, value, 0, 1) == 1;
    else return false;
    return true;
  });
  // tiny: five short lifetimes; small ≈ 1 s under glibc here at one thread;
  // medium and large about what the original does in its 5 s and 20 s.
  c.replacements = by_size(common.size, 100'000, 10'000'000, 50'000'000, 200'000'000);
  c.rounds = by_size(common.size, 4, 100, 100, 100);
  if (replacements > 0) c.replacements = replacements;
  if (rounds > 0) c.rounds = rounds;
  if (c.min_size > c.max_size) workload::usage_error("--min-size cannot exceed --max-size");
  c.threads = common.threads;
  c.seed = 4141 + long(common.seed) - 1;  // bench's default seed 1 is bench.sh's 4141, as each stress program maps it

  LeftAtExit leaves;
  const size_t total = size_t(c.blocks) * size_t(c.threads);
  char** blocks = bookkeeping<char*>(total);
  size_t* sizes = bookkeeping<size_t>(total);
  Lane* lanes = bookkeeping<Lane>(size_t(c.threads));

  // The original's warm-up, by the main thread and not timed: fill, shuffle,
  // and replace every block four times over on average.
  ShuffledLcg random(c.seed);
  for (size_t i = 0; i < total; ++i) {
    sizes[i] = draw_size(c, random);
    blocks[i] = new char[sizes[i]];
  }
  for (size_t left = total; left > 0; --left) {
    size_t other = size_t(random.next() % long(left));
    std::swap(blocks[other], blocks[left - 1]);
    std::swap(sizes[other], sizes[left - 1]);
  }
  for (size_t i = 0; i < 4 * total; ++i) {
    size_t victim = size_t(random.next() % long(total));
    release(c, blocks[victim], sizes[victim]);
    sizes[victim] = draw_size(c, random);
    blocks[victim] = new char[sizes[victim]];
  }
  for (size_t i = 0; i < total; ++i) {
    blocks[i][0] = first_byte(i % size_t(c.blocks));
    blocks[i][1] = second_byte(sizes[i]);
  }

  sem_t done;
  sem_init(&done, 0, 0);
  for (int t = 0; t < c.threads; ++t) {
    Lane& lane = lanes[t];
    lane.config = &c;
    lane.blocks = blocks + size_t(t) * size_t(c.blocks);
    lane.sizes = sizes + size_t(t) * size_t(c.blocks);
    lane.random = ShuffledLcg(random.next());
    lane.left = c.replacements;
    lane.done = &done;
  }
  int64_t ns;
  {
    memprof::region parallel(MEMPROF_PAR);
    for (int t = 0; t < c.threads; ++t) start_thread(&lanes[t]);
    // The original starts its clock once its threads are started.
    Phase phase;
    for (int t = 0; t < c.threads; ++t) sem_wait(&done);
    ns = phase.end();
  }
  long made = 0;
  for (int t = 0; t < c.threads; ++t) made += lanes[t].made;
  report_rate("replacements_per_s", uint64_t(made), ns);
  memprof::metric("blocks_left_count", int64_t(total));

  long broken = 0;
  for (size_t i = 0; i < total; ++i)
    if (blocks[i][0] != first_byte(i % size_t(c.blocks)) || blocks[i][1] != second_byte(sizes[i])) ++broken;
  if (broken) verification_failed(app, std::to_string(broken) + " block(s) were overwritten");
  if (made != c.replacements * c.threads) verification_failed(app, "replacements were lost");
  std::printf("stress %s: threads=%d replacements=%ld per thread, lifetimes of %ld, elapsed_ms=%.2f\n", app.c_str(),
              c.threads, c.replacements, c.rounds * c.blocks, double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kLarson = {"larson",
                     "larson options: [--replacements N] [--rounds R] [--blocks B] [--min-size S] [--max-size S] "
                     "[--sized 0|1]",
                     run_larson};
const Registration kLarsonRegistered(kLarson);

}  // namespace allocstamp::stress
