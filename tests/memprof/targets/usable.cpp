// usable — many live blocks from every kind of entry point (plain sizes 0..5000
// and beyond, calloc, new, aligned, reallocs that grow and shrink in place),
// whose malloc_usable_size the program sums itself at its phase end: memprof's
// usable heap must match it exactly. `usable 0` allocates nothing (the baseline).
// `usable classes`: plain blocks of every size up to past the usable-size memo's
// range on two threads, the second ending before the report and allocating
// once more after memprof's own exit destructor; the program sums the usable
// size of every block and counts them by the histogram's bins, for
// usable_total_bytes and the size_* keys (counted by size class on memprof's
// hot path, folded into the counters where they are read).
// `usable grow`: one block grown by realloc 16 bytes at a time to 16,000 and
// freed; the program sums the usable bytes each step added (malloc's block,
// then what each realloc's block has beyond the one before it), which is what
// usable_total_bytes adds. `usable grow-base` does the same but allocate.
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <memprof/memprof.h>

#include <new>
#include <string>
#include <vector>

namespace {

struct Block {
  void* p;
  int kind;  // 0 C, 1 operator new, 2 aligned operator new
};

int64_t usable_sum(const std::vector<Block>& blocks) {
  int64_t sum = 0;
  for (const Block& b : blocks) sum += int64_t(malloc_usable_size(b.p));
  return sum;
}

// The histogram's bins (keys.def's size_*_count): at most 16, 32, 48, 64, 96,
// 128, 256, 512, 1024 bytes, and more.
int bin_of(size_t n) {
  static const size_t edges[] = {16, 32, 48, 64, 96, 128, 256, 512, 1024};
  int b = 0;
  while (b < 9 && n > edges[b]) ++b;
  return b;
}

struct Tally {
  int64_t usable = 0;
  int64_t bins[10] = {};
  std::vector<Block> kept;  // kind as in Block: 0 malloc or calloc, 1 operator new
};

Block alloc_counted(Tally& t, size_t n, int how) {
  void* p = how == 0 ? malloc(n) : how == 1 ? calloc(1, n) : ::operator new(n);
  t.usable += int64_t(malloc_usable_size(p));
  ++t.bins[bin_of(n)];
  return {p, how == 2 ? 1 : 0};
}

// Every size 0..4200 (the memo serves up to 4096) by malloc, some by calloc and
// operator new, twice each: the first fills the memo, the second is served.
void allocate_sizes(Tally& t) {
  for (int round = 0; round < 2; ++round)
    for (size_t n = 0; n <= 4200; ++n) t.kept.push_back(alloc_counted(t, n, n % 7 == 3 ? 1 : n % 7 == 5 ? 2 : 0));
}

Tally second;
pthread_key_t late_key;

bool working = true;

// A key destructor that runs after memprof's (memprof's key is older): the
// thread allocates once more after its counters were merged.
void after_memprof(void*) {
  if (working) free(alloc_counted(second, 24, 0).p);
}

void* second_thread(void*) {
  pthread_setspecific(late_key, &second);
  if (working) allocate_sizes(second);
  return nullptr;
}

// `classes-base` does the same but allocate the blocks: the baseline.
int classes(bool work) {
  working = work;
  Tally first;
  first.kept.reserve(9000);
  second.kept.reserve(9000);
  if (pthread_key_create(&late_key, after_memprof) != 0) return 4;
  memprof::phase_begin();
  pthread_t other;
  if (pthread_create(&other, nullptr, second_thread, nullptr) != 0) return 5;
  if (work) allocate_sizes(first);
  pthread_join(other, nullptr);
  memprof::metric("usable_allocated_bytes", first.usable + second.usable);
  for (int b = 0; b < 10; ++b) memprof::metric(("bin_" + std::to_string(b)).c_str(), first.bins[b] + second.bins[b]);
  memprof::phase_end();
  for (Tally* t : {&first, &second})
    for (const Block& b : t->kept) {
      if (b.kind == 1) ::operator delete(b.p);
      else free(b.p);
    }
  return 0;
}

int grow(bool work) {
  memprof::phase_begin();
  int64_t added = 0;
  if (work) {
    void* p = malloc(16);
    size_t before = malloc_usable_size(p);
    added += int64_t(before);
    for (size_t n = 32; n <= 16000; n += 16) {
      p = realloc(p, n);
      if (!p) return 6;
      size_t after = malloc_usable_size(p);
      if (after > before) added += int64_t(after - before);
      before = after;
    }
    free(p);
  }
  memprof::metric("usable_grown_bytes", added);
  memprof::phase_end();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "grow") == 0) return grow(true);
  if (argc > 1 && strcmp(argv[1], "grow-base") == 0) return grow(false);
  if (argc > 1 && strcmp(argv[1], "classes") == 0) return classes(true);
  if (argc > 1 && strcmp(argv[1], "classes-base") == 0) return classes(false);
  bool work = !(argc > 1 && argv[1][0] == '0');
  std::vector<Block> blocks;
  blocks.reserve(40000);
  memprof::phase_begin();
  if (work) {
    // Every size up to beyond the memo's range, several times each (the memo is
    // filled by the first and checked every 64th).
    for (int round = 0; round < 4; ++round)
      for (size_t n = 0; n <= 5000; n += 1 + round)
        blocks.push_back({malloc(n), 0});
    for (size_t n = 1; n <= 2000; n += 7) blocks.push_back({calloc(n, 3), 0});
    for (size_t n = 1; n <= 3000; n += 5) blocks.push_back({::operator new(n), 1});
    for (size_t n = 1; n <= 600; n += 3) blocks.push_back({::operator new(n, std::align_val_t(64)), 2});
    for (size_t n = 1; n <= 1000; n += 9) {
      void* p = nullptr;
      if (posix_memalign(&p, 128, n) != 0) return 2;
      blocks.push_back({p, 0});
      blocks.push_back({memalign(32, n), 0});
    }
    // Reallocs that shrink (allocators may keep the block and its size) and grow.
    for (size_t n = 16; n <= 4000; n += 37) {
      void* p = malloc(n);
      p = realloc(p, n / 2 + 1);
      blocks.push_back({p, 0});
      void* q = malloc(n);
      q = realloc(q, n + n / 3);
      blocks.push_back({q, 0});
    }
    for (size_t n : {size_t(8192), size_t(65536), size_t(300000), size_t(3) << 20})
      blocks.push_back({malloc(n), 0});
    for (const Block& b : blocks)
      if (!b.p) return 3;
  }
  memprof::metric("live_usable_bytes", usable_sum(blocks));
  memprof::metric("live_blocks", int64_t(blocks.size()));
  memprof::phase_end();
  for (const Block& b : blocks) {
    if (b.kind == 0) free(b.p);
    if (b.kind == 1) ::operator delete(b.p);
    if (b.kind == 2) ::operator delete(b.p, std::align_val_t(64));
  }
  return 0;
}
