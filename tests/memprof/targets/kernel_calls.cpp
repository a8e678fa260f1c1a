// kernel_calls — the program's own calls to the kernel beside the allocator's.
// `kernel_calls N` maps 64 KiB itself N times (touches it, gives it back with
// madvise(MADV_DONTNEED), unmaps it): calls memprof must not count as the
// allocator's. Then it allocates and touches 64 blocks of 4 MiB (beyond every
// allocator's small sizes: each takes them from the kernel), ends the measured
// phase with them live and frees them. `threads` after N allocates the blocks
// on a second thread while the main one waits (the parallel region); `wait`
// waits after the frees until the process's resident memory has fallen by
// the blocks' size (an allocator's background threads purge them: an event,
// not a time; at most 10 s); `release` then asks the allocator through its own interface, not
// through memprof, to give its free memory back (jemalloc's arena purge,
// mimalloc's mi_collect, gperftools' ReleaseFreeMemory, TBB's buffer cleaning).
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memprof/memprof.h>

#include "resident.h"

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


// Until the resident memory is below `limit` (the blocks purged), at most 30 s
// (10 s was short once with the machine at load 6: 98.5% purged).
void wait_until_resident_below(long limit) {
  for (int i = 0; i < 3000 && resident_bytes() >= limit; ++i) usleep(10000);
}

// Looked up at run time: the program is linked with none of the allocators.
void release_free_memory() {
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  using Collect = void (*)(bool);
  using Release = void (*)();
  using Command = int (*)(int, void*);
  if (auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl")))
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // 4096: MALLCTL_ARENAS_ALL
  else if (auto collect = reinterpret_cast<Collect>(dlsym(RTLD_DEFAULT, "mi_collect")))
    collect(true);
  else if (auto release = reinterpret_cast<Release>(dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory")))
    release();
  else if (auto command = reinterpret_cast<Command>(dlsym(RTLD_DEFAULT, "scalable_allocation_command")))
    command(0, nullptr);  // TBBMALLOC_CLEAN_ALL_BUFFERS
  else if (dlsym(RTLD_DEFAULT, "__scudo_print_stats"))
    mallopt(-101, 0);  // scudo's M_PURGE: release what it caches to the OS
}

}  // namespace

int main(int argc, char** argv) {
  int own = argc > 1 ? atoi(argv[1]) : 0;
  bool threads = argc > 2 && strcmp(argv[2], "threads") == 0;
  bool wait = argc > 2 && strcmp(argv[2], "wait") == 0;
  bool release = argc > 2 && strcmp(argv[2], "release") == 0;
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
  const long resident_with_blocks = resident_bytes();
  for (void* b : blocks) free(b);
  // All of them (but a MiB): jemalloc's decay purges in steps, and a stop at
  // most of them left a loaded machine's run short of the last steps.
  if (wait) wait_until_resident_below(resident_with_blocks - long(kBlocks * kBlockBytes) + (long(1) << 20));
  if (release) release_free_memory();
  return 0;
}
