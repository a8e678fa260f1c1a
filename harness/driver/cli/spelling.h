// spelling.h — how far a mistyped name is from a known one, for the "did you
// mean" of unknown flags (cli.cpp), workloads and allocators (selection.cpp).
#pragma once
#include <cstddef>
#include <string>

namespace allocstamp {

// Edit distance: insertions, deletions and substitutions turning a into b.
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace allocstamp
