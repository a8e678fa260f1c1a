// fields.h — what a field of a results file may hold, by its type (keys.def's
// u64, real, signed, text): one rule for bench's writer of runs.csv and the
// side tables and for every reader, so no reader takes `inf`, `nan`, `1e400`,
// `0x10` or a count past 2^64 as a figure, and bench never writes a field its
// own reader refuses.
#pragma once
#include <string>
#include <string_view>

namespace allocstamp {

// Empty when `field` (not empty) is a value of `type`, else what is wrong with
// it ("'x' is not a whole number from 0 to 2^64-1"). u64: digits, at most
// 2^64 - 1; real: a non-negative decimal whose double is finite; signed: a
// decimal of either sign, finite; text and unknown types: anything.
std::string field_problem(std::string_view type, const std::string& field);
// The type keys.def declares for runs.csv's column or record key `name`; ""
// for a name it lacks (a program's own key: extra holds it as text).
std::string field_type_of(std::string_view name);

// Empty when `name` is a name bench takes for a workload, an allocator, a
// preset, a size or a TM method — letters, digits and `._+-`, at most 100
// characters, not `.` or `..`, so that it is safe in a file name (logs/, the
// figures) — else what is wrong with it.
std::string name_problem(const std::string& name);
// An allocator's name: a name as above, or a variant of one, BASE:VARIANT,
// whose VARIANT may also hold ':' and '=' (jemalloc:bg,
// jemalloc:MALLOC_CONF=background_thread:true). "" when good.
std::string allocator_name_problem(const std::string& name);

// Empty when `text` may stand for a setup that figures are compared by
// exactly (a simulator's identity: runs.csv's sim_setup, meta.json's
// simulator identity) — not blank, no space at either end, no control byte —
// else what it is ("blank", ...: "the identity is <it>"). A damaged identity is refused rather than
// compared: blank would match nothing or, to a lax reader, anything.
std::string identity_problem(const std::string& text);

// A whole number that fits in 64 bits: digits only (no sign, no 0x, no point).
bool is_count(const std::string& field);

}  // namespace allocstamp
