// key_names.h — a constant for the name of every key in keys.def
// (keys::heap_requested_peak_bytes is "heap_requested_peak_bytes"), so code
// that writes or reads a key by name cannot spell one the table lacks; and the
// relations keys.def states between keys, as lookups.
#pragma once
#include <string_view>

namespace keys {
#define KEY(name, unit, source, kind, group, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef KEY

// The side tables' columns: keys::scopes::calls_count, ..., and each table's
// column names in its file's order (keys::scopes::columns).
#define KEY(name, unit, source, kind, group, meaning)
namespace scopes {
#define SCOPES_COLUMN(name, unit, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef SCOPES_COLUMN
inline constexpr const char* columns[] = {
#define SCOPES_COLUMN(name, unit, meaning) #name,
#include "keys.def"
#undef SCOPES_COLUMN
};
}  // namespace scopes
namespace series {
#define SERIES_COLUMN(name, unit, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef SERIES_COLUMN
inline constexpr const char* columns[] = {
#define SERIES_COLUMN(name, unit, meaning) #name,
#include "keys.def"
#undef SERIES_COLUMN
};
}  // namespace series
namespace micro {
#define MICRO_COLUMN(name, unit, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef MICRO_COLUMN
inline constexpr const char* columns[] = {
#define MICRO_COLUMN(name, unit, meaning) #name,
#include "keys.def"
#undef MICRO_COLUMN
};
}  // namespace micro
namespace callsites {
#define CALLSITES_COLUMN(name, unit, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef CALLSITES_COLUMN
inline constexpr const char* columns[] = {
#define CALLSITES_COLUMN(name, unit, meaning) #name,
#include "keys.def"
#undef CALLSITES_COLUMN
};
}  // namespace callsites
#undef KEY

// The key whose value bounds `figure`'s error (keys.def's KEY_ERROR_BOUND), or nullptr.
constexpr const char* error_bound_of(std::string_view figure) {
#define KEY(name, unit, source, kind, group, meaning)
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
#define KEY(name, unit, source, kind, group, meaning)
#define KEY_TRACE_APPROXIMATE(approximate) \
  if (figure == approximate) return true;
#include "keys.def"
#undef KEY_TRACE_APPROXIMATE
#undef KEY
  return false;
}
}  // namespace keys
