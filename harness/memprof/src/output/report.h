// report.h — the one report of a process: Contract 1 record lines to
// MEMPROF_OUT, or a readable summary on stderr; and the measured phase it
// reports, as lifecycle.h measures it.
#pragma once
#include <stdint.h>

#include "introspect.h"
#include "os/os_pages.h"
#include "os/procfs.h"

namespace memprof {

struct Phase {
  uint64_t begin_ns, end_ns;
  double load_begin, load_end;
  procfs::Memory memory;
  introspect::AllocatorStats allocator;
  os_pages::Figures allocator_pages;  // the allocator's mapped pages (measured only when preloaded)
  // Live heap when the phase ended: what the program holds at that point (for a
  // map workload, its container), even if it frees everything before exit.
  int64_t heap_req, heap_use, blocks;
  bool ended;
  bool ended_by_program;
};

}  // namespace memprof

namespace memprof::report {

// Writes the final report (records to `fd`, or text on stderr when it is -1)
// of a finished measured phase and the allocator's pages at exit; lifecycle
// calls it once per process, after the last publish.
void write_final(const Phase& phase, const os_pages::Figures& allocator_pages_at_exit, int fd);

}  // namespace memprof::report
