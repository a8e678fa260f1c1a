// key_types_test — every key of harness/contract/keys.def declares a type and a
// bound its type holds, and bench's writer and its readers agree on the types:
// the largest value of every type goes through ResultsFolder::append and comes
// back from runs.csv and the side tables unchanged; a value outside its type
// fails its run, names the column, and leaves the folder readable.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

#include "key_names.h"
#include "keys.h"
#include "model/fields.h"
#include "results/results_folder.h"
#include "results/runs.h"
#include "results/side_tables.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kU64Max = "18446744073709551615";
constexpr const char* kRealMax = "1.7976931348623157e308";
constexpr const char* kSignedMax = "-1.7976931348623157e308";

// The largest value (in magnitude) a field of `type` holds, as bench writes it.
std::string largest_of(std::string_view type) {
  if (type == "u64") return kU64Max;
  if (type == "real") return kRealMax;
  if (type == "signed") return kSignedMax;
  return "text, with a comma and \"quotes\"";
}

// The number a bound starts with ("8.64e13: 24 h" -> 8.64e13), in long
// double: 2^64 - 1 is exact there.
long double bound_value(std::string_view bound, bool& ok) {
  const std::string text(bound.substr(0, bound.find(':')));
  char* end = nullptr;
  const long double v = std::strtold(text.c_str(), &end);
  ok = !text.empty() && *end == '\0' && bound.find(": ") == text.size() && bound.size() > text.size() + 2;
  return v;
}

// The bound's number written in its type's form (a u64's digits).
std::string bound_field(std::string_view type, long double v) {
  if (type == "u64") return std::to_string(static_cast<unsigned long long>(v));
  char text[64];
  std::snprintf(text, sizeof text, "%.17Lg", v);
  return text;
}

void expect_type_holds_bound(std::string_view name, std::string_view unit, std::string_view type,
                             std::string_view bound) {
  if (unit == "count" || unit == "bytes") {
    EXPECT_EQ(type, "u64") << name << ": a " << unit << " is whole";
  }
  if (unit == "byte_ns") {
    EXPECT_EQ(type, "real") << name << ": an integral passes 2^64";
  }
  EXPECT_EQ(unit == "text", type == "text") << name;
  if (type == "text") {
    EXPECT_EQ(bound, "") << name << ": text has no bound";
    return;
  }
  ASSERT_TRUE(type == "u64" || type == "real" || type == "signed") << name << ": unknown type " << type;
  bool ok = false;
  const long double v = bound_value(bound, ok);
  ASSERT_TRUE(ok) << name << ": the bound '" << bound << "' is not '<number>: why'";
  EXPECT_GT(v, 0) << name;
  if (type == "u64") {
    EXPECT_LE(v, 18446744073709551615.0L) << name << ": its bound passes 2^64 - 1";
  }
  EXPECT_TRUE(std::isfinite(double(v))) << name << ": its bound passes a double";
  EXPECT_EQ(field_problem(type, bound_field(type, v)), "") << name << ": its own bound is refused";
}

