// digest.h — a short stable digest of a text (FNV-1a, 64 bits, as 16 hex
// digits): it names a generator's version or a program's output so two can be
// compared; it is no defence against anyone who wants a collision.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace allocstamp {

inline std::string digest_of(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace allocstamp
