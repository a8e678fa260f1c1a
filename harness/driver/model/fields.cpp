// fields.cpp — the unit rules of fields.h.
#include "model/fields.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "keys.h"

namespace allocstamp {

namespace {

// A decimal: an optional '-' (when `sign`), digits, an optional fraction, an
// optional exponent; strtod would also take "inf", "nan", "0x10" and spaces.
bool is_decimal(const std::string& s, bool sign) {
  std::size_t i = 0, n = s.size();
  if (sign && i < n && s[i] == '-') ++i;
  auto digits = [&] {
    std::size_t from = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  bool whole = digits();
  bool fraction = false;
  if (i < n && s[i] == '.') ++i, fraction = digits();
  if (!whole && !fraction) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

// A finite double: 1e400 overflows to infinity and is refused.
bool is_finite(const std::string& s) { return std::isfinite(std::strtod(s.c_str(), nullptr)); }

}  // namespace

std::string name_problem(const std::string& name) {
  if (name.empty()) return "an empty name";
  if (name.size() > 100) return "a name of " + std::to_string(name.size()) + " characters (at most 100)";
  if (name == "." || name == "..") return "the name '" + name + "' (a folder's)";
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '+' || c == '-')) {
      std::string shown;
      for (char d : name) shown += (static_cast<unsigned char>(d) < 32 || d == 127) ? '?' : d;
      return "the name '" + shown + "' holds a character other than letters, digits and ._+-";
    }
  return "";
}

std::string allocator_name_problem(const std::string& name) {
  const std::size_t colon = name.find(':');
  if (colon == std::string::npos) return name_problem(name);
  if (name.size() > 100) return "a name of " + std::to_string(name.size()) + " characters (at most 100)";
  if (std::string problem = name_problem(name.substr(0, colon)); !problem.empty()) return "its base: " + problem;
  std::string variant = name.substr(colon + 1);
  if (variant.empty()) return "the name '" + name + "' ends with ':' (a variant names its settings after it)";
  for (char& c : variant)
    if (c == ':' || c == '=') c = '_';  // allowed in a variant only
  if (std::string problem = name_problem(variant); !problem.empty())
    return "the variant '" + name.substr(colon + 1) + "': " + problem + " (and :=)";
  return "";
}

std::string identity_problem(const std::string& text) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  if (std::all_of(text.begin(), text.end(), space)) return "blank";
  for (char c : text)
    if (static_cast<unsigned char>(c) < 32 || c == 127)
      return "a text holding the control byte " + std::to_string(int(static_cast<unsigned char>(c)));
  if (space(text.front()) || space(text.back())) return "'" + text + "', which begins or ends with a space";
  return "";
}

bool is_count(const std::string& s) {
  if (s.empty() || s.size() > 20 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  return s.size() < 20 || s <= "18446744073709551615";
}

std::string field_problem(std::string_view type, const std::string& field) {
  if (type == "u64") {
    if (!is_count(field)) return "'" + field + "' is not a whole number from 0 to 2^64-1";
  } else if (type == "real") {
    if (!is_decimal(field, false) || !is_finite(field)) return "'" + field + "' is not a finite non-negative number";
  } else if (type == "signed") {
    if (!is_decimal(field, true) || !is_finite(field)) return "'" + field + "' is not a finite number";
  }
  return "";
}

std::string field_type_of(std::string_view name) {
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == name) return std::string(k.type);
  return "";
}

}  // namespace allocstamp
