// report.h — the one report of a process: Contract 1 record lines to
// MEMPROF_OUT, or a readable summary on stderr.
#pragma once

#include "output/lifecycle.h"

namespace memprof::report {

// Writes the final report (records or text) of a finished measured phase and
// the allocator's pages at exit; lifecycle calls it once per process, after
// the last publish.
void write_final(const Phase& phase, const os_pages::Figures& allocator_pages_at_exit);

}  // namespace memprof::report
