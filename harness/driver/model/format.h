// format.h — the one number formatter of everything bench prints or writes:
// printf-style text for people ("-" where there is no number), exact-enough
// CSV text for programs ("" where there is none); text wrapped to the
// terminal's 120 columns; a list joined with commas; and text from a file made
// safe to show.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace allocstamp {

// `v` through a printf format with one double conversion; "-" when v is NaN or infinite.
std::string number_text(const char* format, double v);
// A value for a CSV cell: %.10g, empty when NaN.
std::string csv_number(double v);
// A number in a figure's data file: six significant digits, "NaN" when there is none (gnuplot leaves it out).
std::string data_number(double v);
// A ratio with its 95% interval, "0.817 [0.790, 0.845]", three decimals: the
// interval left out when it is unknown, "-" when the ratio is.
std::string ratio_interval_text(double value, double low, double high);
// A fraction as a percent rounded up (a change of the figure shown is one a
// test sees) to whole percents from 10%, and below to two significant digits:
// 0.091 is "9.1%", 0.005 "0.5%" (bench check's "detects" and its note).
std::string percent_up_text(double fraction);
// Bytes as MiB with one decimal ("-" when unknown).
std::string mib_text(double bytes);
// A figure for a person, by its unit (keys.def's: bytes, ns, count, ...):
// bytes in B, KiB, MiB or GiB ("12.3 MiB"), nanoseconds in ns, µs, ms or s,
// counts with thousands separated ("1,234,567").
std::string human_text(double v, const std::string& unit);
// "a, b, c": items in their order, comma-separated ("" for none).
std::string joined(const std::vector<std::string>& items);

// The width of every line bench prints (tables, wrapped text).
constexpr std::size_t kTerminalWidth = 120;
// `text`'s words (split at whitespace, joined by single spaces) in lines of at
// most `width` bytes (so never more characters), every line after the first
// starting with `indent` spaces; a word longer than a line stands alone.
std::string wrap_words(const std::string& text, std::size_t width = kTerminalWidth, std::size_t indent = 0);

// `text` with every control byte (below 0x20, and 0x7f) shown escaped: \n, \r,
// \t, else \xNN. What a file holds (meta.json, a registry, a log) reaches a
// message, a terminal or a report only through it: a NUL would cut a message
// short, an escape sequence would drive the terminal, a newline would forge a
// line. Other bytes, UTF-8 included, are kept.
std::string printable_text(const std::string& text);

// The local time now in strftime's `format` ("%Y-%m-%dT%H:%M:%S%z" for meta.json).
std::string local_time_text(const char* format);

}  // namespace allocstamp
