// numbers.cpp — number checks that say what is wrong in words (numbers.h).
#include "cli/numbers.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "model/format.h"

namespace allocstamp {

namespace {

std::string range_text(double low, double high) { return number_text("%.15g", low) + " to " + number_text("%.15g", high); }

// Whether `value`'s every character went into the number (strto* stop at the first that does not).
bool whole_word(const std::string& value, const char* end) { return !value.empty() && *end == '\0'; }

std::string out_of_range(const std::string& value, double v, double low, double high) {
  if (v < low) return value + " is less than " + number_text("%.15g", low) + " (give " + range_text(low, high) + ")";
  if (v > high) return value + " is more than " + number_text("%.15g", high) + " (give " + range_text(low, high) + ")";
  return "";
}

}  // namespace

CLI::Validator whole_number(long long low, long long high) {
  return CLI::Validator(
      [low, high](std::string& value) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(value.c_str(), &end, 10);
        if (!whole_word(value, end) || value.find_first_of(" \t") != std::string::npos)
          return "'" + value + "' is not a whole number (give " + range_text(double(low), double(high)) + ")";
        if (errno == ERANGE) return value + " is too large (give " + range_text(double(low), double(high)) + ")";
        return out_of_range(value, double(v), double(low), double(high));
      },
      // The description CLI11's Range gives (--help shows it).
      "INT in [" + std::to_string(low) + " - " + std::to_string(high) + "]");
}

CLI::Validator decimal_number(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (!whole_word(value, end) || value.find_first_of(" \t") != std::string::npos || !std::isfinite(v))
          return "'" + value + "' is not a number (give " + range_text(low, high) + ")";
        return out_of_range(value, v, low, high);
      },
      "FLOAT in [" + number_text("%.15g", low) + " - " + number_text("%.15g", high) + "]");
}

}  // namespace allocstamp
