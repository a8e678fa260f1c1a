// exit_hooks.cpp — _exit and _Exit, interposed: they end a process without
// running its destructors, so a program that leaves through them (a shell
// such as dash, a child after a failed exec) would write no record and leave
// its trace without a trailer. The process memprof started in writes its
// report first; a forked child (its fork handler ran) and a vfork child (it
// shares this memory, no handler runs) are told apart by their pid and leave
// as before, untouched. glibc's exit() reaches its internal _exit, not this
// one: the destructor reports there.
#include "interposition/exports.h"
#include "os/process.h"
#include "output/lifecycle.h"

namespace memprof {
namespace {

// What glibc's _exit does: exit_group, never returning. Called directly (no
// dlsym of the next definition: a vfork child must not allocate).
[[noreturn]] void leave(int status) {
  if (started_here()) report_at_exit();
  process::exit_now(status);
}

}  // namespace
}  // namespace memprof

extern "C" MEMPROF_EXPORT void _exit(int status) { memprof::leave(status); }
extern "C" MEMPROF_EXPORT void _Exit(int status) { memprof::leave(status); }
