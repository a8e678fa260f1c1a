// key_names.h — a constant for the name of every key in keys.def
// (keys::heap_requested_peak_bytes is "heap_requested_peak_bytes"), so code
// that writes or reads a key by name cannot spell one the table lacks; and the
// relations keys.def states between keys, as lookups.
#pragma once
#include <string_view>

namespace keys {
#define KEY(name, unit, type, bound, source, kind, group, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef KEY

// The side tables' columns: keys::scopes::calls_count, ... (one namespace
// per table), and every side column with its table, in each file's order.
#define KEY(name, unit, type, bound, source, kind, group, meaning)
#define SIDE_COLUMN(table, name, unit, type, bound, meaning) \
  namespace table {                            \
  inline constexpr char name[] = #name;        \
  }
#include "keys.def"
#undef SIDE_COLUMN

struct SideColumn {
  std::string_view table, name, unit, type, bound;  // type and bound as keys.def's KEY's
};
inline constexpr SideColumn side_columns[] = {
#define SIDE_COLUMN(table, name, unit, type, bound, meaning) {#table, #name, #unit, #type, bound},
#include "keys.def"
#undef SIDE_COLUMN
};
#undef KEY

// The key whose value bounds `figure`'s error (keys.def's KEY_ERROR_BOUND), or nullptr.
constexpr const char* error_bound_of(std::string_view figure) {
#define KEY(name, unit, type, bound, source, kind, group, meaning)
#define KEY_ERROR_BOUND(bounded, error) \
  if (figure == bounded) return error;
#include "keys.def"
#undef KEY_ERROR_BOUND
#undef KEY
  return nullptr;
}

// Whether a trace's `figure` need not equal memprof's record of the same run
// (keys.def's KEY_TRACE_APPROXIMATE).
constexpr bool approximate_in_trace(std::string_view figure) {
#define KEY(name, unit, type, bound, source, kind, group, meaning)
#define KEY_TRACE_APPROXIMATE(approximate) \
  if (figure == approximate) return true;
#include "keys.def"
#undef KEY_TRACE_APPROXIMATE
#undef KEY
  return false;
}
}  // namespace keys
