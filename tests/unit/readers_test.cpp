// readers_test — the strict CSV reader, the unit rules and the name rule every
// reader shares (results/csv.h, fields.h): a file bench wrote reads back as it
// was written, quoted line ends and all; each kind of damage is refused with
// its line; no unit takes inf, nan, 1e400, hex or a count past 2^64; no name
// that could make a path is taken, by a registry, a preset or runs.csv.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/presets.h"
#include "model/errors.h"
#include "results/csv.h"
#include "model/fields.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

class Readers : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("readers-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& text) {
    const fs::path file = dir_ / "t.csv";
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return file;
  }
  // The message of read_csv's UsageError, or "read" when it read.
  std::string error_of(const std::string& text) {
    try {
      CsvRow header;
      read_csv(write(text), &header);
      return "read";
    } catch (const UsageError& e) {
      return e.what();
    }
  }
  fs::path dir_;
};

TEST_F(Readers, WhatBenchWritesReadsBackAsWritten) {
  const CsvRow header = {"a", "b", "c"};
  const std::vector<CsvRow> rows = {{"plain", "with, comma", "with \"quotes\""},
                                    {"a line\nend", "", "x"},
                                    {"", "", ""}};
  std::ostringstream text;
  text << "# allocstamp t.csv schema 1\n";
  write_row(text, header);
  for (const CsvRow& r : rows) write_row(text, r);
  CsvRow read_header;
  EXPECT_EQ(read_csv(write(text.str()), &read_header), rows);
  EXPECT_EQ(read_header, header);
  // CRLF line ends (a Windows editor) read as LF; blank lines are skipped.
  EXPECT_EQ(error_of("a,b\r\n1,2\r\n\r\n3,4\r\n"), "read");
}

TEST_F(Readers, EachDamageIsRefusedWithItsLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"a,b\n1,2\n3\n", "data row 2 (line 3) has 1 fields, the header 2"},
      {"a,b\n1,2,3\n", "data row 1 (line 2) has 3 fields, the header 2"},
      {"a,b\n1,2", "data row 1 (line 2): the last line has no line end: it was cut off"},
      {"a,b\n\"1,2\n", "a quoted field that never ends"},
      {"a,b\n1\"x,2\n", "a quote inside an unquoted field"},
      {"a,b\n\"1\"x,2\n", "text after a closing quote"},
      {std::string("a,b\n1,\0\n", 8), "a NUL byte"},
      {"a,a\n1,2\n", "has the column 'a' twice"},
      {"a,b\n" + std::string(kMaxCsvRecord + 1, 'x') + "\n", "a row longer than 1048576 bytes"},
  };
  for (const auto& [text, says] : cases) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find(says), std::string::npos) << says << ": " << e;
    EXPECT_NE(e.find(" — "), std::string::npos) << "says how to fix: " << e;
  }
}

TEST(Fields, EachTypeTakesOnlyItsValues) {
  for (const char* ok : {"0", "18446744073709551615", "12"}) EXPECT_EQ(field_problem("u64", ok), "") << ok;
  for (const char* bad : {"18446744073709551616", "-1", "1.5", "0x10", "1e3", "inf", "nan", " 1", "1 ", ""})
    EXPECT_NE(field_problem("u64", bad), "") << bad;
  // A load past 2^64 is a real: 24 GiB for 24 h is 2.2e24 byte·ns.
  for (const char* ok : {"0", "1.5", "2e9", "18446744073709551615", "9.773739e+19", "2.2e24", "1.7976931348623157e308"})
    EXPECT_EQ(field_problem("real", ok), "") << ok;
  for (const char* bad : {"-1", "1e400", "inf", "nan", "1e", ".", "0x1p3", "-0.5"})
    EXPECT_NE(field_problem("real", bad), "") << bad;
  for (const char* ok : {"-3", "0.25", "-1e-5", "42", "-1e30"}) EXPECT_EQ(field_problem("signed", ok), "") << ok;
  for (const char* bad : {"inf", "-inf", "nan", "1e400", "-1e400", "+1", "one"})
    EXPECT_NE(field_problem("signed", bad), "") << bad;
  EXPECT_EQ(field_problem("text", "anything, at all"), "");
}

TEST(Names, OnlyNamesThatCannotMakeAPath) {
  for (const char* ok : {"glibc", "tbbmalloc", "vacation-high", "libjemalloc.so.2", "c++_map", "a.b+c-d_e"})
    EXPECT_EQ(name_problem(ok), "") << ok;
  for (const std::string& bad : std::vector<std::string>{"", ".", "..", "a/b", "../x", "a b", "a\nb", "ä", "a;b", "$(x)", std::string(101, 'a')})
    EXPECT_NE(name_problem(bad), "") << bad;
}

TEST_F(Readers, APresetNamedLikeAPathIsRefused) {
  const fs::path file = dir_ / "presets.json";
  std::ofstream(file) << R"({"schema": 1, "presets": [{"name": "../up", "description": "x"}]})";
  try {
    load_presets(file);
    FAIL() << "a preset named ../up was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the preset '../up'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace allocstamp
