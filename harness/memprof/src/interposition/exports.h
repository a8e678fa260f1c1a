// exports.h — what every file that defines an interposed or public symbol
// shares: the one export attribute (the library is built with hidden
// visibility; C entry points add extern "C"), and through thread_state.h the
// one way to find the next definition of a symbol this library hides
// (next_definition: it lives there because memprof's own sampler thread,
// series.cpp, needs it too).
#pragma once
#include <stdint.h>

#include "os/real.h"
#include "recording/thread_state.h"

#define MEMPROF_EXPORT __attribute__((visibility("default")))
