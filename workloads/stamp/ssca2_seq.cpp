// ssca2_seq.cpp — ssca2 in the seq build of the TM layer (see
// workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_SEQ
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "random.h"
#include "runtime.h"
#include "ssca2.h"
#include "tm.h"

namespace allocstamp::stamp::seq {
#include "ssca2_body.inc"
}  // namespace allocstamp::stamp::seq
