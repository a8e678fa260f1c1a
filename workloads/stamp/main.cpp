// main.cpp — the stamp binary: STAMP's transactional applications, run as
// `stamp <app> --threads N --size tiny|small|medium|large --seed S --tm M
// [app options]` (Contract 3). small is STAMP's simulator input, large its
// non-simulator input. Each app is listed in kApps; its entry lives beside
// its body (see app.h).
#include <string>

#include "app.h"
#include "command_line.h"

namespace {

using namespace allocstamp;

const stamp::App* const kApps[] = {&stamp::kVacation, &stamp::kKmeans,   &stamp::kSsca2,
                                   &stamp::kLabyrinth, &stamp::kIntruder, &stamp::kGenome};

std::string usage_text() {
  std::string names, options;
  for (const stamp::App* app : kApps) {
    for (const char* name : app->names)
      if (name) names += (names.empty() ? "" : "|") + std::string(name);
    options += "  " + std::string(app->options) + "\n";
  }
  return "usage: stamp <" + names + "> [--threads N] [--size tiny|small|medium|large] [--seed S]"
         " [--tm ml_wt|gl_wt|serialirr|lock|seq]\n" + options;
}

}  // namespace

int main(int argc, char** argv) {
  static const std::string usage = usage_text();
  tm::set_program({"stamp", usage.c_str()});
  if (argc < 2) tm::usage_error("which app?");
  std::string name = argv[1];
  for (const stamp::App* app : kApps)
    for (const char* answer : app->names)
      if (answer && name == answer) return app->main(name, argc, argv);
  tm::usage_error("unknown app '" + name + "'");
}
