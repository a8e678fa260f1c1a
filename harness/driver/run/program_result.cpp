// program_result.cpp — a program's output digested and compared across allocators (program_result.h).
#include "run/program_result.h"

#include <regex>
#include <sstream>

#include "model/digest.h"
#include "model/errors.h"
#include "model/input_file.h"

namespace allocstamp {

std::string output_digest(const std::string& file, const Workload& workload, std::string& problem) {
  std::string text;
  try {
    text = read_input_file(file, std::size_t(256) << 20);
  } catch (const UsageError& e) {
    problem = std::string("its output could not be read: ") + e.what();
    return "";
  }
  std::vector<std::regex> patterns;
  for (const std::string& p : workload.output_ignore) patterns.emplace_back(p);
  const std::regex keep(workload.output_keep.empty() ? std::string("^.*$") : workload.output_keep);
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // gs's txtwrite ends its lines in \r\n: "$" would match none
    bool varies = false;
    for (const std::regex& p : patterns) varies = varies || std::regex_search(line, p);
    if (varies) continue;
    for (auto match = std::sregex_iterator(line.begin(), line.end(), keep); match != std::sregex_iterator(); ++match)
      kept += match->str() + '\n';
  }
  // An output with text of which nothing is kept compares nothing: every
  // allocator's would agree whatever it printed.
  if (kept.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos)
    problem = "nothing of its output is kept to compare (every line ignored, or none matched output_keep)";
  return digest_of(kept);
}

namespace {

std::string cell_of(const std::string& workload, const std::string& size, const std::string& args, int threads) {
  return workload + '\0' + size + '\0' + args + '\0' + std::to_string(threads);
}

}  // namespace

void ProgramResults::remember(const std::string& workload, const std::string& size, const std::string& args,
                              int threads, const std::string& allocator, int run_id, const std::string& digest) {
  first_.try_emplace(cell_of(workload, size, args, threads), First{digest, allocator, run_id});
}

std::string ProgramResults::judge(const Run& run, const std::string& args, const std::string& digest) {
  const std::string cell = cell_of(run.workload.name, run.size, args, run.threads);
  auto [it, first] = first_.try_emplace(cell, First{digest, run.allocator.name, run.id});
  if (first || it->second.digest == digest) return "";
  return "its output differs from run " + std::to_string(it->second.run_id) + "'s under " + it->second.allocator +
         " (digest " + digest + " against " + it->second.digest + "): the allocator changed the program's result "
         "(compare the two runs' .out files in logs/)";
}

}  // namespace allocstamp
