// format.cpp — the number formatter (format.h), on {fmt}.
#include "output/format.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/printf.h>

namespace allocstamp {

std::string number_text(const char* format, double v) {
  if (!std::isfinite(v)) return "-";
  return fmt::sprintf(format, v);
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{:.10g}", v);
}

std::string data_number(double v) {
  if (!std::isfinite(v)) return "NaN";
  return fmt::format("{:.6g}", v);
}

std::string ratio_interval_text(double value, double low, double high) {
  if (!std::isfinite(value)) return "-";
  std::string out = number_text("%.3f", value);
  if (std::isfinite(low)) out += " [" + number_text("%.3f", low) + ", " + number_text("%.3f", high) + "]";
  return out;
}

std::string mib_text(double bytes) { return number_text("%.1f MiB", bytes / (1024.0 * 1024.0)); }

}  // namespace allocstamp
