// sim_figures_e2e_test — simulated figures that cannot be a real run's are
// refused end to end. An edited copy of the CI baseline (a blank or padded
// simulator identity, cycles below the instructions, misses above their
// accesses, an absent or negative figure, a damaged identity in meta.json):
// `bench check` exits 2 naming the row and the column (or meta.json's field),
// never compares it. A `valgrind` first in PATH that writes bad totals
// (negative, an event missing, past 2^64, cycles that would overflow): the run
// fails naming the event, no figure is written.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "key_names.h"
#include "results/csv.h"
#include "results/runs.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

const fs::path kBaseline = fs::path(SOURCE_DIR) / "results" / "baselines" / "ci";

class SimFigures : public ::testing::Test {
 protected:
  Result bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_THREADS=1", "ALLOCSTAMP_NO_PLOT=1"};
    options.env.insert(options.env.end(), env.begin(), env.end());
    options.drop_prefixes = {"VALGRIND_"};
    options.timeout_seconds = 120;
    return testing::run_command(args, options);
  }

  // A copy of the CI baseline whose first ok simulated row is edited by
  // `edit` (header, row); its data row number in `row_number`.
  fs::path edited(const std::string& name, const std::function<void(const CsvRow&, CsvRow&)>& edit,
                  std::size_t& row_number) {
    const fs::path folder = dir_ / name;
    fs::create_directories(folder);
    fs::copy_file(kBaseline / "meta.json", folder / "meta.json");
    CsvRow header;
    std::vector<CsvRow> rows = read_csv(kBaseline / "runs.csv", &header);
    auto at = [&](const char* column) {
      return std::size_t(std::find(header.begin(), header.end(), column) - header.begin());
    };
    row_number = 0;
    for (std::size_t r = 0; r < rows.size() && row_number == 0; ++r)
      if (rows[r][at(keys::kind)] == "simulated" && rows[r][at(keys::status)] == "ok") {
        edit(header, rows[r]);
        row_number = r + 1;
      }
    std::ofstream out(folder / "runs.csv");
    std::string schema;  // the baseline's own schema line
    std::getline(std::ifstream(kBaseline / "runs.csv") >> std::ws, schema);
    out << schema << "\n";
    write_row(out, header);
    for (const CsvRow& row : rows) write_row(out, row);
    return folder;
  }

  Result check(const fs::path& baseline) {
    return bench({"check", "--baseline=" + baseline.string(), "--current=" + kBaseline.string(), "--deterministic-only",
                  "--csv=" + (dir_ / "check.csv").string()});
  }

  testing::ScratchDir scratch_{"sim-figures-e2e"};
  const fs::path& dir_ = scratch_.path();
};

// The column's value in a row, as a whole number.
std::uint64_t figure(const CsvRow& header, const CsvRow& row, const char* column) {
  return std::stoull(row[std::size_t(std::find(header.begin(), header.end(), column) - header.begin())]);
}
void set(const CsvRow& header, CsvRow& row, const char* column, const std::string& value) {
  row[std::size_t(std::find(header.begin(), header.end(), column) - header.begin())] = value;
}

TEST_F(SimFigures, TheBaselineItselfPasses) {
  const Result same = check(kBaseline);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
}

TEST_F(SimFigures, EachEditOfASimulatedRowIsRefusedNamingRowAndColumn) {
  struct Case {
    std::string name;
    const char* column;
    std::function<std::string(const CsvRow&, const CsvRow&)> value;
    std::string says;
  };
  using H = const CsvRow&;
  const std::vector<Case> cases = {
      {"blank-setup", keys::sim_setup, [](H, H) { return " "; }, "the simulator's identity is blank"},
      {"empty-setup", keys::sim_setup, [](H, H) { return ""; }, "the simulator's identity is blank"},
      {"padded-setup", keys::sim_setup,
       [](H h, H r) { return r[std::size_t(std::find(h.begin(), h.end(), keys::sim_setup) - h.begin())] + " "; },
       "begins or ends with a space"},
      {"cycles-below", keys::sim_cycles_count,
       [](H h, H r) { return std::to_string(figure(h, r, keys::sim_instructions_count) - 1); },
       "(below the instructions)"},
      {"i1-above", keys::sim_i1_misses_count,
       [](H h, H r) { return std::to_string(figure(h, r, keys::sim_instructions_count) + 1); },
       "first-level instruction misses, more than the"},
      {"d1-above", keys::sim_d1_misses_count,
       [](H h, H r) {
         return std::to_string(figure(h, r, keys::sim_data_reads_count) + figure(h, r, keys::sim_data_writes_count) + 1);
       },
       "data reads and writes"},
      {"ll-above", keys::sim_ll_misses_count,
       [](H h, H r) {
         return std::to_string(figure(h, r, keys::sim_i1_misses_count) + figure(h, r, keys::sim_d1_misses_count) + 1);
       },
       "last-level misses, more than the"},
      {"absent", keys::sim_instructions_count, [](H, H) { return ""; }, "absent"},
      {"negative", keys::sim_data_reads_count, [](H, H) { return "-5"; }, "is not a whole number from 0 to 2^64-1"},
  };
  for (const Case& c : cases) {
    std::size_t row = 0;
    const fs::path folder =
        edited(c.name, [&](const CsvRow& h, CsvRow& r) { set(h, r, c.column, c.value(h, r)); }, row);
    ASSERT_GT(row, 0u) << "the baseline holds an ok simulated run";
    const Result r = check(folder);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("data row " + std::to_string(row) + ", column " + c.column + ": "), std::string::npos)
        << c.name << ": " << r.err;
    EXPECT_NE(testing::flat(r.err).find(c.says), std::string::npos) << c.name << ": " << r.err;
  }
}

