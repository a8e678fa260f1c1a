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

std::string mib_text(double bytes) { return number_text("%.1f MiB", bytes / (1024.0 * 1024.0)); }

}  // namespace allocstamp
