// callgrind_output.cpp — callgrind's totals read back into sim_* keys
// (callgrind_output.h).
#include "run/callgrind_output.h"

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "key_names.h"

namespace allocstamp {

KeyValues read_simulation(const std::string& out_file, std::string& problem) {
  std::ifstream in(out_file);
  if (!in) {
    problem = "valgrind wrote no callgrind output (" + out_file + "): see the log";
    return {};
  }
  std::vector<std::string> events;
  std::vector<unsigned long long> totals;
  std::string line;
  while (std::getline(in, line)) {
    // "totals:" sums the counted cost; with instrumentation switched on and
    // off by the phase marks, callgrind 3.19's "summary:" says 0.
    const bool is_events = line.rfind("events:", 0) == 0;
    const bool is_totals = line.rfind("totals:", 0) == 0 || (totals.empty() && line.rfind("summary:", 0) == 0);
    if (!is_events && !is_totals) continue;
    std::stringstream words(line.substr(line.find(':') + 1));
    if (is_events) {
      events.clear();
      for (std::string w; words >> w;) events.push_back(w);
    } else {
      totals.clear();
      for (unsigned long long v; words >> v;) totals.push_back(v);
    }
  }
  std::map<std::string, unsigned long long> e;
  for (std::size_t i = 0; i < events.size(); ++i) e[events[i]] = i < totals.size() ? totals[i] : 0;
  for (const char* needed : {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"})
    if (!e.count(needed)) {
      problem = "callgrind's output " + out_file + " lacks the event " + needed + " (not run with --cache-sim=yes?)";
      return {};
    }
  if (e["Ir"] == 0) {
    problem = "the simulated run counted no instruction: the program marked no measured phase, or was built "
              "without valgrind's headers (apt-get install valgrind, then make build)";
    return {};
  }
  const unsigned long long l1 = e["I1mr"] + e["D1mr"] + e["D1mw"], ll = e["ILmr"] + e["DLmr"] + e["DLmw"];
  KeyValues out;
  out[keys::sim_instructions_count] = std::to_string(e["Ir"]);
  out[keys::sim_data_reads_count] = std::to_string(e["Dr"]);
  out[keys::sim_data_writes_count] = std::to_string(e["Dw"]);
  out[keys::sim_i1_misses_count] = std::to_string(e["I1mr"]);
  out[keys::sim_d1_misses_count] = std::to_string(e["D1mr"] + e["D1mw"]);
  out[keys::sim_ll_misses_count] = std::to_string(ll);
  out[keys::sim_cycles_count] = std::to_string(e["Ir"] + 10 * l1 + 100 * ll);
  return out;
}

}  // namespace allocstamp