TEST_F(SimFigures, ADamagedIdentityInMetaJsonIsRefused) {
  std::size_t row = 0;
  const fs::path folder = edited("meta", [](const CsvRow&, CsvRow&) {}, row);
  const std::string meta = testing::slurp(kBaseline / "meta.json");
  const std::string key = "\"identity\": \"";
  const std::size_t at = meta.find(key);
  ASSERT_NE(at, std::string::npos) << meta;
  const std::size_t end = meta.find('"', at + key.size());
  for (const std::string& identity : {meta.substr(at + key.size(), end - at - key.size()) + " ", std::string(""),
                                      std::string("valgrind\\t3.19")}) {
    std::ofstream(folder / "meta.json", std::ios::trunc)
        << meta.substr(0, at + key.size()) + identity + meta.substr(end);
    const Result r = check(folder);
    EXPECT_EQ(r.exit_code, 2) << identity << ": " << r.out << r.err;
    EXPECT_NE(testing::flat(r.err).find("meta.json: its simulator's identity is "), std::string::npos) << r.err;
  }
}

// A fake valgrind first in PATH: it answers the probe as valgrind 3.19 does,
// writes `totals` as callgrind's output and runs the program.
class FakeValgrind : public SimFigures {
 protected:
  fs::path fake(const std::string& name, const std::string& events_and_totals) {
    const fs::path bin = dir_ / name;
    fs::create_directories(bin);
    std::ofstream(bin / "valgrind") << "#!/bin/sh\nout=\n"
                                       "while [ $# -gt 0 ]; do\n"
                                       "  case \"$1\" in\n"
                                       "    --version) echo valgrind-3.19.0; exit 0 ;;\n"
                                       "    --tool=none) echo '==1== Arch and hwcaps: AMD64, LittleEndian, amd64-fake' >&2 ;;\n"
                                       "    --callgrind-out-file=*) out=\"${1#--callgrind-out-file=}\" ;;\n"
                                       "    -*) ;;\n"
                                       "    *) break ;;\n"
                                       "  esac\n"
                                       "  shift\n"
                                       "done\n"
                                       "if [ -n \"$out\" ]; then cat > \"$out\" <<'EOF'\n"
                                       "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
                                    << events_and_totals << "\nEOF\nfi\nexec \"$@\"\n";
    fs::permissions(bin / "valgrind", fs::perms::owner_all);
    return bin;
  }
  // One simulated run of test-alloc under the fake; its runs.csv row.
  std::pair<RunsTable, Result> sweep(const std::string& name, const std::string& events_and_totals) {
    const fs::path bin = fake(name, events_and_totals), out = dir_ / (name + "-out");
    const char* path = std::getenv("PATH");
    const Result r = bench({"--alloc=glibc", "--workload=test-alloc", "--size=tiny", "--reps=0", "--profile-reps=0",
                            "--simulate", "--out=" + out.string()},
                           {"PATH=" + bin.string() + ":" + (path ? path : "/usr/bin:/bin")});
    return {load_runs(out, "fake"), r};
  }
};

TEST_F(FakeValgrind, BadTotalsFailTheRunNamingTheEvent) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  const std::string events = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n";
  const std::string max = "18446744073709551615";
  struct Case {
    std::string name, file, says;
  };
  const std::vector<Case> cases = {
      {"good", events + "totals: 6010 1003 1003 2 0 1 2 0 1", ""},
      {"negative", events + "totals: 6010 1003 -5 2 0 1 2 0 1", "the total of Dw is '-5'"},
      {"missing", "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr\ntotals: 6010 1003 1003 2 0 1 2 0", "lacks the event DLmw"},
      {"huge", events + "totals: 6010 1003 1003 2 0 1 2 0 18446744073709551617", "the total of DLmw is"},
      {"overflow", events + "totals: " + max + " " + max + " " + max + " " + max + " 0 0 1", "overflow 64 bits"},
  };
  for (const Case& c : cases) {
    const auto [runs, result] = sweep(c.name, c.file);
    ASSERT_EQ(runs.rows.size(), 1u) << c.name << ": " << result.err;
    const CsvRow& row = runs.rows[0];
    if (c.says.empty()) {
      EXPECT_EQ(runs.text(row, keys::status), "ok") << runs.extra_text(row, "failure") << result.err;
      EXPECT_NE(runs.text(row, keys::sim_setup).find("amd64-fake"), std::string::npos)
          << "the fake valgrind ran: " << runs.text(row, keys::sim_setup);
      EXPECT_EQ(runs.text(row, keys::sim_cycles_count), std::to_string(6010 + 10 * 3 + 100 * 3));
      continue;
    }
    EXPECT_EQ(runs.text(row, keys::status), "failed") << c.name;
    EXPECT_NE(runs.extra_text(row, "failure").find(c.says), std::string::npos)
        << c.name << ": " << runs.extra_text(row, "failure");
    EXPECT_EQ(runs.text(row, keys::sim_instructions_count), "") << c.name << ": no figure of a failed read";
  }
}

}  // namespace
}  // namespace allocstamp
