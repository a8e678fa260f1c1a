// process_tree.cpp — bench's children as /proc lists them, and the orphans of
// a program bench ran, killed (process_tree.h).
#include "run/process_tree.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace allocstamp {

// bench's children, read from /proc (field 4 of each process's stat: its parent).
std::set<pid_t> children_of_bench() {
  std::set<pid_t> children;
  const pid_t self = getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close_paren = stat.rfind(')');  // the command's name may hold spaces and parentheses
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(close_paren + 1));
    std::string state;
    long parent = 0;
    if (rest >> state >> parent && parent == self) children.insert(pid_t(std::stol(name)));
  }
  return children;
}

void kill_orphans(const std::set<pid_t>& before) {
  for (int round = 0; round < 1000; ++round) {
    std::vector<pid_t> orphans;
    for (pid_t child : children_of_bench())
      if (!before.count(child)) orphans.push_back(child);
    if (orphans.empty()) return;
    for (pid_t orphan : orphans) kill(orphan, SIGKILL);
    for (pid_t orphan : orphans)  // their own children come to bench in turn: the next round
      while (waitpid(orphan, nullptr, 0) < 0 && errno == EINTR) {
      }
  }
}

}  // namespace allocstamp
