// callgrind_output.cpp — callgrind's totals read back into sim_* keys, strictly
// (callgrind_output.h): a total is a whole number or the run fails, never a
// wrapped, saturated or defaulted figure.
#include "run/callgrind_output.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

#include "key_names.h"
#include "keys.h"
#include "model/errors.h"
#include "model/fields.h"
#include "model/input_file.h"

namespace allocstamp {

namespace {

constexpr std::size_t kMaxCallgrindFile = std::size_t(256) << 20;

// The events read_simulation needs, as callgrind names them with --cache-sim=yes.
constexpr std::array<const char*, 9> kEvents = {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"};

// The sim_* counts every ok simulated run holds (sim_setup aside: its text).
constexpr std::array<const char*, 7> kFigures = {keys::sim_instructions_count, keys::sim_data_reads_count,
                                                 keys::sim_data_writes_count,  keys::sim_i1_misses_count,
                                                 keys::sim_d1_misses_count,    keys::sim_ll_misses_count,
                                                 keys::sim_cycles_count};

// A whole number from 0 to 2^64-1 written as digits only (fields.h is_count:
// no sign, no space, no exponent): strtoull alone would take "-5" as 2^64-5
// and "99999999999999999999" as 2^64-1.
bool parse_u64(const std::string& text, std::uint64_t& value) {
  if (!is_count(text)) return false;
  value = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

const char* const kNotACount = "not a whole number from 0 to 2^64-1";

// keys.def's bound of `key`, as written before its ':' ("8.64e13: ...").
std::string bound_text(const std::string& key) {
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == key) return std::string(k.bound.substr(0, k.bound.find(':')));
  std::abort();  // kFigures are keys.def's
}

// The "events:" and the last "totals:" line of callgrind's file, read in
// pieces from a regular file (input_file.h: no FIFO, no device).
struct EventLines {
  std::vector<std::string> events, totals;
  bool has_events = false, has_totals = false, totals_from_summary = false;
};

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream words(line.substr(line.find(':') + 1));
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

void take_line(const std::string& line, EventLines& lines) {
  if (line.rfind("events:", 0) == 0) {
    lines.events = words_of(line);
    lines.has_events = true;
  } else if (line.rfind("totals:", 0) == 0) {
    lines.totals = words_of(line);
    lines.has_totals = true, lines.totals_from_summary = false;
  } else if (line.rfind("summary:", 0) == 0 && (!lines.has_totals || lines.totals_from_summary)) {
    // "totals:" sums the counted cost and wins; with instrumentation switched
    // on and off by the phase marks, callgrind 3.19's "summary:" says 0.
    lines.totals = words_of(line);
    lines.has_totals = lines.totals_from_summary = true;
  }
}

}  // namespace

bool estimated_cycles(std::uint64_t instructions, std::uint64_t first_level_misses, std::uint64_t last_level_misses,
                      std::uint64_t& cycles) {
  std::uint64_t l1 = 0, ll = 0, sum = 0;
  if (__builtin_mul_overflow(first_level_misses, 10u, &l1) || __builtin_mul_overflow(last_level_misses, 100u, &ll) ||
      __builtin_add_overflow(instructions, l1, &sum) || __builtin_add_overflow(sum, ll, &sum))
    return false;
  cycles = sum;
  return true;
}

FiguresProblem simulated_figures_problem(const KeyValues& figures) {
  std::map<std::string, std::uint64_t> v;
  for (const char* key : kFigures) {
    auto it = figures.find(key);
    if (it == figures.end() || it->second.empty()) return {key, "absent (every ok simulated run has it)"};
    if (!parse_u64(it->second, v[key])) return {key, "'" + it->second + "' is " + kNotACount};
  }
  const std::uint64_t ir = v[keys::sim_instructions_count], i1 = v[keys::sim_i1_misses_count],
                      d1 = v[keys::sim_d1_misses_count], ll = v[keys::sim_ll_misses_count];
  auto n = [](std::uint64_t x) { return std::to_string(x); };
  if (ir == 0) return {keys::sim_instructions_count, "0: an ok simulated run executed instructions"};
  if (i1 > ir)
    return {keys::sim_i1_misses_count,
            n(i1) + " first-level instruction misses, more than the " + n(ir) + " instructions fetched"};
  std::uint64_t accesses = 0;
  if (!__builtin_add_overflow(v[keys::sim_data_reads_count], v[keys::sim_data_writes_count], &accesses) &&
      d1 > accesses)
    return {keys::sim_d1_misses_count, n(d1) + " first-level data misses, more than the " + n(accesses) +
                                           " data reads and writes"};
  std::uint64_t first_level = 0;
  if (__builtin_add_overflow(i1, d1, &first_level))
    return {keys::sim_d1_misses_count, "the first-level misses (" + n(i1) + " + " + n(d1) + ") overflow 64 bits"};
  if (ll > first_level)
    return {keys::sim_ll_misses_count, n(ll) + " last-level misses, more than the " + n(first_level) +
                                           " first-level misses (the last level is reached only on one)"};
  std::uint64_t cycles = 0;
  if (!estimated_cycles(ir, first_level, ll, cycles))
    return {keys::sim_cycles_count, "instructions + 10 x first-level misses + 100 x last-level misses overflow 64 bits"};
  if (v[keys::sim_cycles_count] != cycles)
    return {keys::sim_cycles_count, n(v[keys::sim_cycles_count]) + ", not instructions + 10 x first-level misses + "
                                        "100 x last-level misses = " + n(cycles) +
                                        (v[keys::sim_cycles_count] < ir ? " (below the instructions)" : "")};
  for (const char* key : kFigures)
    if (static_cast<long double>(v[key]) > std::strtold(bound_text(key).c_str(), nullptr))
      return {key, n(v[key]) + ", above keys.def's bound for it (" + bound_text(key) + ")"};
  return {};
}

KeyValues read_simulation(const std::string& out_file, std::string& problem) {
  // A regular file only (input_file.h: no FIFO, no device), of at most
  // 256 MiB: a phase's per-function costs take a few MiB.
  std::string text;
  try {
    text = read_input_file(out_file, kMaxCallgrindFile);
  } catch (const UsageError& e) {
    const std::string what = e.what();  // "<file> is a FIFO, not a regular file — <fix>"
    problem = "valgrind left no readable callgrind output (" + what.substr(0, what.find(" — ")) + "): see the log";
    return {};
  }
  EventLines lines;
  std::size_t start = 0;
  for (std::size_t end; start < text.size(); start = end + 1) {
    end = std::min(text.find('\n', start), text.size());
    take_line(text.substr(start, end - start), lines);
  }

  const std::string file = "callgrind's output " + out_file;
  if (!lines.has_events) {
    problem = file + " has no events line (not written by callgrind?)";
    return {};
  }
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < lines.events.size(); ++i)
    if (!position.emplace(lines.events[i], i).second) {
      problem = file + " names the event " + lines.events[i] + " twice";
      return {};
    }
  for (const char* needed : kEvents)
    if (!position.count(needed)) {
      problem = file + " lacks the event " + needed + " (not run with --cache-sim=yes?)";
      return {};
    }
  if (!lines.has_totals) {
    problem = file + " has no totals line (the run did not end, or not under callgrind?)";
    return {};
  }
  if (lines.totals.size() > lines.events.size()) {
    problem = file + " holds " + std::to_string(lines.totals.size()) + " totals for " +
              std::to_string(lines.events.size()) + " events";
    return {};
  }
  std::map<std::string, std::uint64_t> e;
  for (const char* event : kEvents) {
    const std::size_t i = position[event];
    // Callgrind leaves a cost line's trailing zeros out.
    if (i >= lines.totals.size()) {
      e[event] = 0;
    } else if (!parse_u64(lines.totals[i], e[event])) {
      problem = file + ": the total of " + event + " is '" + lines.totals[i] + "', " + kNotACount;
      return {};
    }
  }
  if (e["Ir"] == 0) {
    problem = "the simulated run counted no instruction: the program marked no measured phase, or was built "
              "without valgrind's headers (apt-get install valgrind, then make build)";
    return {};
  }
  // What callgrind's cache simulation guarantees: a level is accessed only on
  // the previous level's miss, and it starts empty when counting starts.
  const std::array<std::pair<const char*, const char*>, 6> within = {
      {{"I1mr", "Ir"}, {"D1mr", "Dr"}, {"D1mw", "Dw"}, {"ILmr", "I1mr"}, {"DLmr", "D1mr"}, {"DLmw", "D1mw"}}};
  for (const auto& [misses, accesses] : within)
    if (e[misses] > e[accesses]) {
      problem = file + ": " + misses + " " + std::to_string(e[misses]) + " is more than " + accesses + " " +
                std::to_string(e[accesses]) + " (a level's misses are at most its accesses)";
      return {};
    }
  for (const char* first_miss : {"I1mr", "ILmr"})
    if (e[first_miss] == 0) {
      problem = file + ": " + first_miss + " is 0 for " + std::to_string(e["Ir"]) +
                " instructions (callgrind's caches start empty: the first instruction misses)";
      return {};
    }
  std::uint64_t d1 = 0, ll = 0;
  if (__builtin_add_overflow(e["D1mr"], e["D1mw"], &d1) || __builtin_add_overflow(e["ILmr"], e["DLmr"], &ll) ||
      __builtin_add_overflow(ll, e["DLmw"], &ll)) {
    problem = file + ": its miss totals overflow 64 bits when summed";
    return {};
  }
  std::uint64_t first_level = 0, cycles = 0;
  if (__builtin_add_overflow(e["I1mr"], d1, &first_level) || !estimated_cycles(e["Ir"], first_level, ll, cycles)) {
    problem = file + ": the estimated cycles (Ir + 10 x first-level misses + 100 x last-level misses) overflow 64 bits";
    return {};
  }
  KeyValues out;
  out[keys::sim_instructions_count] = std::to_string(e["Ir"]);
  out[keys::sim_data_reads_count] = std::to_string(e["Dr"]);
  out[keys::sim_data_writes_count] = std::to_string(e["Dw"]);
  out[keys::sim_i1_misses_count] = std::to_string(e["I1mr"]);
  out[keys::sim_d1_misses_count] = std::to_string(d1);
  out[keys::sim_ll_misses_count] = std::to_string(ll);
  out[keys::sim_cycles_count] = std::to_string(cycles);
  if (const FiguresProblem p = simulated_figures_problem(out); !p.key.empty()) {
    problem = file + ": " + p.key + " " + p.what;
    return {};
  }
  return out;
}

}  // namespace allocstamp
