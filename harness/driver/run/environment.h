// environment.h — what a run's child process gets (Contract 1): its command
// line (Contract 3) and its environment, LD_PRELOAD=libmemprof.so:<allocator>.
#pragma once
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/options.h"
#include "model/run.h"

namespace allocstamp {

// A run's child as bench starts it, worked out once: its arguments
// ({scratch} and {port} still unset), its environment, a server's client's
// arguments ({port} unset; none for other programs), and its command line as
// runs.csv records it (recorded_arguments).
struct ChildCommand {
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::vector<std::string> client_args;
  std::string recorded;
};
ChildCommand child_command(const Run& run, const Options& options, const Paths& paths);

// The run's command line as runs.csv's `args` records it, the one form every
// reader compares (a cell's identity, --resume's check, the output digest's
// cell): ChildCommand's args shell-quoted, a generated input named
// {inputs}/<its file name> (the name holds its content's digest; the folder is
// the checkout's, so two checkouts' runs still compare), and for a server
// " ; <client> <client arguments>" with {port} unset.
std::string recorded_arguments(const Run& run, const Options& options);
std::vector<std::string> child_environment(const Run& run, const Options& options, const Paths& paths);
// A server workload's client (catalog.h): its arguments (by size too; {port}
// still unset), and its environment: bench's, without the preload, memprof's
// variables or anything that tunes an allocator or the loader.
std::vector<std::string> client_arguments(const Run& run);
std::vector<std::string> client_environment();
// The C library bench runs on (dladdr of one of its functions), preloaded for
// a program that links its own allocator under the reference.
std::string c_library_path();
// bench's environment minus what steers a child, then LD_PRELOAD=<in_front>:<the
// allocator's library>, the `extra` variables and the allocator's own.
std::vector<std::string> preloaded_environment(const Allocator& allocator, const std::string& in_front,
                                               const std::vector<std::string>& extra);
// Variables in bench's environment that tune allocators or the loader: every
// run inherits them, so meta.json records them.
std::vector<std::string> inherited_tuning();

// What a run was run with beyond its plan (runs.csv's args, alloc_library,
// alloc_env): the same numbers come only from the same setting.
struct RunSetting {
  std::string args;           // the child's command line (ChildCommand's recorded)
  std::string alloc_library;  // library_identity (registry.h)
  std::string alloc_env;      // allocator_environment of the child's environment
};
// The child's variables that tune the allocator or the loader (those
// inherited_tuning keeps) or that the allocator's registry entry sets,
// sorted by name, NAME=value joined by ';'.
std::string allocator_environment(const std::vector<std::string>& env, const Allocator& allocator);

}  // namespace allocstamp
