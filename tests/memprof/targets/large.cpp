// large — blocks beyond what memprof keeps in a shadow entry (32,765 bytes) and
// beyond what a thread's 32-bit lanes take in one change (1 GiB): their sizes,
// the requested peak and the usable heap must stay exact. The large blocks are
// never touched, so they cost address space, not memory. `large 0` only
// reports the start (the baseline). `large 1 aligned` adds small blocks with a
// 4 GiB alignment until one has a usable size of 2 GiB or more (glibc serves
// them from their own mapping: a small block, a huge usable size).
// `large spike`: a block of 64 MiB freed at once (the heap's peak), then 20
// blocks of 2 MiB kept and freed one by one: with MEMPROF_SERIES_SIZE=1M each
// of these 42 changes makes a series point, more than MEMPROF_SERIES_MAX=16 keeps.
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <memprof/memprof.h>

int spike() {
  free(malloc(size_t(64) << 20));
  void* steps[20];
  for (void*& p : steps)
    if (!(p = malloc(size_t(2) << 20))) return 4;
  for (void* p : steps) free(p);
  return 0;
}

int main(int argc, char** argv) {
  memprof::reset_peak();
  memprof::metric("start_bytes", memprof::current_bytes());
  if (argc == 2 && strcmp(argv[1], "spike") == 0) return spike();
  if (argc < 2 || strcmp(argv[1], "1") != 0) return 0;
  const size_t kMiB = size_t(1) << 20;
  void* medium = malloc(40000);                   // a spilled entry
  void* odd = nullptr;                            // spilled and odd (asked again at free); not aligned_alloc,
  if (posix_memalign(&odd, 4096, 50000) != 0) odd = nullptr;  // whose size C11 wants a multiple of 4096 (scudo holds to it)
  void* big = malloc(4608 * kMiB);                // 4.5 GiB: one change beyond a lane
  if (!medium || !odd || !big) return 2;
  // The usable peak: here, or at the phase end when glibc's aligned blocks add more.
  size_t peak_usable = malloc_usable_size(medium) + malloc_usable_size(odd) + malloc_usable_size(big);
  free(big);                                      // the peak: 4.5 GiB + 90,000
  void* a = malloc(768 * kMiB);                   // within a lane each, 1.5 GiB together
  void* b = malloc(768 * kMiB + 4096);
  void* grown = realloc(medium, 1536 * kMiB);     // a resize beyond a lane
  if (!a || !b || !grown) return 3;
  size_t live_usable = malloc_usable_size(a) + malloc_usable_size(b) + malloc_usable_size(grown) +
                       malloc_usable_size(odd);
  void* aligned[16];
  int aligned_count = 0;
  bool aligned_over_2g = false;
  if (argc > 2 && strcmp(argv[2], "aligned") == 0) {
    while (aligned_count < 16) {
      void* p = aligned_alloc(size_t(1) << 32, 100);
      if (!p) break;
      aligned[aligned_count++] = p;
      live_usable += malloc_usable_size(p);
      aligned_over_2g = malloc_usable_size(p) >= size_t(1) << 31;
      if (aligned_over_2g) break;
    }
  }
  memprof::metric("live_usable_bytes", int64_t(live_usable));
  memprof::metric("peak_usable_bytes", int64_t(live_usable > peak_usable ? live_usable : peak_usable));
  memprof::metric("aligned_blocks", aligned_count);
  memprof::metric("aligned_usable_over_2g", aligned_over_2g);
  memprof::phase_end();                           // live: 3 GiB + 4096 + 50,000 (+ 100 per aligned block)
  free(a);
  free(b);
  free(grown);
  free(odd);
  for (int i = 0; i < aligned_count; ++i) free(aligned[i]);
  return 0;
}
