// page_blocks — 8 blocks of 4000 bytes, touched, live at the end of the
// measured phase, freed after it. Reports as `lone_pages` how many of them
// lie alone on a one-page read-write mapping of their own (GWP-ASan's
// guarded slots, when scudo samples them: pages opened with mprotect and
// closed at the free by a PROT_NONE map over them).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memprof/memprof.h>

namespace {

constexpr int kBlocks = 8;
constexpr size_t kBlockBytes = 4000;

// Whether [p, p + 1) lies in a mapping of exactly one page, read-write.
bool alone_on_a_page(const void* p, FILE* maps) {
  unsigned long at = reinterpret_cast<unsigned long>(p), low, high;
  char perms[8];
  rewind(maps);
  char line[512];
  while (fgets(line, sizeof line, maps))
    if (sscanf(line, "%lx-%lx %7s", &low, &high, perms) == 3 && low <= at && at < high)
      return high - low == 4096 && strncmp(perms, "rw", 2) == 0;
  return false;
}

}  // namespace

int main() {
  void* blocks[kBlocks];
  for (void*& b : blocks) {
    b = malloc(kBlockBytes);
    if (!b) return 2;
    memset(b, 1, kBlockBytes);
  }
  FILE* maps = fopen("/proc/self/maps", "r");
  if (!maps) return 3;
  int lone = 0;
  for (void* b : blocks) lone += alone_on_a_page(b, maps);
  fclose(maps);
  memprof::metric("lone_pages", lone);
  memprof::phase_end();
  for (void* b : blocks) free(b);
  return 0;
}
