// real.h — the next definitions of the interposed functions (the allocator's),
// found with dlsym(RTLD_NEXT), and the static bootstrap arena that serves the
// few allocations dlsym itself makes before they are known.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace memprof {

struct RealFunctions {
  void* (*malloc)(size_t);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void (*free)(void*);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*memalign)(size_t, size_t);
  size_t (*malloc_usable_size)(void*);
  int (*in_transaction)();  // libitm's _ITM_inTransaction, null without libitm
  // libitm's executable code: a call from there is libitm's (its own
  // bookkeeping, or the program's block it allocates inside a transaction).
  uintptr_t itm_text_begin, itm_text_end;
  bool glibc_layout;        // the allocator is glibc's own malloc (chunk headers readable)
};

extern RealFunctions real;

// Resolves `real` once; later calls return at once. Allocation made by dlsym
// while resolving is served from the bootstrap arena.
void resolve_real();
// True while resolve_real runs on some thread.
bool resolving();
// Looks up a symbol after libmemprof in the search order (lazy C++/libitm hooks).
void* next_symbol(const char* name);
// Looks up _ITM_inTransaction again (libitm may be dlopened after start);
// true when libitm is there.
bool refresh_tm_symbols();
// True when `code` (a return address) lies in libitm's executable code.
inline bool in_libitm(const void* code) {
  return reinterpret_cast<uintptr_t>(code) - real.itm_text_begin < real.itm_text_end - real.itm_text_begin;
}

// The bootstrap arena: bump allocation, never freed.
constexpr size_t kBootstrapBytes = 256 * 1024;
extern char bootstrap_arena[kBootstrapBytes];
void* bootstrap_alloc(size_t n, size_t align);
inline bool is_bootstrap(const void* p) {
  return reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(bootstrap_arena) < kBootstrapBytes;
}
size_t bootstrap_size(const void* p);

}  // namespace memprof
