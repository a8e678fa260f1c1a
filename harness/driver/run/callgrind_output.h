// callgrind_output.h — the one reader of callgrind's output file: its
// "events:" and "totals:" lines become the sim_* keys of keys.def.
#pragma once
#include <string>

#include "run/records.h"

namespace allocstamp {

// The sim_* keys of callgrind's output file (its "events:"
// and "totals:" lines). Empty with `problem` set when the file is missing or unreadable, or
// counted no instruction (the program marked no phase, or was built without
// valgrind's headers).
KeyValues read_simulation(const std::string& out_file, std::string& problem);

}  // namespace allocstamp