TEST(KeyTypes, EveryBoundFitsItsTypeAndRoundTrips) {
  for (const contract::KeyInfo& k : contract::kKeys) expect_type_holds_bound(k.name, k.unit, k.type, k.bound);
  for (const keys::SideColumn& c : keys::side_columns) expect_type_holds_bound(c.name, c.unit, c.type, c.bound);
  // The supported run passes 2^64 in the load: the reason its type is real.
  bool ok = false;
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.name == keys::load_total_byte_ns) {
      EXPECT_GT(bound_value(k.bound, ok), 2.2e24L);
    }

  // Two runs: every key at its type's largest value, then at its bound.
  const fs::path dir = fs::temp_directory_path() / ("allocstamp-key-types-" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::map<std::string, std::string> wrote[2];
  {
    ResultsFolder folder = ResultsFolder::create(dir, nlohmann::json{{"schema", contract::kResultsSchema}});
    for (int pass = 0; pass < 2; ++pass) {
      allocstamp::Run run;
      run.id = pass + 1;
      run.workload.name = "w";
      run.allocator.name = "a";
      run.size = "tiny";
      run.threads = 1048576;
      run.kind = RunKind::profiled;
      Records r;
      for (const contract::KeyInfo& k : contract::kKeys) {
        if (!k.is_column() || k.source == contract::KeySource::plan || k.source == contract::KeySource::driver) continue;
        bool parsed = false;
        const long double v = bound_value(k.bound, parsed);
        r.memprof[std::string(k.name)] = pass == 0 || k.type == "text" ? largest_of(k.type) : bound_field(k.type, v);
        wrote[pass][std::string(k.name)] = r.memprof[std::string(k.name)];
      }
      for (const auto& [records, table] : {std::pair{&r.samples, "series"}, {&r.scopes, "scopes"}, {&r.micro, "micro"}}) {
        KeyValues one;
        for (const keys::SideColumn& c : keys::side_columns)
          if (c.table == table && c.name != "run_id" && c.name != "kind") one[std::string(c.name)] = largest_of(c.type);
        records->push_back(one);
      }
      Finished f;
      f.exit_code = 0;
      f.wall_ns = f.user_ns = f.sys_ns = UINT64_MAX;
      f.maxrss_kb = INT64_MAX;
      f.minor_faults = f.major_faults = f.voluntary_switches = f.involuntary_switches = UINT64_MAX;
      f.load_avg_before = 1048576;
      f.others_cpu_pct = -100;
      f.steal_pct = 100;
      EXPECT_EQ(folder.append(run, RunSetting{"alloc --size tiny", "lib", "MALLOC_ARENA_MAX=1"}, Status::ok, f, r),
                Status::ok)
          << "pass " << pass << ": bench refused a value of its own types";
    }
  }
  const RunsTable t = load_runs(dir, "results");  // throws on any field its reader refuses
  ASSERT_EQ(t.rows.size(), 2u);
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(t.text(t.rows[pass], keys::status), "ok");
    for (const auto& [key, value] : wrote[pass]) EXPECT_EQ(t.text(t.rows[pass], key), value) << key << " pass " << pass;
    EXPECT_EQ(t.text(t.rows[pass], keys::wall_ns), kU64Max);
    EXPECT_EQ(t.text(t.rows[pass], keys::minor_faults_count), kU64Max);
    EXPECT_EQ(t.text(t.rows[pass], keys::maxrss_kb), std::to_string(INT64_MAX));
  }
  for (const char* table : {"series", "scopes", "micro"}) {
    std::vector<std::size_t> at;
    CsvRow header;
    const std::vector<CsvRow> rows = read_side_table(dir / (std::string(table) + ".csv"), table, at, &header);
    ASSERT_EQ(rows.size(), 2u) << table;
    for (const keys::SideColumn& c : keys::side_columns)
      if (c.table == table && c.name != "run_id" && c.name != "kind") {
        const auto i = std::size_t(std::find(header.begin(), header.end(), c.name) - header.begin());
        ASSERT_LT(i, header.size()) << c.name;
        EXPECT_EQ(rows[0][i], largest_of(c.type)) << table << "." << c.name;
      }
  }
  fs::remove_all(dir);
}

// A value outside its type — a program's negative count, memprof's infinite
// load, a broken series point — fails the run and names the column; the
// folder stays readable and the next run is written after it.
TEST(KeyTypes, AValueOutsideItsTypeFailsItsRunAndNamesTheColumn) {
  const fs::path dir = fs::temp_directory_path() / ("allocstamp-key-bad-" + std::to_string(getpid()));
  fs::remove_all(dir);
  {
    ResultsFolder folder = ResultsFolder::create(dir, nlohmann::json{{"schema", contract::kResultsSchema}});
    allocstamp::Run run;
    run.id = 1;
    run.workload.name = "w";
    run.allocator.name = "a";
    run.kind = RunKind::profiled;
    Records r;
    r.metrics[keys::tx_commits_count] = "-1";
    r.memprof[keys::load_total_byte_ns] = "1e400";
    r.memprof[keys::heap_requested_peak_bytes] = "4096";
    r.samples.push_back({{keys::series::t_ns, "soon"}, {keys::series::rss_kb, "12"}});
    Finished f;
    f.exit_code = 0;
    EXPECT_EQ(folder.append(run, RunSetting{}, Status::ok, f, r), Status::failed);
    run.id = 2;
    Records good;
    good.memprof[keys::load_total_byte_ns] = "2.2e24";
    EXPECT_EQ(folder.append(run, RunSetting{}, Status::ok, f, good), Status::ok);
  }
  const RunsTable t = load_runs(dir, "results");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.text(t.rows[0], keys::status), "failed");
  const std::string& extra = t.text(t.rows[0], keys::extra);
  EXPECT_NE(extra.find("column tx_commits_count: '-1'"), std::string::npos) << extra;
  EXPECT_NE(extra.find("column load_total_byte_ns: '1e400'"), std::string::npos) << extra;
  EXPECT_NE(extra.find("series.csv column t_ns: 'soon'"), std::string::npos) << extra;
  EXPECT_EQ(t.text(t.rows[0], keys::tx_commits_count), "");
  EXPECT_EQ(t.text(t.rows[0], keys::load_total_byte_ns), "");
  EXPECT_EQ(t.text(t.rows[0], keys::heap_requested_peak_bytes), "4096") << "a good value of the run is kept";
  EXPECT_EQ(t.text(t.rows[1], keys::status), "ok");
  EXPECT_EQ(t.text(t.rows[1], keys::load_total_byte_ns), "2.2e24");
  EXPECT_NO_THROW(check_side_tables(dir));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace allocstamp
