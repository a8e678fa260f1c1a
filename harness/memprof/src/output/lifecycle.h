// lifecycle.h — start and end of a profiled process: lazy initialisation from
// the first hook or the constructor, the measured phase, and the single report.
#pragma once
#include <stdint.h>

#include "output/report.h"

namespace memprof {

// Resolves the allocator and reads options; safe to call from inside malloc.
void ensure_ready();

void begin_measured_phase();
// `by_program`: memprof_phase_end (else the report ends it at exit).
void end_measured_phase(bool by_program = false);
const Phase& measured_phase();
uint64_t start_ns();
// The fd records go to (-1: text summary on stderr).
int output_fd();
// Writes the process's one report (and ends its trace), once: the destructor
// at exit, or _exit and _Exit before they end the process.
void report_at_exit();
// Whether this is the process memprof started in: not a forked or vfork child.
bool started_here();

}  // namespace memprof
