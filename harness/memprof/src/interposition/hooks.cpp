// hooks.cpp — every allocation entry point memprof interposes. Each hook only
// forwards to the allocator and tells the recorder what happened; nested calls
// (an allocator's operator new calling malloc, strdup calling malloc) forward
// without counting, so every allocation is counted exactly once.
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <new>
#include <type_traits>

#include "interposition/exports.h"
#include "os/clock.h"
#include "os/real.h"
#include "output/lifecycle.h"
#include "recording/recorder.h"
#include "recording/totals.h"
#include "recording/trace.h"


namespace memprof {
namespace {

constexpr size_t kPage = 4096;

// Nested calls, and calls before memprof's constructor (shared libraries'
// initialisers, the allocator's own set-up among them), are not the program's.
inline bool bypass(ThreadState& t) {
  return __builtin_expect(t.depth != 0 || !shared.counting.load(std::memory_order_relaxed), 0);
}

void note_startup(ThreadState& t, size_t n) {
  if (t.depth != 0) return;
  shared.startup_allocs.fetch_add(1, std::memory_order_relaxed);
  saturating::add_atomic(shared.startup_bytes, uint64_t(n));
}

// Before memprof is ready (or inside dlsym), allocation comes from the arena.
void* early_alloc(size_t n, size_t align) {
  if (!resolving()) ensure_ready();
  if (real.malloc && !resolving()) return nullptr;  // ready now: caller forwards
  return bootstrap_alloc(n, align);
}

// The shape every allocating C entry point shares. Before memprof counts (or
// nested inside a hook) it only forwards, serving dlsym from the bootstrap
// arena while the allocator is still unknown; otherwise it forwards under the
// nesting guard and records the block.
// `plain`: malloc and calloc, whose blocks are sized by size class alone (usable.h).
template <typename Forward>
void* allocate(size_t n, size_t align, bool resolved, bool plain, uint8_t op, Forward forward) {
  ThreadState& t = self;
  if (bypass(t)) {
    if (!resolved || resolving()) {
      void* p = early_alloc(n, align);
      if (p || resolving()) return p;
    }
    note_startup(t, n);
    return forward();
  }
  ++t.depth;
  // An operator new whose block this is has said so already (counted_new).
  if (t.new_request == 0) trace::note_call(t, op, plain ? 0 : uint32_t(align));
  void* p = forward();
  record_alloc(t, p, n, plain);
  --t.depth;
  return p;
}

void* do_malloc(size_t n) {
  return allocate(n, 16, real.malloc != nullptr, true, trace::kMalloc, [n] { return real.malloc(n); });
}

void* do_calloc(size_t count, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) n = SIZE_MAX;  // the allocator returns NULL
  // The bootstrap arena is zeroed and never reused: it serves calloc as it is.
  return allocate(n, 16, real.calloc != nullptr, true, trace::kCalloc, [=] { return real.calloc(count, size); });
}

void do_free(void* p) {
  if (!p) return;
  ThreadState& t = self;
  if (bypass(t)) {
    if (!is_bootstrap(p) && real.free) real.free(p);
    return;
  }
  ++t.depth;
  trace::note_call(t, trace::kFree);
  // Bootstrap blocks are never in the shadow: look for them only on a miss.
  if (__builtin_expect(!record_free(t, p), 0) && is_bootstrap(p)) {
    --t.depth;
    return;
  }
  real.free(p);
  --t.depth;
}

// realloc(p, n) of a block memprof may know; the caller holds the nesting guard.
void* tracked_realloc(ThreadState& me, void* p, size_t n) {
  if (__builtin_expect(shared.tracing, 0)) {
    trace::note_call(me, trace::kRealloc);
    me.call_start_ns = now_ns();
  }
  ReallocOld old = record_realloc_begin(p);  // before the allocator can reuse p
  void* q = real.realloc(p, n);
  record_realloc_end(me, p, q, n, old);
  return q;
}

void* realloc_from_bootstrap(void* p, size_t n) {
  void* q = do_malloc(n);
  if (q) {
    size_t old = bootstrap_size(p);
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}

void* do_realloc(void* p, size_t n) {
  if (!p) {
    ThreadState& t = self;
    if (bypass(t)) {
      if (!real.realloc) return do_malloc(n);
      note_startup(t, n);
      return real.realloc(p, n);
    }
    ++t.depth;
    trace::note_call(t, trace::kMalloc);  // realloc(NULL, n) is a malloc
    void* q = real.realloc(nullptr, n);
    record_alloc(t, q, n, false);
    --t.depth;
    return q;
  }
  if (__builtin_expect(is_bootstrap(p), 0)) return realloc_from_bootstrap(p, n);
  ThreadState& t = self;
  if (bypass(t)) return real.realloc ? real.realloc(p, n) : nullptr;

  ++t.depth;
  ThreadState& me = current_thread();
  void* q = me.status == kForeign ? real.realloc(p, n) : tracked_realloc(me, p, n);  // kForeign: see thread_attach
  --t.depth;
  return q;
}

void* do_memalign(size_t align, size_t n) {
  return allocate(n, align, real.memalign != nullptr, false, trace::kMemalign, [=] { return real.memalign(align, n); });
}

int do_posix_memalign(void** out, size_t align, size_t n) {
  int rc = 0;
  void* p = allocate(n, align, real.posix_memalign != nullptr, false, trace::kPosixMemalign, [&] {
    void* block = nullptr;
    rc = real.posix_memalign(&block, align, n);
    return rc == 0 ? block : nullptr;
  });
  if (!p) return rc ? rc : ENOMEM;
  *out = p;
  return 0;
}

void* do_aligned_alloc(size_t align, size_t n) {
  if (!real.aligned_alloc) return do_memalign(align, n);
  return allocate(n, align, true, false, trace::kAlignedAlloc, [=] { return real.aligned_alloc(align, n); });
}

// C++ operators. An allocator that defines them (jemalloc, tcmalloc, mimalloc,
// TBB) serves them without malloc; libstdc++'s call malloc. The hook counts an
// allocation only if no inner hook did, and never holds the nesting guard
// across a call that may throw.
// The alignment among an operator's arguments, or 0.
template <typename Arg>
uint32_t alignment_in(const Arg& arg) {
  if constexpr (std::is_same_v<Arg, std::align_val_t>) return uint32_t(arg);
  else return 0;
}
template <typename... Args>
uint32_t alignment_of(const Args&... args) {
  return (0u | ... | alignment_in(args));
}

template <typename Fn, typename... Args>
void* counted_new(uint8_t op, Fn fn, size_t n, const Args&... args) {
  constexpr bool plain = !(std::is_same_v<Args, std::align_val_t> || ...);
  ThreadState& t = self;
  if (bypass(t)) {
    uint64_t before = shared.startup_allocs.load(std::memory_order_relaxed);
    void* p = fn(n, args...);
    if (shared.startup_allocs.load(std::memory_order_relaxed) == before) note_startup(t, n);
    return p;
  }
  // libstdc++'s new[] and nothrow new call ::operator new: the outer hook counts.
  if (t.new_request != 0) return fn(n, args...);
  // An operator new before this one threw while it held a block (its exception object).
  if (__builtin_expect(t.new_held != nullptr, 0)) settle_held(t);
  t.new_request = n + 1;  // an inner malloc/aligned_alloc is held (hold_new_block), and clears it
  trace::note_call(t, op, alignment_of(args...));
  // Counted as failed until it returns: an operator new that throws never does.
  bump(t.c.allocs_failed_count);
  void* p = fn(n, args...);
  bool allocated_inside = t.new_request == 0;  // a block held, or an inner allocation failed
  t.new_request = 0;
  void* held = t.new_held;
  t.new_held = nullptr;
  if (p) bump(t.c.allocs_failed_count, uint64_t(-1));
  // The block is p, of the n bytes the program asked for; plain only if the
  // held block is p and was asked of malloc with n too. A block held but not
  // returned was the allocator's own and is dropped. With nothing held, an
  // inner allocation failed and the retry after it was counted as p already.
  if (p && (held != nullptr || !allocated_inside)) {
    bool block_plain = held == p ? t.new_held_plain && t.new_held_n == n : plain;
    if (on_hot_path(t)) {
      t.depth = 1;
      return hot_alloc_done(t, p, n, block_plain);
    }
    ++t.depth;
    record_alloc(t, p, n, block_plain);
    --t.depth;
  }
  if (__builtin_expect(t.status == kExited, 0)) merge_exited(t);
  return p;
}


template <typename Fn, typename... Args>
void counted_delete(uint8_t op, Fn fn, void* p, const Args&... args) {
  if (!p) return;
  ThreadState& t = self;
  if (on_hot_path(t)) {
    t.depth = 1;
    FreeRecord done = hot_free_record(t, p);
    FreeStep step = done.step;
    if (step == FreeStep::kAskUsable) account_asked_free(t, p, done.n);
    if (step != FreeStep::kGeneral) fn(p, args...);
    if (step == FreeStep::kReleaseThenPublish) publish(t);
    t.depth = 0;
    if (step != FreeStep::kGeneral) return;
  }
  if (bypass(t)) {
    if (!is_bootstrap(p)) fn(p, args...);
    return;
  }
  ++t.depth;
  trace::note_call(t, op);
  if (__builtin_expect(!record_free(t, p), 0) && is_bootstrap(p)) {
    --t.depth;
    return;
  }
  fn(p, args...);
  --t.depth;
}

}  // namespace
}  // namespace memprof

