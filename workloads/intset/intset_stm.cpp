// intset_stm.cpp — the intset body in the stm build of the TM layer
// (see workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_STM
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "config.h"
#include "random.h"
#include "tm.h"
#include "runtime.h"

namespace allocstamp::intset::stm {
#include "sorted_list.h"
#include "hash_set.h"
#include "rb_tree.h"
#include "skip_list.h"
#include "intset_body.inc"
}  // namespace allocstamp::intset::stm
