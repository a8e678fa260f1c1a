// apps.cpp — the registry of a binary's apps, filled by their files' static
// initialisers, and the main that picks one by name.
#include "apps.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "command_line.h"

namespace allocstamp::workload {

namespace {
// Zero-initialised before any initialiser runs, so an app's file may register
// before or after this one's; kept sorted by name.
constexpr int kMaxApps = 64;
const App* g_apps[kMaxApps];
int g_app_count = 0;

// The usage text, built without allocating (into static storage): main runs
// before the app. What does not fit is cut.
char g_usage[4096];
int g_usage_length = 0;

template <typename... Args>
void add_usage(const char* format, Args... args) {
  const int room = int(sizeof g_usage) - g_usage_length;
  if (room <= 1) return;
  const int n = std::snprintf(g_usage + g_usage_length, size_t(room), format, args...);
  if (n > 0) g_usage_length += n < room ? n : room - 1;
}

const char* usage_text(const char* program, const char* common_options) {
  add_usage("usage: %s <", program);
  for (int i = 0; i < g_app_count; ++i) add_usage("%s%s", i ? "|" : "", g_apps[i]->name);
  add_usage("> %s\n", common_options);
  for (int i = 0; i < g_app_count; ++i) {
    bool printed = false;
    for (int j = 0; j < i && !printed; ++j) printed = std::strcmp(g_apps[j]->options, g_apps[i]->options) == 0;
    if (!printed) add_usage("  %s\n", g_apps[i]->options);
  }
  return g_usage;
}
}  // namespace

Registration::Registration(const App& app) {
  if (g_app_count == kMaxApps) {
    std::fprintf(stderr, "%s: more than %d apps registered: raise kMaxApps in workloads/common/apps.cpp\n", app.name,
                 kMaxApps);
    std::abort();
  }
  int i = g_app_count++;
  for (; i > 0 && std::strcmp(g_apps[i - 1]->name, app.name) > 0; --i) g_apps[i] = g_apps[i - 1];
  g_apps[i] = &app;
}

int run_app(const char* program, const char* common_options, int argc, char** argv) {
  set_program({program, usage_text(program, common_options)});
  if (argc < 2) usage_error("which app?");
  std::string name = argv[1];
  for (int i = 0; i < g_app_count; ++i)
    if (name == g_apps[i]->name) return g_apps[i]->main(name, argc, argv);
  usage_error("unknown app '" + name + "'");
}

}  // namespace allocstamp::workload
