// keys.h — keys.def as a table the driver can walk: each key's name, unit,
// source, kind, check group and meaning, in runs.csv's order.
#pragma once
#include <string_view>

#include "versions.h"

namespace allocstamp::contract {

struct KeyInfo {
  // type: u64, real, signed or text (keys.def); bound: "<largest value>: why".
  std::string_view name, unit, type, bound, source, kind, group, meaning;
  // A column of runs.csv (keys only the record carries are not).
  constexpr bool is_column() const { return source != "record"; }
  // Compared by bench check (its threshold group is not `none`).
  constexpr bool is_checked() const { return group != "none"; }
};

inline constexpr KeyInfo kKeys[] = {
#define KEY(name, unit, type, bound, source, kind, group, meaning) {#name, #unit, #type, bound, #source, #kind, #group, meaning},
#include "keys.def"
#undef KEY
};

inline constexpr int kRecordFormat = ALLOCSTAMP_RECORD_FORMAT;
inline constexpr int kResultsSchema = ALLOCSTAMP_RESULTS_SCHEMA;

}  // namespace allocstamp::contract
