// callgrind_output.h — the one reader of callgrind's output file: its
// "events:" and "totals:" lines become the sim_* keys of keys.def; and the
// relations every simulated run's sim_* figures hold, which runs.csv's reader
// checks too (a figure bench would not write is refused when read).
#pragma once
#include <cstdint>
#include <string>

#include "run/records.h"

namespace allocstamp {

// The sim_* keys of callgrind's output file (its "events:" and "totals:"
// lines). Empty with `problem` set (the run fails) when the file is missing,
// not a regular file, unreadable or past 256 MiB; when it lacks an event or the totals; when
// a total is not a whole number from 0 to 2^64-1 (no sign, no wrap); when the
// totals break what callgrind guarantees (each level's misses at most its
// accesses; a run that executed instructions missed the first level and the
// last level at least once: callgrind empties its simulated caches when it
// starts counting); or when the figures derived from them overflow or leave
// keys.def's bounds (simulated_figures_problem: a bad run fails, nothing
// saturates). A totals line shorter than the events line is callgrind's own
// form: it leaves trailing zeros out ("totals: 0" for a phase of no cost).
KeyValues read_simulation(const std::string& out_file, std::string& problem);

// The estimated cycles of keys.def's cost model: instructions + 10 x
// first-level misses + 100 x last-level misses. False when the result does
// not fit in 64 bits.
bool estimated_cycles(std::uint64_t instructions, std::uint64_t first_level_misses, std::uint64_t last_level_misses,
                      std::uint64_t& cycles);

// What is wrong with one ok simulated run's sim_* counts: `key` the first
// offending column, `what` why; key empty when nothing is.
struct FiguresProblem {
  std::string key, what;
};
// The relations of a simulated run's figures, as read_simulation writes them
// and runs.csv's reader refuses them otherwise: each of the seven sim_* counts
// present and a whole number from 0 to 2^64-1; some instructions; first-level
// instruction misses at most the instructions, first-level data misses at most
// the data reads and writes, last-level misses at most the first-level ones (the
// last level is reached only on a first-level miss); the cycles exactly
// keys.def's cost model of the others; each at most its keys.def bound.
FiguresProblem simulated_figures_problem(const KeyValues& figures);

}  // namespace allocstamp
