// format.cpp — the number formatter (format.h), on {fmt}.
#include "model/format.h"

#include <cmath>
#include <ctime>
#include <sstream>

#include <fmt/format.h>
#include <fmt/printf.h>

namespace allocstamp {

std::string number_text(const char* format, double v) {
  if (!std::isfinite(v)) return "-";
  return fmt::sprintf(format, v);
}

std::string printable_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += fmt::format("\\x{:02x}", u);
  }
  return out;
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

std::string percent_up_text(double fraction) {
  const double pct = fraction * 100.0;
  const double step = pct >= 10 ? 1 : pct >= 1 ? 0.1 : 0.01;
  return number_text("%g%%", std::ceil(pct / step - 1e-9) * step);
}

std::string mib_text(double bytes) { return number_text("%.1f MiB", bytes / (1024.0 * 1024.0)); }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

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

std::string wrap_words(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out, line;
  bool fresh = true;  // no word on the line yet
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!fresh && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = std::string(indent, ' ');
      fresh = true;
    }
    line += (fresh ? "" : " ") + word;
    fresh = false;
  }
  return out + line;
}

std::string local_time_text(const char* format) {
  std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, format, std::localtime(&now));
  return buf;
}

}  // namespace allocstamp
