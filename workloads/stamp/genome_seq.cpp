// genome_seq.cpp — genome in the seq build of the TM layer (see
// workloads/tm/tm.h): the same source, compiled into its own namespace.
#define ALLOCSTAMP_TM_SEQ
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "genome.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::seq {
#include "genome_body.inc"
}  // namespace allocstamp::stamp::seq
