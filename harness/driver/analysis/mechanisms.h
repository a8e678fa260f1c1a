// mechanisms.h — why a cell separates from another, as far as it was measured:
// the figures that say what the allocator made the kernel and the TM runtime
// do (system-time share, page faults, context switches, memprof's counts of
// the allocator's mmap/munmap/madvise/brk calls, transaction attempts), each
// compared with the one estimator (stats::log_ratio) and named only where its
// interval leaves 1 out, at the level of the folder's mechanism family
// (issue 49). Never a cause that was not measured.
#pragma once
#include <string>
#include <vector>

#include "results/cells.h"

namespace allocstamp {

struct Mechanism {
  std::string key;    // the runs.csv column
  std::string label;  // "minor page faults"
  std::string text;   // "minor page faults 4.03x [3.98, 4.08] (747,848 against 185,520)"
};

// Whether two cells' runs of a mechanism have a ratio of geometric means:
// every run of both sides above 0. A run that counted 0 has no log, so a ratio
// of the others would hide it (once jemalloc's system-time share, 0 in four
// runs of five, was drawn 2.0x from the fifth alone).
bool has_ratio(const std::vector<double>& mine, const std::vector<double>& theirs);

// A measured figure as a finding says it: 1234567 -> "1,234,567", 12.3456 ->
// "12.3", 23 -> "23" (a count of 0 is "0", never a rate's "0.00").
std::string mechanism_figure_text(double v);

// The mechanisms whose figures separate `cell` from `other` (either way), in
// the table's order; a figure both cells lack, or only one has, is left out
// (glibc's kernel calls are not measurable), except counts that are all zero
// on one side and all non-zero on the other ("1,204,113 against 0").
// `compared`, when given, gets how many figures both cells had.
// `level`: the interval that must leave 1 out (the folder's mechanism family's, mechanism_family).
std::vector<Mechanism> separating_mechanisms(const Cells& cells, const Cell& cell, const Cell& other,
                                             int* compared = nullptr, double level = 0.95);

// A folder's mechanism comparisons as one family (issue 49): every figure of
// the table above of every cell against the reference's cell of its workload
// and thread count, corrected together (stats::correct_family); the level it
// returns is the one at which separating_mechanisms names a mechanism there.
// Counts all zero on one side and all non-zero on the other are stated, not tested: outside the family.
stats::FamilyCorrection mechanism_family(const Cells& cells, bool per_comparison = false);
// "Mechanisms are named where their interval at 99.9% leaves 1 out (the
// folder's 412 mechanism comparisons corrected together: ...)".
std::string mechanism_legend(const stats::FamilyCorrection& family);
// The same for two cells of different sweeps (bench check: the current cell
// against its baseline): their runs are not paired repetition by repetition.
std::vector<Mechanism> separating_mechanisms(const Cells& cells, const Cell& cell, const Cells& other_cells,
                                             const Cell& other, int* compared = nullptr);

// The allocator's kernel calls (medians, non-zero only) where `other` has none
// measured (glibc's malloc calls the kernel inside the C library, out of
// memprof's sight): "" when there is nothing to say. Stated, never compared.
std::string unmatched_kernel_calls(const Cells& cells, const Cell& cell, const Cell& other, const std::string& other_name);

// "measured with it: A; B", "no measured mechanism separates", or, when no
// figure was there to compare (a folder older than runs.csv schema 5), that
// no mechanism was measured.
std::string mechanisms_sentence(const std::vector<Mechanism>& found, const std::string& other_name, int compared = 1);

}  // namespace allocstamp
