// sampling.cpp — sampled call sites (sampling.h): the countdown, the table of
// stacks, the table of sampled blocks, and the file written at exit. Both
// tables are mapped with mmap and filled with compare-and-swap: no malloc, no
// lock of memprof's own (backtrace() may take the loader's lock to find
// unwind tables; it runs once per N bytes allocated, not per call).
#include "recording/sampling.h"

#include <execinfo.h>
#include <math.h>
#include <sys/mman.h>

#include <atomic>

#include "base/options.h"
#include "base/text.h"
#include "os/files.h"
#include "os/own_file.h"
#include "os/process.h"
#include "os/raw_syscalls.h"
#include "recording/heap.h"
#include "recording/shadow.h"

namespace memprof::sampling {
namespace {

constexpr int kMaxFrames = 48;
constexpr size_t kStacks = size_t(1) << 14;   // distinct stacks kept (more are counted as dropped)
// Sampled blocks live at once: 65,536 stand for 32 GiB of live heap at the
// default N (512 KiB), 4 GiB at 64 KiB; one more is counted as dropped. The
// table is 1 MiB: its slots are random, and each page a sample first touches
// costs two page faults, so it is kept small.
constexpr size_t kSampled = size_t(1) << 16;
constexpr uintptr_t kTombstone = 1;

struct Stack {
  std::atomic<uint64_t> hash;    // 0: empty
  std::atomic<uint32_t> ready;   // frames written
  uint32_t depth;
  uintptr_t frames[kMaxFrames];
  std::atomic<uint64_t> samples, freed_samples;
  // Estimates: bytes, and counts in 1/1024ths (a sample stands for 1/p blocks).
  std::atomic<uint64_t> alloc_bytes, alloc_count_1024, freed_bytes, freed_count_1024;
  std::atomic<uint64_t> live_bytes_at_peak;  // alloc_bytes - freed_bytes when the heap last peaked
};

// A sampled block's weights follow from its size (weights()), which its free
// finds in the shadow: the slot keeps only the address and the stack.
struct Sampled {
  std::atomic<uintptr_t> address;  // 0 empty, kTombstone freed
  uint32_t stack;
};
static_assert(sizeof(Sampled) == 16, "a slot is 16 bytes");

bool on = false;
uint64_t mean_bytes = 0;
Stack* stacks = nullptr;
Sampled* sampled = nullptr;
constinit std::atomic<uint64_t> dropped{0};        // samples with no room in a table
// One bit per hash of a sampled address, never cleared: most odd frees (blocks
// whose usable size the memo cannot vouch for, common under some allocators)
// are told "not sampled" by one load from 8 KiB instead of a probe of the table.
constexpr size_t kFilterWords = 1024;
constinit std::atomic<uint64_t> filter[kFilterWords];
constinit std::atomic<uint64_t> thread_seeds{0};
// The stacks in use, in the order they were interned (the peak snapshot walks
// these, not the whole table).
uint32_t* used = nullptr;
constinit std::atomic<uint32_t> used_count{0};
// The live estimates at the heap's peak. The estimates change only at sample
// events (a sampled block allocated or freed), so between two events they are
// what they were after the first: when an event finds the peak higher than at
// the last snapshot (and not reset since), the peak was reached since the last
// event, with the estimates as they stand, and they are copied. An allocation
// event copies after counting itself (its block may be the peak), a free event
// before. One thread copies at a time; another that finds it busy skips (its
// copy would be the same to within the events in flight).
constinit std::atomic<int64_t> snapshot_peak{-1};
constinit std::atomic<uint32_t> snapshot_resets{0};
constinit std::atomic<bool> snapshot_busy{false};

// `populate`: fault every page in now (one call) rather than two faults per
// page on the first sample that reads and then writes it.
void* map_zeroed(size_t bytes, bool populate = false) {
  void* m = raw::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (populate ? MAP_POPULATE : 0), -1, 0);
  return m == MAP_FAILED ? nullptr : m;
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

// The next countdown: -ln(u) * N with u uniform in (0, 1], from the thread's
// own generator (seeded by the order threads start: runs repeat exactly).
int64_t draw(ThreadState& t) {
  if (t.sample_rng == 0) t.sample_rng = mix(0x9e3779b97f4a7c15ull + thread_seeds.fetch_add(1));
  t.sample_rng ^= t.sample_rng << 13;
  t.sample_rng ^= t.sample_rng >> 7;
  t.sample_rng ^= t.sample_rng << 17;
  double u = double((t.sample_rng >> 11) + 1) * (1.0 / 9007199254740992.0);
  double v = -log(u) * double(mean_bytes);
  return v >= 9.0e18 ? INT64_MAX : int64_t(v);
}

uint32_t intern(void* const* frames, int depth) {
  uint64_t h = 0x84222325cbf29ce4ull;
  for (int i = 0; i < depth; ++i) h = mix(h ^ uintptr_t(frames[i]));
  if (h == 0) h = 1;
  for (size_t probe = 0; probe < kStacks; ++probe) {
    size_t i = (h + probe) & (kStacks - 1);
    Stack& s = stacks[i];
    uint64_t seen = s.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (s.hash.compare_exchange_strong(seen, h, std::memory_order_acq_rel)) {
        s.depth = uint32_t(depth);
        for (int f = 0; f < depth; ++f) s.frames[f] = uintptr_t(frames[f]);
        s.ready.store(1, std::memory_order_release);
        used[used_count.fetch_add(1, std::memory_order_acq_rel)] = uint32_t(i);
        return uint32_t(i);
      }
    }
    if (seen != h) continue;
    while (s.ready.load(std::memory_order_acquire) == 0) {
    }
    bool same = s.depth == uint32_t(depth);
    for (int f = 0; same && f < depth; ++f) same = s.frames[f] == uintptr_t(frames[f]);
    if (same) return uint32_t(i);
  }
  return UINT32_MAX;
}

Sampled* find(uintptr_t address) {
  size_t start = mix(address) & (kSampled - 1);
  for (size_t probe = 0; probe < kSampled; ++probe) {
    Sampled& e = sampled[(start + probe) & (kSampled - 1)];
    uintptr_t a = e.address.load(std::memory_order_acquire);
    if (a == address) return &e;
    if (a == 0) return nullptr;
  }
  return nullptr;
}

// What a sample of a block of n bytes stands for: n / p bytes and 1 / p blocks
// (in 1/1024ths), p = 1 - exp(-n/N) its chance of being sampled.
void weights(size_t n, uint64_t* bytes, uint64_t* count_1024) {
  double probability = -expm1(-double(n) / double(mean_bytes));
  if (probability <= 0) probability = 1e-12;
  *bytes = uint64_t(double(n) / probability + 0.5);
  double count = 1024.0 / probability;
  *count_1024 = count > 4e9 ? uint64_t(4e9) : uint64_t(count + 0.5);
}

bool remember(uintptr_t address, uint32_t stack) {
  size_t start = mix(address) & (kSampled - 1);
  for (size_t probe = 0; probe < kSampled; ++probe) {
    Sampled& e = sampled[(start + probe) & (kSampled - 1)];
    uintptr_t a = e.address.load(std::memory_order_acquire);
    if (a != 0 && a != kTombstone) continue;
    e.stack = stack;
    if (e.address.compare_exchange_strong(a, address, std::memory_order_acq_rel)) {
      uint64_t bit = mix(address ^ 0x5bd1e995u) & (kFilterWords * 64 - 1);
      filter[bit / 64].fetch_or(uint64_t(1) << (bit % 64), std::memory_order_release);
      return true;
    }
  }
  return false;
}

void snapshot_if_peak_grew(const ThreadState& t) {
  int64_t peak = peak_requested(t);
  uint32_t resets = shared.peak_resets.load(std::memory_order_acquire);
  bool reset = resets != snapshot_resets.load(std::memory_order_relaxed);
  if (!reset && peak <= snapshot_peak.load(std::memory_order_relaxed)) return;
  if (snapshot_busy.exchange(true, std::memory_order_acquire)) return;
  uint32_t n = used_count.load(std::memory_order_acquire);
  for (uint32_t k = 0; k < n; ++k) {
    Stack& s = stacks[used[k]];
    uint64_t alloc = s.alloc_bytes.load(std::memory_order_relaxed), freed = s.freed_bytes.load(std::memory_order_relaxed);
    s.live_bytes_at_peak.store(alloc > freed ? alloc - freed : 0, std::memory_order_relaxed);
  }
  snapshot_peak.store(peak, std::memory_order_relaxed);
  snapshot_resets.store(resets, std::memory_order_relaxed);
  snapshot_busy.store(false, std::memory_order_release);
}

// A line of /proc/self/maps ("start-end perms offset dev inode path") as
// "map <line>" on the descriptor `context` points at, when it is an
// executable, file-backed mapping.
void write_executable_mapping(const char* row, void* context) {
  const char* perms = row;
  while (*perms && *perms != ' ') ++perms;
  if (*perms != ' ' || perms[3] != 'x') return;
  const char* path = row;
  for (int spaces = 0; *path && spaces < 5; ++path)
    if (*path == ' ') ++spaces;
  while (*path == ' ') ++path;
  if (*path != '/') return;
  text::Line line;
  line.add("map ").add(row).add("\n");
  line.write_to(*static_cast<int*>(context));
}

}  // namespace

