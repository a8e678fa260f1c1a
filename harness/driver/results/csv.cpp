// csv.cpp — quoting, splitting and the schema-checking reader of csv.h.
#include "results/csv.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "model/errors.h"
#include "keys.h"
#include "model/input_file.h"

namespace allocstamp {

namespace fs = std::filesystem;

std::string csv_quote(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_row(std::ostream& out, const CsvRow& row) {
  for (size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_quote(row[i]);
  out << '\n';
}

namespace {
// The n of a "# allocstamp <file> schema <n>" line.
int schema_of(const std::string& line) { return std::atoi(line.substr(line.rfind(' ') + 1).c_str()); }
}  // namespace

int csv_schema(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  return first.rfind("# allocstamp", 0) == 0 ? schema_of(first) : 0;
}

std::string schema_line(const char* file) {
  return std::string("# allocstamp ") + file + " schema " + std::to_string(contract::kResultsSchema);
}

namespace {

// A damaged record: its first line and what is wrong.
struct BadRecord {
  std::size_t line;
  std::string what;
};

// One CSV record at a time from a descriptor (RFC 4180: a quoted field may
// hold commas, doubled quotes and line ends), strict: a quote inside an
// unquoted field, text after a closing quote, a NUL byte, a quoted field that
// never ends, a last line without its line end and a record longer than
// kMaxCsvRecord are BadRecord. A comment line ('#' first) comes back whole.
class RecordReader {
 public:
  RecordReader(const fs::path& file, Links links) : fd_(open_input_file(file, links)), file_(file) {}
  ~RecordReader() { ::close(fd_); }
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  enum class Kind { end, blank, comment, row };
  // The next record into `fields` (a comment: its text in fields[0]); `line`
  // is its first line's number.
  Kind next(CsvRow& fields, std::size_t& line) {
    fields.clear();
    line = line_ + 1;
    int c = get();
    if (c == kEnd) return Kind::end;
    if (c == '\n') return ++line_, Kind::blank;
    if (c == '\r' && peek() == '\n') return get(), ++line_, Kind::blank;
    std::string cell;
    std::size_t bytes = 0;
    if (c == '#') {
      for (; c != '\n'; c = get()) {
        if (c == kEnd) throw BadRecord{line, "the last line has no line end: it was cut off"};
        if (++bytes > kMaxCsvRecord) throw BadRecord{line, "a line longer than " + std::to_string(kMaxCsvRecord) + " bytes"};
        cell += char(c);
      }
      ++line_;
      if (!cell.empty() && cell.back() == '\r') cell.pop_back();
      fields.push_back(std::move(cell));
      return Kind::comment;
    }
    bool quoted = false, closed = false;  // inside a quoted field; just after its closing quote
    for (;; c = get()) {
      if (c == kEnd)
        throw BadRecord{line, quoted ? "a quoted field that never ends" : "the last line has no line end: it was cut off"};
      if (++bytes > kMaxCsvRecord)
        throw BadRecord{line, "a row longer than " + std::to_string(kMaxCsvRecord) + " bytes"};
      if (c == '\0') throw BadRecord{line_ + 1, "a NUL byte"};
      if (quoted) {
        if (c == '"' && peek() == '"') get(), cell += '"';
        else if (c == '"') quoted = false, closed = true;
        else cell += char(c), line_ += c == '\n';
        continue;
      }
      if (c == '\r' && peek() == '\n') c = get();  // CRLF line ends (a Windows editor) read as LF
      if (c == ',' || c == '\n') {
        fields.push_back(std::move(cell));
        cell.clear();
        closed = false;
        if (c == '\n') return ++line_, Kind::row;
      } else if (closed) {
        throw BadRecord{line_ + 1, "text after a closing quote"};
      } else if (c == '"') {
        if (!cell.empty()) throw BadRecord{line_ + 1, "a quote inside an unquoted field"};
        quoted = true;
      } else {
        cell += char(c);
      }
    }
  }

 private:
  static constexpr int kEnd = -1;
  int get() {
    if (pos_ == size_ && !fill()) return kEnd;
    return static_cast<unsigned char>(buffer_[pos_++]);
  }
  int peek() {
    if (pos_ == size_ && !fill()) return kEnd;
    return static_cast<unsigned char>(buffer_[pos_]);
  }
  bool fill() {
    for (;;) {
      const ssize_t got = ::read(fd_, buffer_, sizeof buffer_);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw UsageError("cannot read " + file_.string() + ": " + std::strerror(errno), "check the file");
      pos_ = 0;
      size_ = std::size_t(got);
      return got > 0;
    }
  }

  int fd_;
  fs::path file_;
  char buffer_[65536];
  std::size_t pos_ = 0, size_ = 0, line_ = 0;
};

}  // namespace

CsvRow scan_csv(const fs::path& file, const std::function<void(const CsvRow&, const CsvRow&)>& each, Links links) {
  RecordReader reader(file, links);
  CsvRow header, fields;
  bool have_header = false;
  std::size_t line = 0, data_row = 0;
  try {
    for (;;) {
      const RecordReader::Kind kind = reader.next(fields, line);
      if (kind == RecordReader::Kind::end) break;
      if (kind == RecordReader::Kind::blank) continue;
      if (kind == RecordReader::Kind::comment) {
        const std::string& text = fields[0];
        if (text.rfind("# allocstamp", 0) != 0) continue;
        const int schema = schema_of(text);
        if (schema > contract::kResultsSchema)
          throw UsageError(file.string() + " has schema " + std::to_string(schema) + ", newer than this bench",
                           "read it with a newer allocstamp");
        continue;
      }
      if (!have_header) {
        header = fields;
        have_header = true;
        for (std::size_t a = 0; a < header.size(); ++a)  // a column named twice: no value could be asked for by name
          if (std::find(header.begin() + std::ptrdiff_t(a) + 1, header.end(), header[a]) != header.end())
            throw UsageError(file.string() + ": line " + std::to_string(line) + ", the header, has the column '" +
                                 header[a] + "' twice",
                             "the file is damaged: it is not a file written by bench");
        continue;
      }
      ++data_row;
      if (fields.size() != header.size())
        throw UsageError(file.string() + ": data row " + std::to_string(data_row) + " (line " + std::to_string(line) +
                             ") has " + std::to_string(fields.size()) + " fields, the header " +
                             std::to_string(header.size()),
                         "the file is damaged: repair or remove that row, or rerun the benchmark");
      each(header, fields);
    }
  } catch (const BadRecord& bad) {
    const bool cut = bad.what.find("cut off") != std::string::npos;
    throw UsageError(file.string() + (have_header ? ": data row " + std::to_string(data_row + 1) + " (line " : ": (line ") +
                         std::to_string(bad.line) + "): " + bad.what,
                     cut ? "a sweep stopped while writing it: bench --resume FOLDER cuts it off and makes its run again"
                         : "the file is damaged: repair or remove that row, or rerun the benchmark");
  }
  return header;
}

std::vector<CsvRow> read_csv(const fs::path& file, CsvRow* header) {
  std::vector<CsvRow> rows;
  CsvRow head = scan_csv(file, [&rows](const CsvRow&, const CsvRow& row) { rows.push_back(row); });
  if (header) *header = std::move(head);
  return rows;
}

double field_number(const std::string& field) {
  if (field.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  return *end == '\0' && std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace allocstamp
