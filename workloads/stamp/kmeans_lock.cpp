// kmeans_lock.cpp — kmeans in the lock build of the TM layer (see
// workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_LOCK
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

namespace allocstamp::stamp::lock {
#include "kmeans_body.inc"
}  // namespace allocstamp::stamp::lock
