// check_allocator_wide.h — an allocator's time across every workload of a
// check, as one comparison: the median of its cells' changes (each its time
// over the reference's, rep by rep) and the sign test of their directions.
// One cell can switch mode between two sweeps, so a cell's own test reads its
// scatter with heavy tails and cannot see an allocator 30% slower everywhere
// (docs/check.md); a median over its cells is not moved by one cell, and 45
// cells that all moved one way are a change whatever each one's spread.
#pragma once
#include <string>
#include <vector>

#include "analysis/check_types.h"

namespace allocstamp::check_allocator_wide {

// The workload of such a row: its cell stands for every workload.
inline constexpr const char* kEveryWorkload = "(every workload)";

// Appends one row per allocator other than the reference, time metric and
// thread count with at least `min_cells` cells compared rep by rep: its change
// the median of theirs, regressed (improved) beyond its threshold where the
// sign test's p, corrected by Benjamini–Hochberg over these rows, is below
// alpha. A note says how many there are and what they found.
void add(std::vector<CheckRow>& rows, const std::string& reference, double alpha, std::size_t min_cells,
         std::vector<std::string>& notes);

}  // namespace allocstamp::check_allocator_wide
