// vacation.h — the travel reservation system of STAMP's vacation, as parameters
// and result; the body is compiled per TM build (vacation_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct VacationConfig {
  int threads = 1;
  long relations = 16384;    // -r: rows per table (cars, flights, rooms) and customers
  long transactions = 4096;  // -t: client transactions in all
  int queries = 2;           // -n: queries per transaction (at most)
  int query_percent = 90;    // -q: share of the relations a query may touch
  int user_percent = 98;     // -u: share of reservations; the rest delete customers or update tables
  uint64_t seed = 1;
};

struct VacationResult {
  uint64_t elapsed_ns = 0;
  bool consistent = false;
  long reservations = 0;  // held by customers at the end
  uint64_t made = 0, deleted = 0, updates = 0;
};

ALLOCSTAMP_STAMP_BUILDS(VacationConfig, VacationResult)

}  // namespace allocstamp::stamp
