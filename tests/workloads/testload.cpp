// testload — a workload binary for the driver's end-to-end tests: one program
// whose apps succeed, crash, hang, fail verification or fail, all on demand.

// Contract 3: testload <app> [--threads N] [--size tiny|small|medium|large]
//                            [--seed S] [app options]
// Exit status: 0 ok, 1 plain failure, 2 bad command line, 3 verification failed.
//
//   alloc        [--blocks N] [--bytes B] [--leak K]  malloc a known pattern,
//                [--more-pct P]                      free half, check the rest, free it
//                (K blocks stay live at exit; P% more blocks: a planted regression)
//                [--daemon FILE] [--daemon-seconds S]  first forks a daemon (setsid: out of the run's
//                                                    process group) that writes its pid to FILE,
//                                                    outlives the run by S seconds (default 3), exits 0
//   crash        [--signal segv|abrt]                 dies by SIGSEGV or SIGABRT
//   hang         [--ignore-term]                      sleeps forever
//   fail-verify                                       reports elapsed_ns, exits 3
//   fail                                              exits 1
//   bad-metric                                        reports elapsed_ns and tx_commits_count=-1
//                                                    (a count outside its type: bench records the
//                                                    run failed, naming the column), exits 0
//   slow         [--ms M] [--jitter-pct J]            sleeps M ms in the phase, give or take
//                                                    a random J% (drawn anew by each process)
//   naps         [--naps N]                          sleeps 1 ms N times in the phase: N voluntary
//                                                    context switches, hardly any involuntary one
//   spin         [--millions N]                      counts to N million in the phase, in user mode:
//                                                    a fixed amount of CPU time, nearly all of it user time
#include <memprof/memprof.h>

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitVerify = 3;

struct Options {
  std::string app;
  uint64_t threads = 1;
  std::string size = "small";
  uint64_t seed = 1;
  // alloc
  uint64_t blocks = 0;  // 0: from --size
  bool blocks_set = false;
  uint64_t bytes = 64;
  uint64_t leak = 0;
  // --more-pct, else TESTLOAD_MORE_PCT: a regression planted without changing
  // the arguments (as a code change would), for bench check's tests.
  uint64_t more_pct = 0;
  std::string daemon_file;  // --daemon: a setsid() child's pid goes there
  uint64_t daemon_seconds = 3;
  // crash
  std::string signal = "segv";
  // hang
  bool ignore_term = false;
  // slow
  uint64_t ms = 200;
  uint64_t jitter_pct = 0;
  // naps
  uint64_t naps = 200;
  // spin
  uint64_t millions = 300;
};

[[noreturn]] void usage_error(const std::string &message) {
  std::fprintf(stderr, "testload: %s\n", message.c_str());
  std::fprintf(stderr,
               "usage: testload <alloc|crash|hang|fail-verify|fail|slow|naps|bad-metric|spin> [--threads N] "
               "[--size tiny|small|medium|large] [--seed S] [app options]\n");
  std::exit(kExitUsage);
}

