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

long allocstamp::stress::by_size(const std::string& size, long tiny, long small, long medium, long large) {
  if (size == "tiny") return tiny;
  if (size == "small") return small;
  if (size == "medium") return medium;
  if (size == "large") return large;
  tm::usage_error("--size takes tiny, small, medium or large, not '" + size + "'");
}

int main(int argc, char** argv) {
  tm::set_program({"stress", usage_text()});
  if (argc < 2) tm::usage_error("which app?");
  std::string name = argv[1];
  for (const stress::App* app : kApps)
    if (name == app->name) return app->main(name, argc, argv);
  tm::usage_error("unknown app '" + name + "'");
}
