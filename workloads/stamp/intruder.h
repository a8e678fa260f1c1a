// intruder.h — STAMP's intruder (network intrusion detection) as parameters
// and result; the body is compiled per TM build (intruder_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct IntruderConfig {
  int threads = 1;
  int attack_percent = 10;  // -a
  long max_length = 4;      // -l: a flow's bytes, at most (cut into 1..length packets)
  long flows = 2038;        // -n
  uint64_t seed = 1;        // -s: MT19937's seed
};

struct IntruderResult {
  uint64_t elapsed_ns = 0;
  long attacks_generated = 0, attacks_found = 0;
  bool exact = false;  // found exactly the generated attacks
};

ALLOCSTAMP_STAMP_BUILDS(IntruderConfig, IntruderResult)

}  // namespace allocstamp::stamp
