// shards.cpp — cutting a plan into parts (shards.h).
#include "plan/shards.h"

#include <algorithm>
#include <map>

#include "model/errors.h"

namespace allocstamp {
namespace {

std::string group_of(const Run& run) {
  return run.workload.name + "|" + run.size + "|" + run.tm + "|" + std::to_string(run.threads);
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::string fix = "give --shard K/N with 1 <= K <= N, e.g. --shard 2/8";
  auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size())
    throw UsageError("--shard '" + text + "' is not K/N", fix);
  Shard s;
  try {
    std::size_t a = 0, b = 0;
    s.index = std::stoi(text.substr(0, slash), &a);
    s.count = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw UsageError("--shard '" + text + "' is not K/N", fix);
  }
  if (s.count < 1 || s.index < 1 || s.index > s.count) throw UsageError("--shard " + text + " is out of range", fix);
  return s;
}

std::vector<Run> shard_of(const std::vector<Run>& plan, const Shard& shard) {
  if (shard.whole()) return plan;
  // Groups in plan order with their run counts; each goes whole to the lightest part.
  std::vector<std::string> order;
  std::map<std::string, std::size_t> runs;
  for (const Run& r : plan)
    if (runs[group_of(r)]++ == 0) order.push_back(group_of(r));
  // A part with no group would be an empty sweep that merge cannot take.
  if (std::size_t(shard.count) > order.size())
    throw UsageError("--shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) + ": the sweep has " +
                         std::to_string(order.size()) + " cell group(s) (workload, size, TM method, threads), fewer "
                         "than its " + std::to_string(shard.count) + " parts",
                     "cut it into " + std::to_string(order.size()) + " part(s) or fewer (a group is never split)");
  std::vector<std::string> by_size = order;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](const std::string& a, const std::string& b) { return runs[a] > runs[b]; });
  std::vector<std::size_t> load(std::size_t(shard.count), 0);
  std::map<std::string, int> part;
  for (const std::string& g : by_size) {
    std::size_t lightest = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    part[g] = int(lightest) + 1;
    load[lightest] += runs[g];
  }
  std::vector<Run> mine;
  for (const Run& r : plan)
    if (part[group_of(r)] == shard.index) mine.push_back(r);
  return mine;
}

}  // namespace allocstamp
