// stress_main.cpp — the `stress` binary: the classic allocator stress programs,
// run as `stress <app> --threads N --size tiny|small|medium|large --seed S
// [app options]` (Contract 3). tiny is for tests, small about 0.2–1 s at one
// thread here, medium and large the originals' own parameters.
#include <cstdio>
#include <string>

#include "command_line.h"
#include "stress.h"

namespace {

using namespace allocstamp;

const stress::App* const kApps[] = {&stress::kLarson,      &stress::kXmalloc,     &stress::kCacheScratch,
                                    &stress::kCacheThrash, &stress::kMstress,     &stress::kRptest,
                                    &stress::kSh6bench,    &stress::kSh8bench,    &stress::kGlibcSimple,
                                    &stress::kGlibcThread, &stress::kMallocLarge, &stress::kAllocTest};

// Built without allocating: the app's allocations are its figures.
const char* usage_text() {
  static char text[4096];
  int n = std::snprintf(text, sizeof text, "usage: stress <");
  const char* separator = "";
  for (const stress::App* app : kApps) n += std::snprintf(text + n, sizeof text - n, "%s%s", separator, app->name), separator = "|";
  n += std::snprintf(text + n, sizeof text - n, "> [--threads N] [--size tiny|small|medium|large] [--seed S]\n");
  for (const stress::App* app : kApps) n += std::snprintf(text + n, sizeof text - n, "  %s\n", app->options);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  workload::set_program({"stress", usage_text()});
  if (argc < 2) workload::usage_error("which app?");
  std::string name = argv[1];
  for (const stress::App* app : kApps)
    if (name == app->name) return app->main(name, argc, argv);
  workload::usage_error("unknown app '" + name + "'");
}
