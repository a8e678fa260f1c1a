// check_repeatable.h — how bench check decides a figure that repeats run to
// run up to a spread it measures itself: simulated costs (valgrind's counts of
// the measured phase) and kernel counts (minor faults, the allocator's kernel
// calls). The two sides' medians are compared against an allowance for that
// repeatability, not with a statistical test; kept apart from the cell
// matching in check_pairing.cpp.
#pragma once
#include <cstddef>
#include <vector>

#include "analysis/check_types.h"

namespace allocstamp::check_repeatable {

// The allowance is the larger of the row's threshold (its floor, percent) and
// kSpreadFactor times the widest spread of either side's repetitions relative
// to the baseline's median — where `workers_alone` (one thread, and the
// profiled runs saw one worker at a time) and each side has kApartReps
// repetitions, the current's only where its values reach the baseline's range (a
// current wholly beyond it has moved: its spread may be the change itself); a
// change within `slack` (absolute, in the figure's
// unit: a call or two of a kernel-call count) or within kSpreadFactor times
// that spread in the figure's unit (from a zero baseline no percentage
// applies) is never flagged. Fills base,
// cur, change, detectable (the allowance: the smallest change flagged),
// verdict and the note on the spread.
constexpr double kSpreadFactor = 3.0;
// The repetitions a side needs before a current wholly beyond the baseline's
// range stops counting its own spread (fewer lie apart too often by chance).
constexpr std::size_t kApartReps = 3;
void judge(const std::vector<double>& vb, const std::vector<double>& vc, double slack, bool workers_alone, CheckRow& r);

}  // namespace allocstamp::check_repeatable
