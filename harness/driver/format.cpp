// format.cpp — the number formatter (format.h).
#include "format.h"

#include <cmath>
#include <cstdio>

namespace allocstamp {

std::string number_text(const char* format, double v) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string mib_text(double bytes) { return number_text("%.1f MiB", bytes / (1024.0 * 1024.0)); }

}  // namespace allocstamp
