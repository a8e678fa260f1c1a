// labyrinth_stm.cpp — labyrinth in the stm build of the TM layer (see
// workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_STM
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

namespace allocstamp::stamp::stm {
#include "labyrinth_body.inc"
}  // namespace allocstamp::stamp::stm
