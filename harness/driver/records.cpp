// records.cpp — line-by-line parsing of `@kind key=value ...`; unknown kinds
// are ignored, as Contract 1 says readers do.
#include "records.h"

#include <sstream>

namespace allocstamp {

Records parse_records(const std::string& text) {
  Records out;
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
      for (auto& [k, v] : kv) out.memprof[k] = v;
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
  return out;
}

}  // namespace allocstamp