bool parse_u64(std::string_view text, uint64_t &out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

bool known_app(std::string_view app) {
  return app == "alloc" || app == "crash" || app == "hang" || app == "fail-verify" ||
         app == "fail" || app == "slow" || app == "naps" || app == "bad-metric" || app == "spin";
}

// Accepts "--name value" and "--name=value".
Options parse(int argc, char **argv) {
  if (argc < 2) usage_error("missing app");
  Options o;
  if (const char* planted = std::getenv("TESTLOAD_MORE_PCT")) o.more_pct = std::strtoull(planted, nullptr, 10);
  o.app = argv[1];
  if (!known_app(o.app)) usage_error("unknown app '" + o.app + "'");

  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg;
    std::string value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= argc) usage_error("option " + name + " needs a value");
      return argv[++i];
    };
    auto take_u64 = [&](uint64_t min) -> uint64_t {
      std::string text = take_value();
      uint64_t v = 0;
      if (!parse_u64(text, v) || v < min)
        usage_error("option " + name + ": bad value '" + text + "' (an integer >= " + std::to_string(min) +
                    " is expected)");
      return v;
    };
    auto app_only = [&](std::string_view app) {
      if (o.app != app) usage_error("unknown option " + name + " for app " + o.app);
    };

    if (name == "--threads") {
      o.threads = take_u64(1);
      if (o.threads > 4096) usage_error("option --threads: at most 4096");
    } else if (name == "--size") {
      o.size = take_value();
      if (o.size != "tiny" && o.size != "small" && o.size != "medium" && o.size != "large")
        usage_error("option --size: bad value '" + o.size + "' (tiny, small, medium or large)");
    } else if (name == "--seed") {
      o.seed = take_u64(0);
    } else if (name == "--blocks") {
      app_only("alloc");
      o.blocks = take_u64(1);
      if (o.blocks > (uint64_t{1} << 32)) usage_error("option --blocks: at most 2^32");
      o.blocks_set = true;
    } else if (name == "--bytes") {
      app_only("alloc");
      o.bytes = take_u64(1);
      if (o.bytes > (uint64_t{1} << 30)) usage_error("option --bytes: at most 1 GiB");
    } else if (name == "--leak") {
      app_only("alloc");
      o.leak = take_u64(0);
    } else if (name == "--more-pct") {
      app_only("alloc");
      o.more_pct = take_u64(0);
      if (o.more_pct > 1000) usage_error("option --more-pct: at most 1000");
    } else if (name == "--daemon") {
      app_only("alloc");
      o.daemon_file = take_value();
    } else if (name == "--daemon-seconds") {
      app_only("alloc");
      o.daemon_seconds = take_u64(0);
    } else if (name == "--signal") {
      app_only("crash");
      o.signal = take_value();
      if (o.signal != "segv" && o.signal != "abrt")
        usage_error("option --signal: bad value '" + o.signal + "' (segv or abrt)");
    } else if (name == "--ignore-term" && !inline_value) {
      app_only("hang");
      o.ignore_term = true;
    } else if (name == "--ms") {
      app_only("slow");
      o.ms = take_u64(0);
    } else if (name == "--jitter-pct") {
      app_only("slow");
      o.jitter_pct = take_u64(0);
      if (o.jitter_pct > 100) usage_error("option --jitter-pct: at most 100");
    } else if (name == "--naps") {
      app_only("naps");
      o.naps = take_u64(1);
      if (o.naps > 100000) usage_error("option --naps: at most 100000");
    } else if (name == "--millions") {
      app_only("spin");
      o.millions = take_u64(1);
      if (o.millions > 100000) usage_error("option --millions: at most 100000");
    } else {
      usage_error("unknown option '" + arg + "'");
    }
  }

  if (!o.blocks_set) {
    if (o.size == "tiny") o.blocks = 1000;
    else if (o.size == "small") o.blocks = 100000;
    else if (o.size == "medium") o.blocks = 1000000;
    else o.blocks = 10000000;
  }
  o.blocks += o.blocks * o.more_pct / 100;
  // Only kept blocks (even indices) can be leaked.
  if (o.app == "alloc" && o.leak > (o.blocks + 1) / 2)
    usage_error("option --leak: at most " + std::to_string((o.blocks + 1) / 2) + " (half of --blocks)");
  return o;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void report_ok(const Options &o) {
  std::printf("testload: %s ok\n", o.app.c_str());
  std::fflush(stdout);
}

// The fill byte of block `index`: a mix of the index and the seed.
unsigned char pattern(uint64_t index, uint64_t seed) {
  uint64_t z = index + seed * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<unsigned char>(z);
}

// Blocks that stay allocated at exit with --leak (reachable, never freed).
std::vector<void *> leaked_blocks;

