// failures.cpp — the runs that did not end ok, and why (failures.h).
#include "results/failures.h"

#include "key_names.h"

namespace allocstamp {

namespace {

// The value of `name` in the row's extra column (key=value;...): a quoted value
// ("...") runs to its closing quote, so a reason may hold ';'.
std::string extra_text(const RunsTable& t, const CsvRow& row, const std::string& name) {
  const std::string& extra = t.text(row, keys::extra);
  std::size_t at = 0;
  while (at < extra.size()) {
    const std::size_t end_of_key = extra.find('=', at);
    if (end_of_key == std::string::npos) return "";
    const std::string key = extra.substr(at, end_of_key - at);
    std::size_t value_end;
    std::string value;
    if (end_of_key + 1 < extra.size() && extra[end_of_key + 1] == '"') {
      const std::size_t close = extra.find('"', end_of_key + 2);
      value_end = close == std::string::npos ? extra.size() : close + 1;
      value = extra.substr(end_of_key + 2, (close == std::string::npos ? extra.size() : close) - end_of_key - 2);
    } else {
      value_end = std::min(extra.find(';', end_of_key), extra.size());
      value = extra.substr(end_of_key + 1, value_end - end_of_key - 1);
    }
    if (key == name) return value;
    at = value_end + 1;
  }
  return "";
}

std::string why_of(const RunsTable& t, const CsvRow& row, Status status) {
  const std::string failure = extra_text(t, row, "failure");
  if (!failure.empty()) return failure;
  const std::string& code = t.text(row, keys::exit_code);
  const std::string& signal = t.text(row, keys::signal);
  switch (status) {
    case Status::verify_failed: return "the program's own check of its result failed (exit status 3; see its log)";
    case Status::timeout: return "stopped at the time limit (--timeout)" + (signal.empty() ? "" : ", by signal " + signal);
    case Status::crashed: return "ended by signal " + (signal.empty() ? std::string("?") : signal) + " (see its log)";
    default: return code.empty() ? "it could not start (see its log)" : "exit status " + code + " (see its log)";
  }
}

}  // namespace

std::vector<RunNotOk> runs_not_ok(const RunsTable& t) {
  std::vector<RunNotOk> out;
  for (const CsvRow& row : t.rows) {
    const Status status = t.status(row);
    if (status == Status::ok || status == Status::skipped) continue;
    std::string run = "run " + t.text(row, keys::run_id) + " " + t.text(row, keys::workload) + " " +
                      t.text(row, keys::allocator) + " t=" + t.text(row, keys::threads) + " " + t.text(row, keys::size);
    if (!t.text(row, keys::tm).empty()) run += " " + t.text(row, keys::tm);
    run += " rep " + t.text(row, keys::rep) + " " + kind_name(t.kind(row));
    out.push_back({run, status_name(status), why_of(t, row, status)});
  }
  return out;
}

}  // namespace allocstamp
