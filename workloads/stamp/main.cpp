// main.cpp — the stamp binary: STAMP's transactional applications, run as
// `stamp <app> --threads N --size tiny|small|medium|large --seed S --tm M
// [app options]` (Contract 3). small is STAMP's simulator input, large its
// non-simulator input. Each app is listed in kApps; its entry lives beside
// its body (see app.h).
#include <cstdio>
#include <string>

#include "app.h"
#include "command_line.h"

namespace {

using namespace allocstamp;

const stamp::App* const kApps[] = {&stamp::kVacation, &stamp::kKmeans,   &stamp::kSsca2,
                                   &stamp::kLabyrinth, &stamp::kIntruder, &stamp::kGenome,
                                   &stamp::kYada, &stamp::kBayes};

// Built without allocating (into static storage): an app's allocations are
// its figures, and main runs before it.
const char* usage_text() {
  static char text[4096];
  int n = std::snprintf(text, sizeof text, "usage: stamp <");
  const char* separator = "";
  for (const stamp::App* app : kApps)
    for (const char* name : app->names)
      if (name) n += std::snprintf(text + n, sizeof text - n, "%s%s", separator, name), separator = "|";
  n += std::snprintf(text + n, sizeof text - n,
                     "> [--threads N] [--size tiny|small|medium|large] [--seed S] [--tm ml_wt|gl_wt|serialirr|lock|seq]\n");
  for (const stamp::App* app : kApps) n += std::snprintf(text + n, sizeof text - n, "  %s\n", app->options);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  workload::set_program({"stamp", usage_text()});
  if (argc < 2) workload::usage_error("which app?");
  std::string name = argv[1];
  for (const stamp::App* app : kApps)
    for (const char* answer : app->names)
      if (answer && name == answer) return app->main(name, argc, argv);
  workload::usage_error("unknown app '" + name + "'");
}
