// records.h — the record lines a run wrote to its pipe (Contract 1), parsed:
// the merged @memprof summary, @metric values, @sample points, @error lines.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace allocstamp {

using KeyValues = std::map<std::string, std::string>;

struct Records {
  KeyValues memprof;              // all @memprof lines merged (continuations)
  KeyValues metrics;              // @metric name=value
  std::vector<KeyValues> samples; // @sample lines in order
  std::vector<KeyValues> scopes;  // @scope lines
  std::vector<KeyValues> micro;   // @micro lines: one repetition of a micro-benchmark each
  std::vector<std::string> errors;
  bool has_memprof = false;
};

Records parse_records(const std::string& text);

}  // namespace allocstamp
