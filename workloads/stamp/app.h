// app.h — what every STAMP app shares: its entry (name, options, main), which
// registers itself (workloads/common/apps.h), the declaration of its body's
// run() in each TM build, and the call into the build that --tm chose. An app
// is three files: <app>.h (config and result; genome's sizes, for a unit test),
// <app>.cpp (sizes, options, report; its entry and registration, one per name
// it answers to) and <app>_tm.cpp (the body: CMakeLists.txt finds it and
// compiles it once per build).
#pragma once
#include <string>

#include "apps.h"
#include "runtime.h"

namespace allocstamp::stamp {

// After its entry, in <app>.cpp:
//   const App kGenome = {"genome", "genome options: ...", run_genome};
//   const Registration kGenomeRegistered(kGenome);
using workload::App;
using workload::Registration;

}  // namespace allocstamp::stamp

// Inside namespace allocstamp::stamp: declares the body's run() in the stm,
// lock and seq builds and run_in_build(), which calls the one --tm chose.
#define ALLOCSTAMP_STAMP_BUILDS(Config, Result)                                      \
  namespace stm { Result run(const Config&); }                                       \
  namespace lock { Result run(const Config&); }                                      \
  namespace seq { Result run(const Config&); }                                       \
  inline Result run_in_build(const ::allocstamp::tm::Method& method, const Config& c) { \
    switch (method.build) {                                                          \
      case ::allocstamp::tm::Build::stm: return stm::run(c);                         \
      case ::allocstamp::tm::Build::lock: return lock::run(c);                       \
      case ::allocstamp::tm::Build::seq: break;                                      \
    }                                                                                \
    return seq::run(c);                                                              \
  }
