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

std::string human_text(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "-";
  auto scaled = [&](const char* const* names, int count, double step) {
    int i = 0;
    double x = v;
    while (i + 1 < count && std::fabs(x) >= step) x /= step, ++i;
    return i == 0 ? number_text("%.0f", x) + " " + names[0] : number_text("%.1f", x) + " " + names[i];
  };
  if (unit == "bytes") {
    static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    return scaled(names, 5, 1024.0);
  }
  if (unit == "ns") {
    static const char* const names[] = {"ns", "µs", "ms", "s"};
    return scaled(names, 4, 1000.0);
  }
  // A count: the integer with its thousands separated.
  std::string digits = number_text("%.0f", std::fabs(v)), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

}  // namespace allocstamp
