// kernel_calls — the program's own calls to the kernel beside the allocator's.
// `kernel_calls N` maps 64 KiB itself N times (touches it, gives it back with
// madvise(MADV_DONTNEED), unmaps it): calls memprof must not count as the
// allocator's. Then it allocates and touches 64 blocks of 4 MiB (beyond every
// allocator's small sizes: each takes them from the kernel), ends the measured
// phase with them live and frees them. `threads` after N allocates the blocks
// on a second thread while the main one waits (the parallel region); `wait`
// sleeps a second after the frees (an allocator's background threads purge
// meanwhile).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memprof/memprof.h>

namespace {

constexpr size_t kOwnBytes = 64 * 1024;
constexpr int kBlocks = 64;
constexpr size_t kBlockBytes = size_t(4) << 20;
void* blocks[kBlocks];

bool map_own(int times) {
  for (int i = 0; i < times; ++i) {
    void* p = mmap(nullptr, kOwnBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    memset(p, 1, kOwnBytes);
    if (madvise(p, kOwnBytes, MADV_DONTNEED) != 0 || munmap(p, kOwnBytes) != 0) return false;
  }
  return true;
}

void* allocate_blocks(void*) {
  for (void*& b : blocks) {
    b = malloc(kBlockBytes);
    if (b) memset(b, 1, kBlockBytes);
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  int own = argc > 1 ? atoi(argv[1]) : 0;
  bool threads = argc > 2 && strcmp(argv[2], "threads") == 0;
  bool wait = argc > 2 && strcmp(argv[2], "wait") == 0;
  if (!map_own(own)) return 2;
  if (threads) {
    pthread_t thread;
    if (pthread_create(&thread, nullptr, allocate_blocks, nullptr) != 0 || pthread_join(thread, nullptr) != 0) return 3;
  } else {
    allocate_blocks(nullptr);
  }
  for (void* b : blocks)
    if (!b) return 4;
  memprof::metric("blocks_bytes", int64_t(kBlocks * kBlockBytes));
  memprof::phase_end();
  for (void* b : blocks) free(b);
  if (wait) sleep(1);
  return 0;
}
