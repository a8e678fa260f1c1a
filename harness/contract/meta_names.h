// meta_names.h — a constant for the name of every field of meta.json in
// meta_fields.def: meta::started is "started", meta::machine_host the
// `machine` object's "host" (meta::<object>_<name>), so code that writes or
// reads a field cannot spell one the table lacks.
#pragma once

namespace meta {
#define META_FIELD(name, meaning) inline constexpr char name[] = #name;
#define META_OBJECT_FIELD(object, name, meaning) inline constexpr char object##_##name[] = #name;
#include "meta_fields.def"
#undef META_OBJECT_FIELD
#undef META_FIELD
}  // namespace meta
