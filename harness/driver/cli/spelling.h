// spelling.h — how far a mistyped name is from a known one, for the "did you
// mean" of unknown flags (cli.cpp), workloads and allocators (selection.cpp),
// presets (presets.cpp) and every flag that takes one of a fixed set of values
// (one_of).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace allocstamp {

// Edit distance: insertions, deletions and substitutions turning a into b.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest a mistyped `name`, or "" when none is close: within a
// third of its length in edits (at least 2), a candidate that contains it (3
// letters or more: "btree") counting as one edit away.
std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates);

// "did you mean 'x'? " for nearest_name's answer, or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// A CLI11 check that the value is one of `names`, else an error that lists
// them and names the nearest ("ml-wt is not one of ml_wt, gl_wt, ...; did you
// mean 'ml_wt'?").
CLI::Validator one_of(std::vector<std::string> names);

}  // namespace allocstamp
