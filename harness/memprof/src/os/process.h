// process.h — the process memprof runs in, as the kernel names it: its ids
// (asked of the kernel each time: a vfork child shares memprof's memory, so
// no id is kept), and the barrier that makes every running thread of the
// process pass a full fence (membarrier, Linux 4.14), for the trace's door.
#pragma once
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace memprof::process {

inline pid_t pid() { return pid_t(syscall(SYS_getpid)); }
inline pid_t parent_pid() { return getppid(); }
// Ends the whole process at once, as glibc's _exit does (exit_group), without
// running anything of the process first.
[[noreturn]] inline void exit_now(int status) {
  for (;;) syscall(SYS_exit_group, status);
}
// The main thread's id is the process's.
inline bool on_main_thread() { return gettid() == getpid(); }

// Registers the process for fence_all_threads; false where the kernel lacks it.
inline bool register_thread_fences() {
  constexpr int kRegisterPrivateExpedited = 1 << 4;  // MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED
  return syscall(SYS_membarrier, kRegisterPrivateExpedited, 0, 0) == 0;
}
// Every running thread of the process passes a full fence before this returns.
inline void fence_all_threads() {
  constexpr int kPrivateExpedited = 1 << 3;  // MEMBARRIER_CMD_PRIVATE_EXPEDITED
  syscall(SYS_membarrier, kPrivateExpedited, 0, 0);
}

}  // namespace memprof::process
