// exec_children_test — programs a profiled program execs record to the same
// place as it (MEMPROF_OUT is inherited, the descriptor too), never to their
// own stdout or stderr: `g++ -O2` leaves records for g++, cc1plus, as, collect2
// and ld; `git fsck` prints under memprof exactly what it prints without; and
// each record names its parent, so a reader keeps the root's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

std::set<std::string> programs_in(const fs::path& records) {
  std::set<std::string> names;
  std::string text = testing::slurp(records);
  std::regex program(R"(program=([A-Za-z0-9+._-]+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), program); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

TEST(ExecChildren, ACompilersChildrenRecordToTheSameFile) {
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/g++"), "/usr/bin/g++");
  testing::ScratchDir dir("exec-children");
  std::ofstream(dir / "t.cpp") << "int main() { return 0; }\n";
  testing::CommandOptions options;
  options.env = {"LD_PRELOAD=" + std::string(MEMPROF_LIBRARY), "MEMPROF_OUT=" + (dir / "g.rec").string()};
  testing::CommandResult r = testing::run_command(
      {"/usr/bin/g++", "-O2", (dir / "t.cpp").string(), "-o", (dir / "t").string()}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "") << "no child printed a summary on the compiler's stderr";
  std::set<std::string> names = programs_in(dir / "g.rec");
  for (const char* program : {"g++", "cc1plus", "as", "collect2", "ld"})
    EXPECT_TRUE(names.count(program)) << program << " left no record";
  EXPECT_NE(testing::slurp(dir / "g.rec").find(" ppid="), std::string::npos);
}

TEST(ExecChildren, GitPrintsWhatItPrintsWithoutMemprof) {
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/git"), "git");
  testing::ScratchDir dir("exec-git");
  const std::string repo = (dir / "repo").string();
  testing::CommandOptions quiet;
  quiet.env = {"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"};
  ASSERT_EQ(testing::run_command({"/usr/bin/git", "init", "-q", repo}, quiet).exit_code, 0);
  std::ofstream(dir / "repo" / "f") << "x\n";
  ASSERT_EQ(testing::run_command({"/usr/bin/git", "-C", repo, "add", "f"}, quiet).exit_code, 0);
  ASSERT_EQ(testing::run_command({"/usr/bin/git", "-C", repo, "commit", "-q", "-m", "m"}, quiet).exit_code, 0);
  testing::CommandResult plain = testing::run_command({"/usr/bin/git", "-C", repo, "fsck", "--full"}, quiet);
  testing::CommandOptions profiled = quiet;
  profiled.env.push_back("LD_PRELOAD=" + std::string(MEMPROF_LIBRARY));
  profiled.env.push_back("MEMPROF_OUT=" + (dir / "git.rec").string());
  testing::CommandResult under = testing::run_command({"/usr/bin/git", "-C", repo, "fsck", "--full"}, profiled);
  EXPECT_EQ(under.exit_code, plain.exit_code);
  EXPECT_EQ(under.out, plain.out);
  EXPECT_EQ(under.err, plain.err);
  EXPECT_TRUE(programs_in(dir / "git.rec").count("git"));
}

}  // namespace
}  // namespace allocstamp
