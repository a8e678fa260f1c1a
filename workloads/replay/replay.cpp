// replay.cpp — replays a recorded allocation trace: the same calls, sizes,
// alignments and threads, in each thread's recorded order, under whatever
// allocator is preloaded; the recorded program's own work is gone. Threads are
// started and joined by the main thread when its own calls reach their recorded
// start and end. A block freed by another thread than its maker is waited for
// (a per-block ready flag). Every block is written (its first and last byte,
// or all of it with --touch all), so the allocator's memory is really used.
// Calls inside transactions are marked for memprof; libitm's own blocks, failed
// calls and frees of blocks the recording never saw are not replayed (so a TM
// program's replay has no tm_internal figures, and a thread started a little
// later than recorded can move a few calls between the seq and par regions). The
// replay's own tables are kept out of memprof's figures (memprof::ignore_*).
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "key_names.h"
#include "replay_plan.h"

namespace {

using namespace allocstamp::trace;
using Clock = std::chrono::steady_clock;

const char* const kUsage =
    "usage: replay TRACE [--timing as-fast-as-possible|recorded] [--gap-ms N] [--touch ends|all]\n"
    "  Replays a trace that MEMPROF_TRACE or `bench trace record` wrote (bench trace replay runs it).\n"
    "  --timing recorded sleeps wherever the recording was idle for more than --gap-ms (default 1).\n";

struct Settings {
  std::string path;
  bool recorded_timing = false;
  uint64_t gap_ns = 1000000;
  bool touch_all = false;
};

[[noreturn]] void usage_error(const std::string& what, const std::string& fix) {
  std::fprintf(stderr, "error: %s — %s\n%s", what.c_str(), fix.c_str(), kUsage);
  std::exit(2);
}

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) usage_error(std::string(name) + " needs a value", "see the usage below");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--timing") {
      std::string v = value("--timing");
      if (v != "as-fast-as-possible" && v != "recorded")
        usage_error("--timing " + v + " is not a timing", "use as-fast-as-possible or recorded");
      s.recorded_timing = v == "recorded";
    } else if (a == "--gap-ms") {
      std::string v = value("--gap-ms");
      char* end = nullptr;
      unsigned long ms = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end) usage_error("--gap-ms " + v + " is not a whole number", "give milliseconds, e.g. 5");
      s.gap_ns = uint64_t(ms) * 1000000;
    } else if (a == "--touch") {
      std::string v = value("--touch");
      if (v != "ends" && v != "all") usage_error("--touch " + v + " is not known", "use ends or all");
      s.touch_all = v == "all";
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option " + a, "see the usage below");
    } else if (s.path.empty()) {
      s.path = a;
    } else {
      usage_error("a second trace " + a, "replay one trace at a time");
    }
  }
  if (s.path.empty()) usage_error("no trace given", "name the trace file");
  return s;
}

// How a block was made, hence how it is released.
enum class Maker : uint8_t { c, scalar_new, array_new, scalar_new_aligned, array_new_aligned };

struct Replay {
  Settings settings;
  std::unique_ptr<Plan> plan;
  std::vector<void*> block;
  std::vector<Maker> maker;
  std::vector<uint32_t> align;
  std::unique_ptr<std::atomic<uint8_t>[]> ready;
  Clock::time_point start;

  void* wait_for(uint64_t id) {
    while (!ready[id].load(std::memory_order_acquire)) sched_yield();
    return block[id];
  }

  void made(uint64_t id, void* p, uint64_t size, Maker how, uint32_t alignment) {
    if (p && size) {
      auto* bytes = static_cast<unsigned char*>(p);
      if (settings.touch_all) std::memset(bytes, 0x5a, size);
      else bytes[0] = bytes[size - 1] = 0x5a;
    }
    block[id] = p;
    maker[id] = how;
    align[id] = alignment;
    ready[id].store(1, std::memory_order_release);
  }

  void release(uint64_t id) {
    void* p = wait_for(id);
    switch (maker[id]) {
      case Maker::c: std::free(p); break;
      case Maker::scalar_new: ::operator delete(p); break;
      case Maker::array_new: ::operator delete[](p); break;
      case Maker::scalar_new_aligned: ::operator delete(p, std::align_val_t(align[id])); break;
      case Maker::array_new_aligned: ::operator delete[](p, std::align_val_t(align[id])); break;
    }
  }

  void call(const Call& c) {
    if (!replayed(c)) return;  // failed, or libitm's own block
    const bool in_tx = c.region == 2;
    if (in_tx) memprof::tx_begin();
    const size_t n = c.size;
    const size_t al = c.align ? c.align : 16;
    switch (c.op) {
      case kMalloc: case kTmMalloc: made(c.id, std::malloc(n), n, Maker::c, 0); break;
      case kCalloc: made(c.id, std::calloc(1, n), n, Maker::c, 0); break;
      case kMemalign: made(c.id, memalign(al, n), n, Maker::c, 0); break;
      case kPosixMemalign: {
        void* p = nullptr;
        if (posix_memalign(&p, al, n) != 0) p = nullptr;
        made(c.id, p, n, Maker::c, 0);
        break;
      }
      case kAlignedAlloc: made(c.id, aligned_alloc(al, n), n, Maker::c, 0); break;
      case kNew: made(c.id, ::operator new(n), n, Maker::scalar_new, 0); break;
      case kNewArray: made(c.id, ::operator new[](n), n, Maker::array_new, 0); break;
      case kNewAligned: made(c.id, ::operator new(n, std::align_val_t(al)), n, Maker::scalar_new_aligned, al); break;
      case kNewArrayAligned:
        made(c.id, ::operator new[](n, std::align_val_t(al)), n, Maker::array_new_aligned, al);
        break;
      case kRealloc: {
        void* old = c.old_id ? wait_for(c.old_id) : nullptr;
        void* q = std::realloc(old, n);  // the recording's block was a malloc-family one
        if (c.id) made(c.id, q, n, Maker::c, 0);
        break;
      }
      default:  // the frees
        if (!c.unknown && c.id && wait_for(c.id)) release(c.id);  // null: libitm's block
    }
    if (in_tx) memprof::tx_end();
  }

