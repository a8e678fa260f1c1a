// apps.h — the apps of a workload binary that holds several (stress, stamp):
// each app registers itself in its own file, and the binary's main hands its
// command line to run_app, which finds the app by name. Nothing here
// allocates on the way to the app (names fit std::string's inline buffer):
// an app's allocations are its figures.
#pragma once
#include <string>

namespace allocstamp::workload {

struct App {
  const char* name;     // what argv[1] names ("larson", "vacation-low")
  const char* options;  // its own options, for the usage text; apps that share a text print it once
  int (*main)(const std::string& app, int argc, char** argv);  // returns the exit status
};

// Every app registers itself in its own file, after its entry:
//   const App kLarson = {"larson", "larson options: ...", run_larson};
//   const Registration kLarsonRegistered(kLarson);
// so no list in the code names the apps (the binary's CMakeLists.txt builds
// the file: stress names it, stamp finds every <app>_tm.cpp).
struct Registration {
  explicit Registration(const App& app);
};

// The binary's main: `<program> <app> [common options] [app options]`.
// Sets the usage text (`usage: <program> <app|app|...> <common_options>` and
// each app's options), runs the app argv[1] names and returns its status; a
// usage error (exit 2) when it names none.
int run_app(const char* program, const char* common_options, int argc, char** argv);

}  // namespace allocstamp::workload
