// fuzz_records — any bytes as what a run wrote to its records pipe
// (@memprof, @metric, @sample, @scope, @micro, @error lines, from any number
// of processes): parse_records never fails on them.
#include <string>

#include "run/records.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  allocstamp::Records r = allocstamp::parse_records(std::string(reinterpret_cast<const char*>(data), size), 1);
  (void)r;
  return 0;
}
