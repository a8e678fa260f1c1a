// failures.cpp — the runs that did not end ok, and why (failures.h).
#include "results/failures.h"

#include "key_names.h"

namespace allocstamp {

namespace {

std::string why_of(const RunsTable& t, const CsvRow& row, Status status) {
  const std::string failure = t.extra_text(row, "failure");
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
