// report.h — the one report of a process: Contract 1 record lines to
// MEMPROF_OUT, or a readable summary on stderr.
#pragma once

namespace memprof::report {

// Writes the final report (records or text) exactly once per process.
void write_final();

}  // namespace memprof::report
