// callgrind_output_test — the reader of callgrind's output (run/callgrind_output.h)
// on hand-written files: a real file's totals, callgrind's trailing zeros; and
// every bad total a fake valgrind could write failing the run, naming the event
// (negative, missing, past 2^64, overflowing the cycles, past keys.def's bound,
// breaking what callgrind's cache simulation guarantees), never read as a
// wrapped, defaulted or saturated figure; a FIFO or a folder at the path fails
// at once. And simulated_figures_problem, the rule runs.csv's reader applies.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "key_names.h"
#include "run/callgrind_output.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

const char* const kEvents = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n";

class CallgrindOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("callgrind-output-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The sim_* keys of a file holding `text`; `problem` what read_simulation said.
  KeyValues read(const std::string& text) {
    const fs::path file = dir_ / "out.callgrind";
    std::ofstream(file, std::ios::trunc) << text;
    problem.clear();
    return read_simulation(file.string(), problem);
  }
  // A file of callgrind's shape with this totals line.
  KeyValues totals(const std::string& line) {
    return read(std::string("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\ncmd: ./p\n") + kEvents +
                "summary: 0\n\nfl=(1) p.c\nfn=(1) work\n16 5 1 1\n\n" + line + "\n");
  }
  fs::path dir_;
  std::string problem;
};

// A real file's figures (callgrind 3.19 on a 1,000-step loop between the phase
// marks): D1 = D1mr + D1mw, LL = ILmr + DLmr + DLmw, cycles by keys.def's model.
TEST_F(CallgrindOutput, TheTotalsBecomeTheSimKeys) {
  const KeyValues v = totals("totals: 6010 1003 1003 2 0 1 2 0 1");
  ASSERT_EQ(problem, "");
  EXPECT_EQ(v.at(keys::sim_instructions_count), "6010");
  EXPECT_EQ(v.at(keys::sim_data_reads_count), "1003");
  EXPECT_EQ(v.at(keys::sim_data_writes_count), "1003");
  EXPECT_EQ(v.at(keys::sim_i1_misses_count), "2");
  EXPECT_EQ(v.at(keys::sim_d1_misses_count), "1");
  EXPECT_EQ(v.at(keys::sim_ll_misses_count), "3");
  EXPECT_EQ(v.at(keys::sim_cycles_count), std::to_string(6010 + 10 * 3 + 100 * 3));
}

// Callgrind leaves a cost line's trailing zeros out ("totals: 0" for a phase
// of no cost): the values left out are 0, not missing.
TEST_F(CallgrindOutput, TrailingZerosLeftOutAreZeros) {
  const KeyValues v = totals("totals: 6010 1003 1003 2 0 1 2");
  ASSERT_EQ(problem, "");
  EXPECT_EQ(v.at(keys::sim_ll_misses_count), "2");
  EXPECT_EQ(v.at(keys::sim_d1_misses_count), "1");
}

