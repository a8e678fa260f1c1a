// app.h — what every STAMP app shares: its entry (names, options, main), the
// declaration of its body's run() in each TM build, and the call into the
// build that --tm chose. An app is three files: <app>.h (config and result),
// <app>.cpp (sizes, options, report; this entry) and <app>_tm.cpp (the body,
// compiled once per build by stamp_app in CMakeLists.txt).
#pragma once
#include <string>

#include "runtime.h"

namespace allocstamp::stamp {

struct App {
  const char* names[2];   // the app names it answers to ("vacation-low", "vacation-high"); second may be null
  const char* options;    // its own options, for the usage text
  int (*main)(const std::string& app, int argc, char** argv);  // returns the exit status
};

// Every app's entry, defined beside its body.
extern const App kVacation, kKmeans, kSsca2, kLabyrinth, kIntruder, kGenome, kYada, kBayes;

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
