// options.cpp — the MEMPROF_* table: names, defaults, parsers (booleans as
// 1/true/yes/on, sizes with K/M/G suffixes), and one warning per bad value.
#include "base/options.h"

#include <stdlib.h>

#include "base/text.h"

namespace memprof {

constinit Options options;

namespace {

enum class Kind { kString, kBool, kSize, kCount };

struct Entry {
  const char* name;
  Kind kind;
  void* field;
  const char* fallback;
  const char* help;
  size_t size = 0;  // a string's field: its own size (a longer value is refused, not cut)
};

Entry table[] = {
    {"MEMPROF_OUT", Kind::kString, options.out, "", "where records go: fd:N or a path; empty = text summary on stderr", sizeof options.out},
    {"MEMPROF_PEAK_SLACK", Kind::kSize, &options.peak_slack_bytes, "64K", "bytes a thread keeps local before publishing (0 = exact peak; at most 1G)"},
    {"MEMPROF_HEAP", Kind::kBool, &options.track_heap, "1", "track live heap (sizes at free, peaks, load); 0 = counts only"},
    {"MEMPROF_USABLE", Kind::kBool, &options.track_usable, "1", "track malloc_usable_size bytes"},
    {"MEMPROF_SERIES", Kind::kBool, &options.series, "0", "record a time series"},
    {"MEMPROF_SERIES_MS", Kind::kCount, &options.series_time_ms, "10", "series time resolution in ms"},
    {"MEMPROF_SERIES_SIZE", Kind::kSize, &options.series_size_bytes, "1M", "series size resolution in bytes"},
    {"MEMPROF_SERIES_MAX", Kind::kCount, &options.series_max_points, "20000", "series points kept (then resolution halves)"},
    {"MEMPROF_FORK_REPORT", Kind::kBool, &options.fork_report, "0", "forked children (without exec) print their own summary"},
    {"MEMPROF_ONLY", Kind::kString, options.only, "", "comma-separated program names that report; empty = every process", sizeof options.only},
    {"MEMPROF_VERBOSE", Kind::kBool, &options.verbose, "0", "print effective options at start"},
    {"MEMPROF_SAMPLE_BYTES", Kind::kSize, &options.sample_bytes, "0", "sample call sites once per this many bytes on average (e.g. 512K); 0 = off"},
    {"MEMPROF_CALLSITES", Kind::kString, options.callsites, "", "file the sampled call sites are written to at exit", sizeof options.callsites},
    {"MEMPROF_TRACE", Kind::kString, options.trace, "", "record every allocation call to this file (bench trace reads it); empty = none", sizeof options.trace},
};

bool parse_bool(const char* s, bool* out) {
  static const char* yes[] = {"1", "true", "yes", "on"};
  static const char* no[] = {"0", "false", "no", "off"};
  for (const char* y : yes)
    if (text::iequal(s, y)) return *out = true, true;
  for (const char* n : no)
    if (text::iequal(s, n)) return *out = false, true;
  return false;
}

bool parse_size(const char* s, uint64_t* out, bool allow_suffix) {
  uint64_t v = 0;
  const char* p = s;
  if (*p < '0' || *p > '9') return false;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + uint64_t(*p - '0');
  }
  uint64_t mult = 1;
  if (allow_suffix && *p) {
    switch (*p | 0x20) {
      case 'k': mult = 1ull << 10; break;
      case 'm': mult = 1ull << 20; break;
      case 'g': mult = 1ull << 30; break;
      default: return false;
    }
    ++p;
    if ((*p | 0x20) == 'i') ++p;
    if ((*p | 0x20) == 'b') ++p;
  }
  if (*p) return false;
  if (v > UINT64_MAX / mult) return false;
  *out = v * mult;
  return true;
}

bool apply(const Entry& e, const char* value) {
  switch (e.kind) {
    case Kind::kString:
      return text::copy(static_cast<char*>(e.field), e.size, value);
    case Kind::kBool:
      return parse_bool(value, static_cast<bool*>(e.field));
    case Kind::kSize:
      return parse_size(value, static_cast<uint64_t*>(e.field), true);
    case Kind::kCount:
      return parse_size(value, static_cast<uint64_t*>(e.field), false);
  }
  return false;
}

}  // namespace

void load_options() {
  for (const Entry& e : table) apply(e, e.fallback);
  for (const Entry& e : table) {
    const char* value = getenv(e.name);
    if (!value) continue;
    if (!apply(e, value)) {
      apply(e, e.fallback);
      text::Line line;
      line.add("memprof: warning: ").add(e.name).add("='").add(value).add("' is not valid (")
          .add(e.help).add("); using the default '").add(e.fallback).add("'\n");
      line.write_to(2);
    }
  }
  if (options.series_time_ms == 0) options.series_time_ms = 1;
  if (!options.track_heap) options.track_usable = false;  // usable bytes need the block sizes too
  if (options.series_max_points < 16) options.series_max_points = 16;
}

void print_options() {
  for (const Entry& e : table) {
    text::Line line;
    line.add("memprof: ").add(e.name).add("=");
    switch (e.kind) {
      case Kind::kString: line.add(static_cast<const char*>(e.field)); break;
      case Kind::kBool: line.add(*static_cast<bool*>(e.field) ? "1" : "0"); break;
      case Kind::kSize:
      case Kind::kCount: line.num(*static_cast<uint64_t*>(e.field)); break;
    }
    line.add("  # ").add(e.help).add("\n");
    line.write_to(2);
  }
}

}  // namespace memprof
