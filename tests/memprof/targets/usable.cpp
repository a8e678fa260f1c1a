// usable — many live blocks from every kind of entry point (plain sizes 0..5000
// and beyond, calloc, new, aligned, reallocs that grow and shrink in place),
// whose malloc_usable_size the program sums itself at its phase end: memprof's
// usable heap must match it exactly. `usable 0` allocates nothing (the baseline).
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <memprof/memprof.h>

#include <new>
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

}  // namespace

int main(int argc, char** argv) {
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
