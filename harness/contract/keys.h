// keys.h — keys.def as a table the driver can walk: each key's name, unit,
// source, kind, check group and meaning, in runs.csv's order.
#pragma once
#include <string_view>

#include "versions.h"

namespace allocstamp::contract {

// keys.def's sources and kinds (its header says what each means), so code
// asks a key's as a value, and a key given another word does not compile.
enum class KeySource { plan, driver, workload, simulator, counter, memprof, allocator, record };
enum class KeyKind { id, info, measured, deterministic, simulated, kernel };

struct KeyInfo {
  // type: u64, real, signed or text (keys.def); bound: "<largest value>: why".
  std::string_view name, unit, type, bound;
  KeySource source;
  KeyKind kind;
  std::string_view group, meaning;
  // A column of runs.csv (keys only the record carries are not).
  constexpr bool is_column() const { return source != KeySource::record; }
  // Compared by bench check (its threshold group is not `none`).
  constexpr bool is_checked() const { return group != "none"; }
};

inline constexpr KeyInfo kKeys[] = {
#define KEY(name, unit, type, bound, source, kind, group, meaning) {#name, #unit, #type, bound, KeySource::source, KeyKind::kind, #group, meaning},
#include "keys.def"
#undef KEY
};

inline constexpr int kRecordFormat = ALLOCSTAMP_RECORD_FORMAT;
inline constexpr int kResultsSchema = ALLOCSTAMP_RESULTS_SCHEMA;

}  // namespace allocstamp::contract