// A daemon of the run's (what a server's start-up does): it leaves the run's
// process group and session, and outlives the run.
// The run goes on once the daemon's pid is in its file.
void start_daemon(const Options &o) {
  int ready[2];
  if (pipe(ready) != 0) return;
  if (fork() != 0) {
    close(ready[1]);
    char byte;
    while (read(ready[0], &byte, 1) < 0 && errno == EINTR) {
    }
    close(ready[0]);
    return;
  }
  close(ready[0]);
  setsid();
  const int fd = open(o.daemon_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    dprintf(fd, "%d\n", static_cast<int>(getpid()));
    close(fd);
  }
  close(ready[1]);  // the parent's read ends
  sleep(static_cast<unsigned>(o.daemon_seconds));
  _exit(0);
}

int app_alloc(const Options &o) {
  if (!o.daemon_file.empty()) start_daemon(o);
  const uint64_t n = o.blocks;
  const uint64_t t = o.threads;
  const size_t bytes = static_cast<size_t>(o.bytes);
  // Block i is kept (not freed in the first pass) when i is even; the kept
  // blocks with i / 2 < leak are leaked.
  std::vector<void *> blocks(n, nullptr);
  std::atomic<uint64_t> bad_blocks{0};
  std::atomic<bool> out_of_memory{false};

  auto work = [&](uint64_t first, uint64_t last) {
    for (uint64_t i = first; i < last; ++i) {
      void *p = std::malloc(bytes);
      if (!p) {
        out_of_memory = true;
        return;
      }
      std::memset(p, pattern(i, o.seed), bytes);
      blocks[i] = p;
    }
    for (uint64_t i = first; i < last; ++i) {
      if (i % 2 == 1) {
        std::free(blocks[i]);
        blocks[i] = nullptr;
      }
    }
    uint64_t bad = 0;
    for (uint64_t i = first; i < last; ++i) {
      if (i % 2 == 1) continue;
      const unsigned char want = pattern(i, o.seed);
      const auto *p = static_cast<const unsigned char *>(blocks[i]);
      for (size_t b = 0; b < bytes; ++b) {
        if (p[b] != want) {
          ++bad;
          break;
        }
      }
      if (i / 2 >= o.leak) {
        std::free(blocks[i]);
        blocks[i] = nullptr;
      }
    }
    bad_blocks += bad;
  };

  memprof::phase_begin();
  const int64_t start = now_ns();
  if (t == 1) {
    work(0, n);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(t);
    for (uint64_t k = 0; k < t; ++k) pool.emplace_back(work, n * k / t, n * (k + 1) / t);
    for (auto &th : pool) th.join();
  }
  const int64_t elapsed = now_ns() - start;
  memprof::phase_end();

  if (out_of_memory) {
    std::fprintf(stderr, "testload: alloc: malloc(%zu) returned NULL\n", bytes);
    return kExitFailure;
  }
  for (uint64_t i = 0; i < n; ++i)
    if (blocks[i]) leaked_blocks.push_back(blocks[i]);

  memprof::metric("elapsed_ns", elapsed);
  memprof::metric("blocks", static_cast<int64_t>(n));
  if (bad_blocks != 0 || leaked_blocks.size() != o.leak) {
    std::fprintf(stderr, "testload: alloc: verification failed: %llu corrupt blocks, %zu live (expected %llu)\n",
                 static_cast<unsigned long long>(bad_blocks.load()), leaked_blocks.size(),
                 static_cast<unsigned long long>(o.leak));
    return kExitVerify;
  }
  report_ok(o);
  return 0;
}

[[noreturn]] void app_crash(const Options &o) {
  // No core file: a test fixture should not litter the working directory or
  // wait for a core handler.
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // A few live blocks, so that the crash happens with allocations in flight.
  void *volatile held[8];
  for (size_t i = 0; i < 8; ++i) {
    held[i] = std::malloc(32 * (i + 1));
    if (held[i]) std::memset(held[i], static_cast<int>(i), 32 * (i + 1));
  }
  if (o.signal == "abrt") {
    std::abort();
  }
  volatile int *volatile target = nullptr;
  *target = 42;
  // Not reached; if the write was somehow survived, still die by SIGSEGV.
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
  std::_Exit(kExitFailure);
}

