// key_names.h — a constant for the name of every key in keys.def
// (keys::heap_requested_peak_bytes is "heap_requested_peak_bytes"), so code
// that writes or reads a key by name cannot spell one the table lacks.
#pragma once

namespace keys {
#define KEY(name, unit, source, kind, group, meaning) inline constexpr char name[] = #name;
#include "keys.def"
#undef KEY
}  // namespace keys
