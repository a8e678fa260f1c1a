// exec_hooks.cpp — the exec family, interposed so that a trace follows exec
// (trace.h). When the traced process itself (not a forked child) execs a
// program, its trace is ended with a trailer and MEMPROF_TRACE goes into the
// new program's environment: memprof, preloaded there too, starts the file
// again, so the trace is the last program's — the one a wrapper (a pyenv shim,
// env, nice, a launch script) runs. Without memprof in the new program (an
// environment without it in LD_PRELOAD: env -i), its environment passes
// unchanged and the trace is this one's, complete. If the exec fails, the
// trailer is cut off and recording goes on. Every other exec passes through
// unchanged.
//
// glibc's execvp and execl* call its internal execve, not this one: each entry
// point is interposed, execveat too (a raw syscall(SYS_execve) is not: such a
// program's trace ends unfinished and is refused as truncated). Arrays are mmap'd: no malloc between fork and exec.
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "interposition/exports.h"
#include "os/raw_syscalls.h"
#include "recording/trace.h"

extern char** environ;

namespace memprof {
namespace {

using Execve = int (*)(const char*, char* const[], char* const[]);
using Fexecve = int (*)(int, char* const[], char* const[]);
using Execveat = int (*)(int, const char*, char* const[], char* const[], int);

Execve real_execve() {
  static Execve cached = nullptr;
  return next_definition(cached, "execve");
}
Execve real_execvpe() {
  static Execve cached = nullptr;
  return next_definition(cached, "execvpe");
}
Fexecve real_fexecve() {
  static Fexecve cached = nullptr;
  return next_definition(cached, "fexecve");
}
Execveat real_execveat() {
  static Execveat cached = nullptr;
  return next_definition(cached, "execveat");
}

// An array of `count` pointers, mmap'd (freed with release()).
char** make_array(size_t count) {
  void* m = raw::mmap(nullptr, count * sizeof(char*), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? nullptr : static_cast<char**>(m);
}
void release(char** array, size_t count) {
  if (array) raw::munmap(array, count * sizeof(char*));
}

bool starts_with(const char* s, const char* prefix) {
  while (*prefix)
    if (*s++ != *prefix++) return false;
  return true;
}

bool contains(const char* s, const char* part) {
  for (; *s; ++s) {
    const char *a = s, *b = part;
    while (*a && *b && *a == *b) ++a, ++b;
    if (!*b) return true;
  }
  return false;
}

// Whether `envp` preloads memprof: a program that passes its child another
// environment (env -i, a sandbox) drops it, and that child is not traced.
bool preloads_memprof(char* const envp[]) {
  for (size_t i = 0; envp && envp[i]; ++i)
    if (starts_with(envp[i], "LD_PRELOAD=") && contains(envp[i], "memprof")) return true;
  return false;
}

// Runs `exec` with `envp`, handing the trace on when this process traces and
// the new program preloads memprof too: `envp` without its MEMPROF_TRACE
// entries, plus this trace's. An environment without memprof passes
// unchanged (the program's child sees what the program gave it), and the
// trace is this process's, complete.
template <typename Exec>
int exec_following_trace(char* const envp[], Exec exec) {
  const long length = trace::end_before_exec();
  if (length < 0) return exec(envp);
  if (!preloads_memprof(envp)) {
    const int result = exec(envp);  // returns only on failure
    const int error = errno;
    trace::exec_failed(length);
    errno = error;
    return result;
  }
  size_t n = 0;
  while (envp && envp[n]) ++n;
  const size_t slots = n + 2;
  char** env = make_array(slots);
  if (!env) {  // no memory for the array: the exec goes on, untraced
    trace::exec_failed(length);
    return exec(envp);
  }
  size_t k = 0;
  for (size_t i = 0; i < n; ++i)
    if (!starts_with(envp[i], "MEMPROF_TRACE=")) env[k++] = envp[i];
  env[k++] = const_cast<char*>(trace::exec_variable());
  env[k] = nullptr;
  const int result = exec(env);  // returns only on failure
  const int error = errno;
  trace::exec_failed(length);
  release(env, slots);
  errno = error;
  return result;
}

// The arguments of execl, execlp and execle, from `first` to the NULL, as an
// array; `envp` gets execle's environment (after the NULL) when asked.
char** collect_arguments(const char* first, va_list args, size_t* slots, char* const** envp) {
  va_list count_args;
  va_copy(count_args, args);
  size_t n = 1;
  while (va_arg(count_args, char*)) ++n;
  va_end(count_args);
  *slots = n + 1;
  char** argv = make_array(*slots);
  if (!argv) return nullptr;
  argv[0] = const_cast<char*>(first);
  for (size_t i = 1; i < n; ++i) argv[i] = va_arg(args, char*);
  argv[n] = nullptr;
  (void)va_arg(args, char*);  // the NULL
  if (envp) *envp = va_arg(args, char* const*);
  return argv;
}

// execl, execlp and execle: their list as an array, then `exec(argv, envp)`
// (execle's environment follows the list's NULL; the others', environ).
template <typename Exec>
int exec_listed(const char* first, va_list args, bool env_follows, Exec exec) {
  size_t slots = 0;
  char* const* envp = environ;
  char** argv = collect_arguments(first, args, &slots, env_follows ? &envp : nullptr);
  if (!argv) return -1;
  const int result = exec(argv, envp);
  release(argv, slots);
  return result;
}

}  // namespace
}  // namespace memprof

using memprof::exec_following_trace;

extern "C" MEMPROF_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  return exec_following_trace(envp, [&](char* const env[]) { return memprof::real_execve()(path, argv, env); });
}

extern "C" MEMPROF_EXPORT int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }

extern "C" MEMPROF_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  return exec_following_trace(envp, [&](char* const env[]) { return memprof::real_execvpe()(file, argv, env); });
}

extern "C" MEMPROF_EXPORT int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }

extern "C" MEMPROF_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  return exec_following_trace(envp, [&](char* const env[]) { return memprof::real_fexecve()(fd, argv, env); });
}

extern "C" MEMPROF_EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) {
  return exec_following_trace(
      envp, [&](char* const env[]) { return memprof::real_execveat()(dirfd, path, argv, env, flags); });
}

extern "C" MEMPROF_EXPORT int execl(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = memprof::exec_listed(arg, args, false, [&](char** argv, char* const envp[]) {
    return execve(path, argv, envp);
  });
  va_end(args);
  return result;
}

extern "C" MEMPROF_EXPORT int execlp(const char* file, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = memprof::exec_listed(arg, args, false, [&](char** argv, char* const envp[]) {
    return execvpe(file, argv, envp);
  });
  va_end(args);
  return result;
}

extern "C" MEMPROF_EXPORT int execle(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int result = memprof::exec_listed(arg, args, true, [&](char** argv, char* const envp[]) {
    return execve(path, argv, envp);
  });
  va_end(args);
  return result;
}