void start() {
  if (options.sample_bytes == 0) return;
  if (!options.track_heap) {
    text::Line line;
    line.add("memprof: warning: MEMPROF_SAMPLE_BYTES needs MEMPROF_HEAP=1 (blocks are found by the shadow); no sampling\n");
    line.write_to(2);
    return;
  }
  stacks = static_cast<Stack*>(map_zeroed(kStacks * sizeof(Stack)));
  sampled = static_cast<Sampled*>(map_zeroed(kSampled * sizeof(Sampled), true));
  used = static_cast<uint32_t*>(map_zeroed(kStacks * sizeof(uint32_t)));
  if (!stacks || !sampled || !used) return;
  void* warm[4];
  backtrace(warm, 4);  // loads the unwinder (it allocates the first time): before counting starts
  mean_bytes = options.sample_bytes;
  on = true;
}

int64_t first_countdown() { return on ? draw(self) : INT64_MAX; }

void take(ThreadState& t, void* p, size_t n) {
  if (!on) {
    t.sample_left = INT64_MAX;
    return;
  }
  t.sample_left = draw(t);
  void* frames[kMaxFrames];
  int depth = backtrace(frames, kMaxFrames);
  uint32_t stack = intern(frames, depth);
  uint64_t bytes, count_1024;
  weights(n, &bytes, &count_1024);
  if (stack == UINT32_MAX || !remember(uintptr_t(p), stack)) {
    dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Stack& s = stacks[stack];
  s.samples.fetch_add(1, std::memory_order_relaxed);
  s.alloc_bytes.fetch_add(bytes, std::memory_order_relaxed);
  s.alloc_count_1024.fetch_add(count_1024, std::memory_order_relaxed);
  shadow::remember(p, n, true);  // odd: its free takes the rare path, which asks on_odd_free
  snapshot_if_peak_grew(t);
}

void on_odd_free(const void* p, size_t n) {
  if (!on) return;
  uint64_t bit = mix(uintptr_t(p) ^ 0x5bd1e995u) & (kFilterWords * 64 - 1);
  if (!(filter[bit / 64].load(std::memory_order_acquire) & (uint64_t(1) << (bit % 64)))) return;
  Sampled* e = find(uintptr_t(p));
  if (!e) return;
  snapshot_if_peak_grew(self);
  Stack& s = stacks[e->stack];
  uint64_t bytes, count_1024;
  weights(n, &bytes, &count_1024);
  s.freed_samples.fetch_add(1, std::memory_order_relaxed);
  s.freed_bytes.fetch_add(bytes, std::memory_order_relaxed);
  s.freed_count_1024.fetch_add(count_1024, std::memory_order_relaxed);
  e->address.store(kTombstone, std::memory_order_release);
}

void finish() {
  if (!on || !options.callsites[0]) return;
  snapshot_if_peak_grew(self);
  // A fresh file renamed over the name at the end: a link or FIFO planted at
  // the name (or a link at its folder) is never written through.
  own_file::File file;
  if (!own_file::open(file, options.callsites)) {
    text::Line line;
    line.add("memprof: warning: MEMPROF_CALLSITES='").add(options.callsites)
        .add("' cannot be written (its folder is a link, or not a folder, or not writable)\n");
    line.write_to(2);
    return;
  }
  int fd = file.fd;
  {
    text::Line line;
    line.add("# allocstamp callsites format=1\nsample_bytes=").num(mean_bytes).add(" pid=").num(uint64_t(process::pid()))
        .add(" dropped=").num(dropped.load()).add("\n");
    line.write_to(fd);
  }
  // The executable mappings, as /proc/self/maps gives them: "map <line>".
  files::each_line("/proc/self/maps", write_executable_mapping, &fd);
  // The stacks in use only: the rest of the table was never touched (reading
  // it would fault in every page).
  uint32_t in_use = used_count.load();
  for (uint32_t k = 0; k < in_use; ++k) {
    uint32_t i = used[k];
    Stack& s = stacks[i];
    if (s.hash.load() == 0 || s.ready.load() == 0) continue;
    text::Line line;
    line.add("stack ").num(uint64_t(i)).add(" samples=").num(s.samples.load())
        .add(" freed_samples=").num(s.freed_samples.load())
        .add(" est_alloc_bytes=").num(s.alloc_bytes.load())
        .add(" est_alloc_count=").num(s.alloc_count_1024.load() / 1024)
        .add(" est_freed_bytes=").num(s.freed_bytes.load())
        .add(" est_freed_count=").num(s.freed_count_1024.load() / 1024)
        .add(" est_live_bytes_at_peak=").num(s.live_bytes_at_peak.load()).add(" frames=");
    for (uint32_t f = 0; f < s.depth; ++f) line.add(f ? "," : "").hex(s.frames[f]);
    line.add("\n");
    line.write_to(fd);
  }
  if (!own_file::commit(file)) {
    text::Line line;
    line.add("memprof: warning: MEMPROF_CALLSITES='").add(options.callsites).add("' cannot be put in place\n");
    line.write_to(2);
  }
}

}  // namespace memprof::sampling
