// kmeans_stm.cpp — kmeans in the stm build of the TM layer (see
// workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_STM
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "kmeans.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::stm {
#include "kmeans_body.inc"
}  // namespace allocstamp::stamp::stm
