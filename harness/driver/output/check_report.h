// check_report.h — what `bench check` shows: an aligned table of the verdicts
// (those that are not ok, or all) ending in one count per verdict and PASS or
// FAIL, and every row as CSV for machines (commands/check.cpp runs the verb).
#pragma once
#include <ostream>
#include <string>

#include "analysis/check_types.h"

namespace allocstamp {

// The table: every row with `all`, else the rows that are not ok (nothing
// when all are ok).
void print_check_table(const CheckResult& result, bool all, std::ostream& out);

// "check: 1 regressed, 40 ok — FAIL": a count per verdict, then PASS or FAIL.
std::string check_verdict_line(const CheckResult& result, const CheckConfig& config);

// "detectable: 12 of 270 timed comparisons could see their threshold (5%);
// median detectable change 23%": how much of the check could have seen a change
// of its threshold. "" when no time was compared.
std::string check_detectable_line(const CheckResult& result);

// Every row, with a schema line: `# allocstamp check.csv schema 4`.
void write_check_csv(const CheckResult& result, std::ostream& out);

}  // namespace allocstamp