using namespace memprof;

// Every allocating entry point notes, at depth 0, whether libitm called it
// (recorder.h, from_libitm): in the function itself, where
// __builtin_return_address(0) is its caller. Not on the hot path, which runs
// only while libitm is absent.
#define MEMPROF_NOTE_CALLER() note_caller(self, __builtin_return_address(0))

// malloc, calloc and free take the hot path (recorder.h) when they can.
extern "C" MEMPROF_EXPORT void* malloc(size_t n) {
  ThreadState& t = self;
  if (__builtin_expect(!on_hot_path(t), 0)) {
    MEMPROF_NOTE_CALLER();
    return do_malloc(n);
  }
  t.depth = 1;
  return hot_alloc_done(t, real.malloc(n), n, true);
}

extern "C" MEMPROF_EXPORT void* calloc(size_t count, size_t size) {
  ThreadState& t = self;
  size_t n;
  if (__builtin_expect(!on_hot_path(t) | __builtin_mul_overflow(count, size, &n), 0)) {
    MEMPROF_NOTE_CALLER();
    return do_calloc(count, size);
  }
  t.depth = 1;
  return hot_alloc_done(t, real.calloc(count, size), n, true);
}

extern "C" MEMPROF_EXPORT void* realloc(void* p, size_t n) {
  MEMPROF_NOTE_CALLER();
  return do_realloc(p, n);
}

