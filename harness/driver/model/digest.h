// digest.h — a short stable digest of a text (FNV-1a, 64 bits, as 16 hex
// digits): it names a generator's version or a program's output so two can be
// compared; it is no defence against anyone who wants a collision.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace allocstamp {

// The digest of a text given in pieces (a file as it is written).
class Digest {
 public:
  void add(std::string_view text) {
    for (unsigned char c : text) h_ = (h_ ^ c) * 1099511628211ull;
  }
  std::string hex() const {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h_));
    return hex;
  }

 private:
  std::uint64_t h_ = 14695981039346656037ull;
};

inline std::string digest_of(std::string_view text) {
  Digest d;
  d.add(text);
  return d.hex();
}

}  // namespace allocstamp
