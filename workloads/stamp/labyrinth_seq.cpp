// labyrinth_seq.cpp — labyrinth in the seq build of the TM layer (see
// workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_SEQ
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "labyrinth.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::seq {
#include "labyrinth_body.inc"
}  // namespace allocstamp::stamp::seq