extern "C" MEMPROF_EXPORT void free(void* p) {
  if (__builtin_expect(p == nullptr, 0)) return;
  ThreadState& t = self;
  if (__builtin_expect(!on_hot_path(t), 0)) return do_free(p);
  // hot_free_record calls nothing, so no nesting guard is needed until a call;
  // the allocator's free is a tail call outside it. This assumes the
  // allocator's free does not allocate through the exported malloc (none of
  // the five does; another's would have such blocks counted as the program's).
  FreeRecord done = hot_free_record(t, p);
  switch (done.step) {
    case FreeStep::kRelease:
      return real.free(p);
    case FreeStep::kReleaseThenPublish:
      return free_publish(t, p);
    case FreeStep::kAskUsable:
      return free_ask_usable(t, p, done.n);
    case FreeStep::kGeneral:
      break;
  }
  do_free(p);  // unknown to the hot path; nothing was changed
}

extern "C" MEMPROF_EXPORT void cfree(void* p) { free(p); }
extern "C" MEMPROF_EXPORT int posix_memalign(void** out, size_t align, size_t n) {
  MEMPROF_NOTE_CALLER();
  return do_posix_memalign(out, align, n);
}
extern "C" MEMPROF_EXPORT void* aligned_alloc(size_t align, size_t n) {
  MEMPROF_NOTE_CALLER();
  return do_aligned_alloc(align, n);
}
extern "C" MEMPROF_EXPORT void* memalign(size_t align, size_t n) {
  MEMPROF_NOTE_CALLER();
  return do_memalign(align, n);
}
extern "C" MEMPROF_EXPORT void* valloc(size_t n) {
  MEMPROF_NOTE_CALLER();
  return do_memalign(kPage, n);
}

