// stress_main.cpp — the `stress` binary: the classic allocator stress programs,
// run as `stress <app> --threads N --size tiny|small|medium|large --seed S
// [app options]` (Contract 3). tiny is for tests, small about 0.2–1 s at one
// thread here, medium and large the originals' own parameters.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "command_line.h"
#include "stress.h"

namespace {

using namespace allocstamp;

// Built without allocating: the app's allocations are its figures.
const char* usage_text() {
  static char text[4096];
  int n = std::snprintf(text, sizeof text, "usage: stress <");
  const char* separator = "";
  const stress::App* const* apps;
  int count = stress::registered_apps(&apps);
  for (int i = 0; i < count; ++i)
    n += std::snprintf(text + n, sizeof text - n, "%s%s", separator, apps[i]->name), separator = "|";
  n += std::snprintf(text + n, sizeof text - n, "> [--threads N] [--size tiny|small|medium|large] [--seed S]\n");
  for (int i = 0; i < count; ++i) n += std::snprintf(text + n, sizeof text - n, "  %s\n", apps[i]->options);
  return text;
}

}  // namespace

namespace allocstamp::stress {
namespace {
// Filled by the apps' static initialisers (zero-initialised before any runs), kept by name.
constexpr int kMaxApps = 64;
const App* g_apps[kMaxApps];
int g_app_count = 0;
}  // namespace

Registration::Registration(const App& app) {
  if (g_app_count == kMaxApps) {
    std::fprintf(stderr, "stress: more than %d apps registered\n", kMaxApps);
    std::abort();
  }
  int i = g_app_count++;
  for (; i > 0 && std::strcmp(g_apps[i - 1]->name, app.name) > 0; --i) g_apps[i] = g_apps[i - 1];
  g_apps[i] = &app;
}

int registered_apps(const App* const** apps) {
  *apps = g_apps;
  return g_app_count;
}
}  // namespace allocstamp::stress

int main(int argc, char** argv) {
  workload::set_program({"stress", usage_text()});
  if (argc < 2) workload::usage_error("which app?");
  std::string name = argv[1];
  const stress::App* const* apps;
  int count = stress::registered_apps(&apps);
  for (int i = 0; i < count; ++i)
    if (name == apps[i]->name) return apps[i]->main(name, argc, argv);
  workload::usage_error("unknown app '" + name + "'");
}
