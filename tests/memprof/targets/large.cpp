// large — blocks beyond what memprof keeps in a shadow entry (32,765 bytes) and
// beyond what a thread's 32-bit lanes take in one change (1 GiB): their sizes,
// the requested peak and the usable heap must stay exact. The large blocks are
// never touched, so they cost address space, not memory. `large 0` only
// reports the start (the baseline).
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <memprof/memprof.h>

int main(int argc, char** argv) {
  memprof::reset_peak();
  memprof::metric("start_bytes", memprof::current_bytes());
  if (argc < 2 || strcmp(argv[1], "1") != 0) return 0;
  const size_t kMiB = size_t(1) << 20;
  void* medium = malloc(40000);                   // a spilled entry
  void* odd = aligned_alloc(4096, 50000);         // spilled and odd (asked again at free)
  void* big = malloc(4608 * kMiB);                // 4.5 GiB: one change beyond a lane
  if (!medium || !odd || !big) return 2;
  free(big);                                      // the peak: 4.5 GiB + 90,000
  void* a = malloc(768 * kMiB);                   // within a lane each, 1.5 GiB together
  void* b = malloc(768 * kMiB + 4096);
  void* grown = realloc(medium, 1536 * kMiB);     // a resize beyond a lane
  if (!a || !b || !grown) return 3;
  memprof::metric("live_usable_bytes", int64_t(malloc_usable_size(a) + malloc_usable_size(b) +
                                               malloc_usable_size(grown) + malloc_usable_size(odd)));
  memprof::phase_end();                           // live: 3 GiB + 4096 + 50,000
  free(a);
  free(b);
  free(grown);
  free(odd);
  return 0;
}
