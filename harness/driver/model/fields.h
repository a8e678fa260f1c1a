// fields.h — what a field of a results file may hold, by its unit (keys.def's
// count, bytes, ns, kb, byte_ns, number, text): one rule for runs.csv and the
// side tables, so no reader takes `inf`, `nan`, `1e400`, `0x10` or a count past
// 2^64 as a figure.
#pragma once
#include <string>
#include <string_view>

namespace allocstamp {

// Empty when `field` (not empty) is a value of `unit`, else what is wrong with
// it ("'x' is not a whole number of bytes"). count and bytes: digits, at most
// 2^64 - 1; ns, kb, byte_ns: a non-negative decimal below 2^64; number: a
// decimal, signed, of magnitude below 2^64; text and unknown units: anything.
std::string field_problem(std::string_view unit, const std::string& field);

// Empty when `name` is a name bench takes for a workload, an allocator, a
// preset, a size or a TM method — letters, digits and `._+-`, at most 100
// characters, not `.` or `..`, so that it is safe in a file name (logs/, the
// figures) — else what is wrong with it.
std::string name_problem(const std::string& name);
// An allocator's name: a name as above, or a variant of one, BASE:VARIANT,
// whose VARIANT may also hold ':' and '=' (jemalloc:bg,
// jemalloc:MALLOC_CONF=background_thread:true). "" when good.
std::string allocator_name_problem(const std::string& name);

// A whole number that fits in 64 bits: digits only (no sign, no 0x, no point).
bool is_count(const std::string& field);

}  // namespace allocstamp