[[noreturn]] void app_hang(const Options &o) {
  if (o.ignore_term) signal(SIGTERM, SIG_IGN);
  for (;;) pause();
}

int app_fail_verify(const Options &o) {
  memprof::phase_begin();
  const int64_t start = now_ns();
  std::vector<uint64_t> values(1000);
  uint64_t sum = 0;
  for (uint64_t i = 0; i < values.size(); ++i) values[i] = pattern(i, o.seed);
  for (uint64_t v : values) sum += v;
  const int64_t elapsed = now_ns() - start;
  memprof::phase_end();
  memprof::metric("elapsed_ns", elapsed);
  std::fprintf(stderr, "testload: fail-verify: verification failed on purpose (checksum %llu)\n",
               static_cast<unsigned long long>(sum));
  return kExitVerify;
}

int app_bad_metric(const Options &o) {
  memprof::phase_begin();
  const int64_t start = now_ns();
  const int64_t elapsed = now_ns() - start;
  memprof::phase_end();
  memprof::metric("elapsed_ns", elapsed);
  memprof::metric("tx_commits_count", -1);
  report_ok(o);
  return 0;
}

int app_fail() {
  std::fprintf(stderr, "testload: failing on purpose\n");
  return kExitFailure;
}

int app_slow(const Options &o) {
  memprof::phase_begin();
  const int64_t start = now_ns();
  // A time that no number of repetitions makes precise (bench --precision's tests).
  const double jitter =
      o.jitter_pct ? (double(std::random_device{}() % 2001) / 1000.0 - 1.0) * double(o.jitter_pct) / 100.0 : 0.0;
  std::this_thread::sleep_for(std::chrono::microseconds(int64_t(double(o.ms) * 1000.0 * (1.0 + jitter))));
  const int64_t elapsed = now_ns() - start;
  memprof::phase_end();
  memprof::metric("elapsed_ns", elapsed);
  report_ok(o);
  return 0;
}

// Each nap blocks in the kernel and gives up the CPU: a voluntary context
// switch. Awake only microseconds between naps, the process is rarely there
// to be preempted, so involuntary switches stay few even on a busy machine.
int app_naps(const Options &o) {
  memprof::phase_begin();
  const int64_t start = now_ns();
  for (uint64_t i = 0; i < o.naps; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const int64_t elapsed = now_ns() - start;
  memprof::phase_end();
  memprof::metric("elapsed_ns", elapsed);
  report_ok(o);
  return 0;
}

// A count through a volatile, in user mode only (no call into the kernel in
// the loop): the same work however busy the machine, so the process's CPU
// time is a fixed amount and nearly all of it user time.
int app_spin(const Options &o) {
  memprof::phase_begin();
  const int64_t start = now_ns();
  volatile uint64_t n = 0;
  for (uint64_t i = 0; i < o.millions * 1000000; ++i) n = n + 1;
  const int64_t elapsed = now_ns() - start;
  memprof::phase_end();
  memprof::metric("elapsed_ns", elapsed);
  report_ok(o);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  if (o.app == "alloc") return app_alloc(o);
  if (o.app == "crash") app_crash(o);
  if (o.app == "hang") app_hang(o);
  if (o.app == "fail-verify") return app_fail_verify(o);
  if (o.app == "fail") return app_fail();
  if (o.app == "slow") return app_slow(o);
  if (o.app == "naps") return app_naps(o);
  if (o.app == "spin") return app_spin(o);
  if (o.app == "bad-metric") return app_bad_metric(o);
  usage_error("unknown app '" + o.app + "'");
}
