// program_result.h — what someone else's program printed, as a digest that is
// compared across allocators: an allocator that changes a program's result is
// a finding, not a time. The lines its entry says vary from run to run
// (timings) are left out.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/run.h"

namespace allocstamp {

// The digest of the standard output in `file` as `workload` says to compare it:
// without the lines that match one of its output_ignore (ECMAScript regexes),
// and only what its output_keep matches where it has one; `problem` set when
// the file cannot be read.
std::string output_digest(const std::string& file, const Workload& workload, std::string& problem);

// The first digest of each cell's program (workload, size, arguments, threads),
// and the run it came from; a later run of another allocator that printed
// something else is told so.
class ProgramResults {
 public:
  // Records `digest` for `run` (run with `args`); "" when it agrees with the
  // first of its cell, else why the run fails.
  std::string judge(const Run& run, const std::string& args, const std::string& digest);
  // A digest recorded before (a resumed folder's ok runs), first in its cell.
  void remember(const std::string& workload, const std::string& size, const std::string& args, int threads,
                const std::string& allocator, int run_id, const std::string& digest);

 private:
  struct First {
    std::string digest, allocator;
    int run_id = 0;
  };
  std::map<std::string, First> first_;
};

}  // namespace allocstamp