TEST_F(CallgrindOutput, ANegativeTotalFailsNamingItsEvent) {
  EXPECT_TRUE(totals("totals: 6010 1003 -5 2 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("the total of Dw is '-5', not a whole number from 0 to 2^64-1"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: -6010 1003 1003 2 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("the total of Ir is '-6010'"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: +6010 1003 1003 2 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("the total of Ir"), std::string::npos) << problem;
}

TEST_F(CallgrindOutput, ATotalPast64BitsFailsRatherThanWraps) {
  EXPECT_TRUE(totals("totals: 18446744073709551616 1003 1003 2 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("the total of Ir is '18446744073709551616'"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: 6010 1e9 1003 2 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("the total of Dr is '1e9'"), std::string::npos) << problem;
}

TEST_F(CallgrindOutput, AMissingEventOrTotalsLineFailsNamingIt) {
  read(std::string("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr\ntotals: 6010 1003 1003 2 0 1 2 0\n"));
  EXPECT_NE(problem.find("lacks the event DLmw"), std::string::npos) << problem;
  EXPECT_TRUE(read(std::string(kEvents) + "fn=(1) work\n16 5 1 1\n").empty());
  EXPECT_NE(problem.find("has no totals line"), std::string::npos) << problem;
  EXPECT_TRUE(read("totals: 6010 1003 1003 2 0 1 2 0 1\n").empty());
  EXPECT_NE(problem.find("has no events line"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: 6010 1003 1003 2 0 1 2 0 1 7").empty());
  EXPECT_NE(problem.find("holds 10 totals for 9 events"), std::string::npos) << problem;
  EXPECT_TRUE(read("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Ir\ntotals: 6010 1003 1003 2 0 1 2 0 1\n").empty());
  EXPECT_NE(problem.find("names the event Ir twice"), std::string::npos) << problem;
  // A totals line of instructions alone: every miss 0, which callgrind's
  // caches (empty when counting starts) never give.
  EXPECT_TRUE(totals("totals: 6010").empty());
  EXPECT_NE(problem.find("I1mr is 0 for 6010 instructions"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: 0").empty());
  EXPECT_NE(problem.find("counted no instruction"), std::string::npos) << problem;
}

// Callgrind's levels: a level's misses are at most its accesses.
TEST_F(CallgrindOutput, MissesAboveTheirAccessesFailNamingTheEvent) {
  EXPECT_TRUE(totals("totals: 6010 1003 1003 7000 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("I1mr 7000 is more than Ir 6010"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: 6010 1003 1003 2 1004 1 2 0 1").empty());
  EXPECT_NE(problem.find("D1mr 1004 is more than Dr 1003"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: 6010 1003 1003 2 0 1 3 0 1").empty());
  EXPECT_NE(problem.find("ILmr 3 is more than I1mr 2"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: 6010 1003 1003 2 0 1 2 0 2").empty());
  EXPECT_NE(problem.find("DLmw 2 is more than D1mw 1"), std::string::npos) << problem;
}

// Totals within 64 bits whose cycles (Ir + 10 x L1 + 100 x LL) would wrap:
// the run fails, the cycles are never saturated.
TEST_F(CallgrindOutput, CyclesThatWouldOverflowFail) {
  const std::string max = "18446744073709551615";
  EXPECT_TRUE(totals("totals: " + max + " " + max + " " + max + " " + max + " 0 0 1").empty());
  EXPECT_NE(problem.find("the estimated cycles"), std::string::npos) << problem;
  EXPECT_NE(problem.find("overflow 64 bits"), std::string::npos) << problem;
  EXPECT_TRUE(totals("totals: " + max + " " + max + " " + max + " 1 " + max + " " + max + " 1").empty());
  EXPECT_NE(problem.find("overflow 64 bits"), std::string::npos) << problem;
}

// Figures past keys.def's bound (8.64e13 instructions: 24 h under valgrind)
// are no run's: the run fails naming the key.
TEST_F(CallgrindOutput, AFigurePastItsKeysBoundFails) {
  EXPECT_TRUE(totals("totals: 100000000000000 1003 1003 2 0 1 2 0 1").empty());
  EXPECT_NE(problem.find("sim_instructions_count 100000000000000, above keys.def's bound for it (8.64e13)"),
            std::string::npos)
      << problem;
}

// A FIFO (which open() would wait on for ever) or a folder at the path: the
// run fails at once.
TEST_F(CallgrindOutput, AFifoOrAFolderAtThePathFailsAtOnce) {
  const fs::path fifo = dir_ / "fifo.callgrind";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(read_simulation(fifo.string(), problem).empty());
  EXPECT_NE(problem.find("is a FIFO, not a regular file"), std::string::npos) << problem;
  problem.clear();
  EXPECT_TRUE(read_simulation(dir_.string(), problem).empty());
  EXPECT_NE(problem.find("a folder"), std::string::npos) << problem;
  problem.clear();
  EXPECT_TRUE(read_simulation((dir_ / "none").string(), problem).empty());
  EXPECT_NE(problem.find("valgrind left no readable callgrind output"), std::string::npos) << problem;
}

KeyValues good_figures() {
  return {{keys::sim_instructions_count, "6010"}, {keys::sim_data_reads_count, "1003"},
          {keys::sim_data_writes_count, "1003"},  {keys::sim_i1_misses_count, "2"},
          {keys::sim_d1_misses_count, "1"},       {keys::sim_ll_misses_count, "3"},
          {keys::sim_cycles_count, "6340"}};
}

// The rule runs.csv's reader applies to an ok simulated row: each edit of a
// consistent row is named by its column.
TEST(SimulatedFigures, EachInconsistencyIsNamedByItsColumn) {
  EXPECT_EQ(simulated_figures_problem(good_figures()).key, "");
  struct Case {
    const char* key;
    std::string value, expected;
  };
  const std::vector<Case> cases = {
      {keys::sim_cycles_count, "6000", "6000, not instructions + 10 x first-level misses + 100 x last-level misses = "
                                       "6340 (below the instructions)"},
      {keys::sim_cycles_count, "6341", "6341, not instructions"},
      {keys::sim_i1_misses_count, "7000", "more than the 6010 instructions"},
      {keys::sim_d1_misses_count, "2007", "2007 first-level data misses, more than the 2006 data reads and writes"},
      {keys::sim_ll_misses_count, "4", "4 last-level misses, more than the 3 first-level misses"},
      {keys::sim_instructions_count, "0", "0: an ok simulated run executed instructions"},
      {keys::sim_data_reads_count, "", "absent"},
      {keys::sim_data_writes_count, "-1", "'-1' is not a whole number from 0 to 2^64-1"},
  };
  for (const Case& c : cases) {
    KeyValues v = good_figures();
    v[c.key] = c.value;
    const FiguresProblem p = simulated_figures_problem(v);
    EXPECT_EQ(p.key, c.key) << c.value;
    EXPECT_NE(p.what.find(c.expected), std::string::npos) << p.what;
  }
  KeyValues absent = good_figures();
  absent.erase(keys::sim_ll_misses_count);
  EXPECT_EQ(simulated_figures_problem(absent).key, keys::sim_ll_misses_count);
  // Consistent, and past the cycles' bound (9.6e15).
  KeyValues huge = {{keys::sim_instructions_count, "10000000000000"}, {keys::sim_data_reads_count, "1"},
                    {keys::sim_data_writes_count, "1"},                {keys::sim_i1_misses_count, "10000000000000"},
                    {keys::sim_d1_misses_count, "0"},                  {keys::sim_ll_misses_count, "10000000000000"},
                    {keys::sim_cycles_count, "1110000000000000"}};
  EXPECT_EQ(simulated_figures_problem(huge).key, "");
  huge[keys::sim_instructions_count] = huge[keys::sim_i1_misses_count] = huge[keys::sim_ll_misses_count] =
      "90000000000000";
  huge[keys::sim_cycles_count] = "9990000000000000";
  EXPECT_EQ(simulated_figures_problem(huge).key, keys::sim_instructions_count);
  EXPECT_NE(simulated_figures_problem(huge).what.find("above keys.def's bound for it (8.64e13)"), std::string::npos);
}

TEST(SimulatedFigures, TheCostModelChecksOverflow) {
  std::uint64_t cycles = 0;
  ASSERT_TRUE(estimated_cycles(6010, 3, 3, cycles));
  EXPECT_EQ(cycles, 6340u);
  EXPECT_FALSE(estimated_cycles(1, 0, 184467440737095517u, cycles));  // 100 x that wraps
  EXPECT_FALSE(estimated_cycles(18446744073709551615u, 1, 0, cycles));
}

}  // namespace
}  // namespace allocstamp
