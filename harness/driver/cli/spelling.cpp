// spelling.cpp — the edit distance of spelling.h (one row of the usual table).
#include "cli/spelling.h"

#include <algorithm>
#include <string>
#include <vector>

namespace allocstamp {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(name, c);
    if (c.find(name) != std::string::npos && name.size() >= 3) d = std::min<std::size_t>(d, 1);  // a part: "btree"
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  const std::string best = nearest_name(name, candidates);
  return best.empty() ? "" : "did you mean '" + best + "'? ";
}

CLI::Validator one_of(std::vector<std::string> names) {
  std::string listed;
  for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, listed](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return "";
        const std::string best = nearest_name(value, names);
        return "'" + value + "' is not one of " + listed + (best.empty() ? "" : "; did you mean '" + best + "'?");
      },
      "{" + listed + "}");
}

}  // namespace allocstamp