extern "C" MEMPROF_EXPORT void* pvalloc(size_t n) {
  MEMPROF_NOTE_CALLER();
  size_t rounded = (n + kPage - 1) & ~(kPage - 1);
  if (rounded < n) {
    errno = ENOMEM;
    return nullptr;
  }
  return do_memalign(kPage, rounded ? rounded : kPage);
}

extern "C" MEMPROF_EXPORT void* reallocarray(void* p, size_t count, size_t size) {
  MEMPROF_NOTE_CALLER();
  size_t n;
  if (__builtin_mul_overflow(count, size, &n)) {
    errno = ENOMEM;
    return nullptr;
  }
  return do_realloc(p, n);
}

extern "C" MEMPROF_EXPORT size_t malloc_usable_size(void* p) {
  if (!p) return 0;
  if (is_bootstrap(p)) return bootstrap_size(p);
  if (!real.malloc_usable_size) ensure_ready();
  return real.malloc_usable_size ? real.malloc_usable_size(p) : 0;
}

extern "C" MEMPROF_EXPORT char* strdup(const char* s) {
  MEMPROF_NOTE_CALLER();
  size_t n = strlen(s) + 1;
  char* p = static_cast<char*>(do_malloc(n));
  if (p) memcpy(p, s, n);
  return p;
}

extern "C" MEMPROF_EXPORT char* strndup(const char* s, size_t max) {
  MEMPROF_NOTE_CALLER();
  size_t n = strnlen(s, max);
  char* p = static_cast<char*>(do_malloc(n + 1));
  if (p) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  return p;
}

// --- C++ operators ---
// Each forwards to the next definition of the same operator, looked up lazily
// (libstdc++ may be loaded after start); without one, to the C functions.

#define MEMPROF_NEXT(type, mangled) \
  static type next = nullptr;       \
  auto fn = next_definition(next, mangled)

using New = void* (*)(size_t);
using NewNothrow = void* (*)(size_t, const std::nothrow_t&) noexcept;
using NewAligned = void* (*)(size_t, std::align_val_t);
using NewAlignedNothrow = void* (*)(size_t, std::align_val_t, const std::nothrow_t&) noexcept;
using Delete = void (*)(void*) noexcept;
using DeleteSized = void (*)(void*, size_t) noexcept;
using DeleteNothrow = void (*)(void*, const std::nothrow_t&) noexcept;
using DeleteAligned = void (*)(void*, std::align_val_t) noexcept;
using DeleteSizedAligned = void (*)(void*, size_t, std::align_val_t) noexcept;
using DeleteAlignedNothrow = void (*)(void*, std::align_val_t, const std::nothrow_t&) noexcept;


