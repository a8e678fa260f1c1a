// environment.h — what a run's child process gets (Contract 1): its command
// line (Contract 3) and its environment, LD_PRELOAD=libmemprof.so:<allocator>.
#pragma once
#include <string>
#include <vector>

#include "options.h"
#include "plan.h"
#include "selection.h"

namespace allocstamp {

std::vector<std::string> child_arguments(const Run& run, const Options& options);
std::vector<std::string> child_environment(const Run& run, const Options& options, const Paths& paths);
// bench's environment minus what steers a child, then LD_PRELOAD=<in_front>:<the
// allocator's library>, the `extra` variables and the allocator's own.
std::vector<std::string> preloaded_environment(const Allocator& allocator, const std::string& in_front,
                                               const std::vector<std::string>& extra);
// Variables in bench's environment that tune allocators or the loader: every
// run inherits them, so meta.json records them.
std::vector<std::string> inherited_tuning();

}  // namespace allocstamp
