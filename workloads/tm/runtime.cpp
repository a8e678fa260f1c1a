// runtime.cpp — method parsing, ITM_DEFAULT_METHOD, and the process-wide sums of
// the thread-local attempt/commit counters and their @metric lines.
#include "runtime.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include <memprof/memprof.h>

#include "key_names.h"
#define ALLOCSTAMP_TM_SEQ  // only for the declarations; no transactions here
#include "tm.h"

namespace allocstamp::tm {

namespace {
std::atomic<uint64_t> total_attempts{0}, total_commits{0};
thread_local Counts counts;
}  // namespace

Counts& thread_counts() { return counts; }

std::mutex& global_lock() {
  static std::mutex lock;
  return lock;
}

bool parse_method(const std::string& name, Method& out) {
  if (name == "ml_wt" || name == "gl_wt" || name == "serialirr") out = {Build::stm, name};
  else if (name == "lock") out = {Build::lock, name};
  else if (name == "seq") out = {Build::seq, name};
  else return false;
  return true;
}

void apply(const Method& method) {
  if (method.build == Build::stm) setenv("ITM_DEFAULT_METHOD", method.name.c_str(), 0);
}

void publish_thread_counts() {
  total_attempts.fetch_add(counts.attempts);
  total_commits.fetch_add(counts.commits);
  counts = Counts{};
}

Totals totals() { return {total_attempts.load(), total_commits.load()}; }

void reset_totals() {
  total_attempts.store(0);
  total_commits.store(0);
  counts = Counts{};
}

Method method_for(const workload::Common& common) {
  Method method;
  if (!parse_method(common.method, method)) workload::usage_error("unknown --tm '" + common.method + "'");
  if (method.build == Build::seq && common.threads != 1) workload::usage_error("--tm seq runs one thread only");
  apply(method);
  return method;
}

void report_transactions() {
  Totals t = totals();
  memprof::metric(keys::tx_attempts_count, int64_t(t.attempts));
  memprof::metric(keys::tx_commits_count, int64_t(t.commits));
}

double abort_rate() {
  Totals t = totals();
  return t.attempts ? 1.0 - double(t.commits) / double(t.attempts) : 0.0;
}


}  // namespace allocstamp::tm