  void pace(uint64_t recorded_ns) {
    if (!settings.recorded_timing) return;
    auto due = start + std::chrono::nanoseconds(recorded_ns);
    if (due - Clock::now() > std::chrono::nanoseconds(settings.gap_ns)) std::this_thread::sleep_until(due);
  }

  // The calls of thread `t` in order; the pages of those done are given back.
  // `before(time)` runs ahead of each call (the main thread starts and joins the others there).
  template <typename Before>
  void run_thread(const PlanThread& t, Before before) {
    constexpr uint64_t kPassEvery = 1 << 16;
    const Call* calls = plan->calls();
    uint64_t passed = t.first;
    for (uint64_t i = t.first; i < t.first + t.count; ++i) {
      const Call& c = calls[i];
      before(c.start_ns);
      pace(c.start_ns);
      call(c);
      if (i + 1 - passed >= kPassEvery) plan->passed(passed, i + 1), passed = i + 1;
    }
  }
};

struct Worker {
  Replay* replay;
  const PlanThread* calls;
  pthread_t handle;
  bool started = false, joined = false;
};

void* worker_main(void* raw) {
  auto* w = static_cast<Worker*>(raw);
  w->replay->run_thread(*w->calls, [](uint64_t) {});
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  memprof::ignore_begin();  // the tables below are the replay's, not the recorded program's
  auto replay = std::make_unique<Replay>();
  Replay& r = *replay;
  r.settings = parse(argc, argv);
  try {
    r.plan = std::make_unique<Plan>(r.settings.path);
  } catch (const TraceError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  const PlanHeader& h = r.plan->header();
  if (h.threads == 0) {
    std::fprintf(stderr, "error: %s holds no thread — record a program that allocates\n", r.settings.path.c_str());
    return 2;
  }
  r.block.assign(h.blocks + 1, nullptr);
  r.maker.assign(h.blocks + 1, Maker::c);
  r.align.assign(h.blocks + 1, 0);
  // Blocks no replayed call makes (libitm's own) are ready, as null, from the start:
  // nothing waits for them, and what would release them releases nothing.
  r.ready.reset(new std::atomic<uint8_t>[h.blocks + 1]());
  for (uint64_t id = 1; id <= h.blocks; ++id)
    if (r.plan->ready_at_start(id)) r.ready[id].store(1, std::memory_order_relaxed);
  std::vector<Worker> workers(h.threads);
  for (uint32_t i = 0; i < h.threads; ++i) workers[i] = Worker{&r, &r.plan->thread(i), {}, false, false};

  // Threads start and end in their recorded order, as far as the main thread's
  // calls have come: one that ended before another started is joined first.
  struct Life {
    uint64_t time;
    bool starts;
    size_t worker;
  };
  std::vector<Life> lives;
  for (size_t i = 1; i < workers.size(); ++i) {
    lives.push_back({workers[i].calls->start_ns, true, i});
    if (workers[i].calls->ended) lives.push_back({workers[i].calls->end_ns, false, i});
  }
  std::sort(lives.begin(), lives.end(), [](const Life& a, const Life& b) { return a.time < b.time; });
  size_t next_life = 0;
  memprof::ignore_end();
  auto catch_up = [&](uint64_t now_ns) {
    for (; next_life < lives.size() && lives[next_life].time <= now_ns; ++next_life) {
      Worker& w = workers[lives[next_life].worker];
      if (lives[next_life].starts) {
        w.started = true;
        if (pthread_create(&w.handle, nullptr, worker_main, &w) != 0) {
          worker_main(&w);  // no thread to be had: replay it here
          w.joined = true;
        }
      } else if (w.started && !w.joined) {
        pthread_join(w.handle, nullptr);
        w.joined = true;
      }
    }
  };
  memprof::phase_begin();
  r.start = Clock::now();
  r.run_thread(r.plan->thread(0), catch_up);
  catch_up(UINT64_MAX);
  for (size_t i = 1; i < workers.size(); ++i)
    if (workers[i].started && !workers[i].joined) pthread_join(workers[i].handle, nullptr), workers[i].joined = true;
  int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - r.start).count();
  memprof::phase_end();
  memprof::metric(keys::elapsed_ns, ns);
  memprof::metric("replay_calls_count", int64_t(h.calls));
  memprof::ignore_begin();  // stdout's buffer is the replay's
  std::printf("replay %s: program=%s threads=%u calls=%lu blocks=%lu elapsed_ms=%.2f\n", r.settings.path.c_str(),
              h.program, h.threads, (unsigned long)h.calls, (unsigned long)h.blocks, double(ns) / 1e6);
  std::fflush(stdout);
  // The blocks the recording left live stay live, as they did; the tables are
  // left to the exit as well (freeing them now would count).
  replay.release();
  return 0;
}
