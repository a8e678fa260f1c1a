// records.cpp — line-by-line parsing of `@kind key=value ...`; unknown kinds
// are ignored, as Contract 1 says readers do.
#include "run/records.h"
#include "key_names.h"

#include <unistd.h>

#include <map>
#include <sstream>

namespace allocstamp {

Records parse_records(const std::string& text, long root_parent) {
  Records out;
  if (root_parent < 0) root_parent = long(getpid());
  std::map<std::string, KeyValues> by_pid;  // each process's @memprof lines merged
  std::vector<std::string> order;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() < 2 || line[0] != '@') continue;
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    kind.erase(0, 1);
    KeyValues kv;
    while (words >> word) {
      auto eq = word.find('=');
      if (eq != std::string::npos && eq > 0) kv[word.substr(0, eq)] = word.substr(eq + 1);
    }
    if (kind == "memprof") {
      out.has_memprof = true;
      const std::string pid = kv.count(keys::pid) ? kv[keys::pid] : "";
      if (!by_pid.count(pid)) order.push_back(pid);
      for (auto& [k, v] : kv) by_pid[pid][k] = v;
    } else if (kind == "metric") {
      for (auto& [k, v] : kv) out.metrics[k] = v;
    } else if (kind == "sample") {
      out.samples.push_back(std::move(kv));
    } else if (kind == "scope") {
      out.scopes.push_back(std::move(kv));
    } else if (kind == "micro") {
      out.micro.push_back(std::move(kv));
    } else if (kind == "error") {
      out.errors.push_back(line);
    }
  }
  out.processes = by_pid.size();
  if (!order.empty()) {
    // The root's record; without ppid (an older memprof) the first one. When
    // records carry ppid and none is the root's (the root was killed by a
    // signal, or ended with a raw exit_group), no other process's figures stand in for it.
    bool any_ppid = false;
    for (const std::string& pid : order) {
      auto it = by_pid[pid].find(keys::ppid);
      if (it == by_pid[pid].end()) continue;
      any_ppid = true;
      if (it->second == std::to_string(root_parent)) {
        out.memprof = by_pid[pid];
        return out;
      }
    }
    if (!any_ppid) out.memprof = by_pid[order.front()];
    else out.root_without_record = true;
  }
  return out;
}

}  // namespace allocstamp
