// version.h — the version bench reports (--version, meta.json).
#pragma once

namespace allocstamp {
inline constexpr const char* kVersion = "0.1.0";
}
