// report.h — the one report of a process: Contract 1 record lines to
// MEMPROF_OUT, or a readable summary on stderr.
#pragma once

#include "lifecycle.h"

namespace memprof::report {

// Writes the final report (records or text) of a finished measured phase;
// lifecycle calls it once per process, after the last publish.
void write_final(const Phase& phase);

}  // namespace memprof::report