MEMPROF_EXPORT void* operator new(size_t n) {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(New, "_Znwm");
  return fn ? counted_new(trace::kNew, fn, n) : do_malloc(n);
}
MEMPROF_EXPORT void* operator new[](size_t n) {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(New, "_Znam");
  return fn ? counted_new(trace::kNewArray, fn, n) : do_malloc(n);
}
MEMPROF_EXPORT void* operator new(size_t n, const std::nothrow_t& tag) noexcept {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(NewNothrow, "_ZnwmRKSt9nothrow_t");
  return fn ? counted_new(trace::kNew, fn, n, tag) : do_malloc(n);
}
MEMPROF_EXPORT void* operator new[](size_t n, const std::nothrow_t& tag) noexcept {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(NewNothrow, "_ZnamRKSt9nothrow_t");
  return fn ? counted_new(trace::kNewArray, fn, n, tag) : do_malloc(n);
}
MEMPROF_EXPORT void* operator new(size_t n, std::align_val_t al) {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(NewAligned, "_ZnwmSt11align_val_t");
  return fn ? counted_new(trace::kNewAligned, fn, n, al) : do_aligned_alloc(size_t(al), n);
}
MEMPROF_EXPORT void* operator new[](size_t n, std::align_val_t al) {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(NewAligned, "_ZnamSt11align_val_t");
  return fn ? counted_new(trace::kNewArrayAligned, fn, n, al) : do_aligned_alloc(size_t(al), n);
}
MEMPROF_EXPORT void* operator new(size_t n, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(NewAlignedNothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t");
  return fn ? counted_new(trace::kNewAligned, fn, n, al, tag) : do_aligned_alloc(size_t(al), n);
}
MEMPROF_EXPORT void* operator new[](size_t n, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  MEMPROF_NOTE_CALLER();
  MEMPROF_NEXT(NewAlignedNothrow, "_ZnamSt11align_val_tRKSt9nothrow_t");
  return fn ? counted_new(trace::kNewArrayAligned, fn, n, al, tag) : do_aligned_alloc(size_t(al), n);
}

MEMPROF_EXPORT void operator delete(void* p) noexcept {
  MEMPROF_NEXT(Delete, "_ZdlPv");
  fn ? counted_delete(trace::kDelete, fn, p) : do_free(p);
}
MEMPROF_EXPORT void operator delete[](void* p) noexcept {
  MEMPROF_NEXT(Delete, "_ZdaPv");
  fn ? counted_delete(trace::kDeleteArray, fn, p) : do_free(p);
}
MEMPROF_EXPORT void operator delete(void* p, size_t n) noexcept {
  MEMPROF_NEXT(DeleteSized, "_ZdlPvm");
  fn ? counted_delete(trace::kDelete, fn, p, n) : do_free(p);
}
MEMPROF_EXPORT void operator delete[](void* p, size_t n) noexcept {
  MEMPROF_NEXT(DeleteSized, "_ZdaPvm");
  fn ? counted_delete(trace::kDeleteArray, fn, p, n) : do_free(p);
}
MEMPROF_EXPORT void operator delete(void* p, const std::nothrow_t& tag) noexcept {
  MEMPROF_NEXT(DeleteNothrow, "_ZdlPvRKSt9nothrow_t");
  fn ? counted_delete(trace::kDelete, fn, p, tag) : do_free(p);
}
MEMPROF_EXPORT void operator delete[](void* p, const std::nothrow_t& tag) noexcept {
  MEMPROF_NEXT(DeleteNothrow, "_ZdaPvRKSt9nothrow_t");
  fn ? counted_delete(trace::kDeleteArray, fn, p, tag) : do_free(p);
}
MEMPROF_EXPORT void operator delete(void* p, std::align_val_t al) noexcept {
  MEMPROF_NEXT(DeleteAligned, "_ZdlPvSt11align_val_t");
  fn ? counted_delete(trace::kDeleteAligned, fn, p, al) : do_free(p);
}
MEMPROF_EXPORT void operator delete[](void* p, std::align_val_t al) noexcept {
  MEMPROF_NEXT(DeleteAligned, "_ZdaPvSt11align_val_t");
  fn ? counted_delete(trace::kDeleteArrayAligned, fn, p, al) : do_free(p);
}
MEMPROF_EXPORT void operator delete(void* p, size_t n, std::align_val_t al) noexcept {
  MEMPROF_NEXT(DeleteSizedAligned, "_ZdlPvmSt11align_val_t");
  fn ? counted_delete(trace::kDeleteAligned, fn, p, n, al) : do_free(p);
}
MEMPROF_EXPORT void operator delete[](void* p, size_t n, std::align_val_t al) noexcept {
  MEMPROF_NEXT(DeleteSizedAligned, "_ZdaPvmSt11align_val_t");
  fn ? counted_delete(trace::kDeleteArrayAligned, fn, p, n, al) : do_free(p);
}
MEMPROF_EXPORT void operator delete(void* p, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  MEMPROF_NEXT(DeleteAlignedNothrow, "_ZdlPvSt11align_val_tRKSt9nothrow_t");
  fn ? counted_delete(trace::kDeleteAligned, fn, p, al, tag) : do_free(p);
}
MEMPROF_EXPORT void operator delete[](void* p, std::align_val_t al, const std::nothrow_t& tag) noexcept {
  MEMPROF_NEXT(DeleteAlignedNothrow, "_ZdaPvSt11align_val_tRKSt9nothrow_t");
  fn ? counted_delete(trace::kDeleteArrayAligned, fn, p, al, tag) : do_free(p);
}
