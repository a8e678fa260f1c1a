// real.cpp — resolving the allocator behind libmemprof. glibc's dlsym may call
// calloc/malloc for its error buffer; those calls land in a static arena.
#include "os/real.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

#include "os/code_span.h"
#include "base/text.h"

namespace memprof {

constinit RealFunctions real;
alignas(64) constinit char bootstrap_arena[kBootstrapBytes];

namespace {

constinit std::atomic<int> resolve_state{0};  // 0 not yet, 1 in progress, 2 done

char* const arena = bootstrap_arena;
constinit std::atomic<size_t> arena_used{0};

template <typename F>
void find(F*& slot, const char* name, bool required) {
  slot = reinterpret_cast<F*>(dlsym(RTLD_NEXT, name));
  if (!slot && required) {
    text::Line line;
    line.add("memprof: fatal: no next definition of ").add(name)
        .add(" — is libmemprof.so preloaded in front of an allocator or libc?\n");
    line.write_to(2);
    _exit(127);
  }
}

// True when both addresses lie in the same loaded object.
bool same_object(void* a, void* b) {
  Dl_info ia, ib;
  if (!a || !b || !dladdr(a, &ia) || !dladdr(b, &ib)) return false;
  return ia.dli_fbase == ib.dli_fbase;
}

// The executable span of the object holding `symbol` (code_span.h); its
// program headers follow its ELF header, which dli_fbase points to. No lock
// but dladdr's.
void find_text(void* symbol, uintptr_t* begin, uintptr_t* end) {
  Dl_info info;
  link_map* map = nullptr;
  if (!symbol || !dladdr1(symbol, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) || !map ||
      !info.dli_fbase)
    return;
  auto* header = static_cast<const ElfW(Ehdr)*>(info.dli_fbase);
  auto* segments = reinterpret_cast<const ElfW(Phdr)*>(static_cast<const char*>(info.dli_fbase) + header->e_phoff);
  CodeSpan span = executable_span(map->l_addr, segments, header->e_phnum);
  if (span.begin < span.end) {
    *begin = span.begin;
    *end = span.end;
  }
}

}  // namespace

bool resolving() { return resolve_state.load(std::memory_order_acquire) == 1; }

void resolve_real() {
  int expected = 0;
  if (!resolve_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    while (resolve_state.load(std::memory_order_acquire) != 2) {
    }
    return;
  }
  RealFunctions r{};
  find(r.malloc, "malloc", true);
  find(r.calloc, "calloc", true);
  find(r.realloc, "realloc", true);
  find(r.free, "free", true);
  find(r.posix_memalign, "posix_memalign", true);
  find(r.memalign, "memalign", true);
  find(r.aligned_alloc, "aligned_alloc", false);
  find(r.malloc_usable_size, "malloc_usable_size", true);
  r.in_transaction = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "_ITM_inTransaction"));
  find_text(reinterpret_cast<void*>(r.in_transaction), &r.itm_text_begin, &r.itm_text_end);
  void* libc = dlsym(RTLD_DEFAULT, "gnu_get_libc_version");
  r.glibc_layout = same_object(reinterpret_cast<void*>(r.malloc_usable_size), libc) &&
                   same_object(reinterpret_cast<void*>(r.malloc), libc);
  real = r;
  resolve_state.store(2, std::memory_order_release);
}

void* next_symbol(const char* name) { return dlsym(RTLD_NEXT, name); }

bool refresh_tm_symbols() {
  if (!real.in_transaction) {
    auto found = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "_ITM_inTransaction"));
    // The range first: a thread that sees libitm's state function sees its code's range too.
    find_text(reinterpret_cast<void*>(found), &real.itm_text_begin, &real.itm_text_end);
    __atomic_store_n(&real.in_transaction, found, __ATOMIC_RELEASE);
  }
  return real.in_transaction != nullptr;
}

// Each bootstrap block carries its size in the 16 bytes before it.
void* bootstrap_alloc(size_t n, size_t align) {
  if (align < 16) align = 16;
  for (;;) {
    size_t used = arena_used.load(std::memory_order_relaxed);
    size_t start = (used + 16 + align - 1) & ~(align - 1);
    size_t end = start + ((n + 15) & ~size_t(15));
    if (end > kBootstrapBytes) return nullptr;
    if (arena_used.compare_exchange_weak(used, end, std::memory_order_relaxed)) {
      memcpy(arena + start - 16, &n, sizeof n);
      return arena + start;
    }
  }
}


size_t bootstrap_size(const void* p) {
  size_t n;
  memcpy(&n, static_cast<const char*>(p) - 16, sizeof n);
  return n;
}

}  // namespace memprof
