// numbers.h — CLI11 checks of a number typed on the command line or in an
// ALLOCSTAMP_* variable that say in words what is wrong with it: "abc is not a
// whole number", "2000 is more than 1024" (CLI11's Range said "Value abc not
// in range 1 to 1024" of a word that is no number at all).
#pragma once
#include <CLI/CLI.hpp>

namespace allocstamp {

// A whole number from `low` to `high`, both included.
CLI::Validator whole_number(long long low, long long high);
// A number (a decimal fraction allowed) from `low` to `high`, both included.
CLI::Validator decimal_number(double low, double high);

}  // namespace allocstamp
