// records.h — the record lines a run wrote to its pipe (Contract 1), parsed:
// the merged @memprof summary, @metric values, @sample points, @error lines.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace allocstamp {

using KeyValues = std::map<std::string, std::string>;

struct Records {
  KeyValues memprof;              // the root process's @memprof lines merged (continuations)
  std::size_t processes = 0;      // processes that wrote an @memprof record (the root and what it exec'd)
  KeyValues metrics;              // @metric name=value
  std::vector<KeyValues> samples; // @sample lines in order
  std::vector<KeyValues> scopes;  // @scope lines
  std::vector<KeyValues> micro;   // @micro lines: one repetition of a micro-benchmark each
  KeyValues simulated;             // a simulated run's sim_* keys (not a record: callgrind's file, callgrind_output.h)
  std::vector<std::string> errors;
  bool has_memprof = false;
  // Other processes wrote @memprof records, the run's root process none: its
  // figures are unknown (memprof stays empty).
  bool root_without_record = false;
};

// `root_parent`: the pid whose child is the run's root process (bench itself);
// the @memprof record of that child is kept, those of its descendants counted
// only. A stream without ppid (an older memprof) keeps the first pid's record;
// with ppid, a root that wrote none leaves memprof empty (root_without_record).
Records parse_records(const std::string& text, long root_parent = -1);

}  // namespace allocstamp
