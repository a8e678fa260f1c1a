// callsites.cpp — reading, symbolising and tabulating sampled call sites
// (callsites.h).
#include "results/callsites.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "key_names.h"
#include "results/csv.h"
#include "results/results_folder.h"
#include "results/side_tables.h"
#include "model/errors.h"
#include "model/input_file.h"
#include "model/output_file.h"
#include "model/own_folder.h"

extern char** environ;

namespace allocstamp {
namespace fs = std::filesystem;
namespace {

uint64_t parse_number(const std::string& text, const fs::path& file, int base = 10) {
  try {
    std::size_t used = 0;
    uint64_t v = std::stoull(text, &used, base);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(file.string() + ": '" + text + "' is not a number", "the callsites file is damaged; run again");
}

// Runs `argv` and returns its standard output ("" when it cannot run).
std::string output_of(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[65536];
    ssize_t got;
    while ((got = read(pipe_fds[0], buf, sizeof buf)) > 0) out.append(buf, std::size_t(got));
    int status = 0;
    waitpid(pid, &status, 0);
  }
  close(pipe_fds[0]);
  return out;
}

// memprof keeps at most 16,384 stacks of 48 frames: about 16 MiB of text.
constexpr std::size_t kLargestCallsitesFile = std::size_t(64) << 20;

bool is_memprof(const std::string& module) { return fs::path(module).filename() == "libmemprof.so"; }

// Allocation wrappers a site is looked for past: the C, C++ and TM runtimes.
bool is_runtime(const std::string& module) {
  std::string name = fs::path(module).filename().string();
  return name.rfind("libc.so", 0) == 0 || name.rfind("libstdc++.so", 0) == 0 || name.rfind("libitm.so", 0) == 0 ||
         is_memprof(module);
}

// A demangled name without its parameter list ("f(int) const [clone .isra.0]" → "f"):
// the site's function is what a reader looks for, the overload rarely matters.
std::string short_name(std::string name) {
  for (const char* tail : {" [clone", " const"}) {
    auto at = name.rfind(tail);
    if (at != std::string::npos && at > 0 && name[at - 1] == ')') name.resize(at);
  }
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    else if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

}  // namespace

CallsiteFile read_callsites(const fs::path& file) {
  // memprof writes it into a folder others can write to: only the regular file
  // at its name is read (a FIFO would block, /dev/zero never ends, a link reads elsewhere).
  std::istringstream in(read_input_file(file, kLargestCallsitesFile, Links::refuse));
  CallsiteFile out;
  std::string line;
  if (!std::getline(in, line) || line != "# allocstamp callsites format=1")
    throw UsageError(file.string() + " is not a callsites file of format 1", "run the sweep again with this bench");
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "map") {
      // map start-end perms offset dev inode path
      std::string range, perms, offset, dev, inode, path;
      words >> range >> perms >> offset >> dev >> inode;
      std::getline(words >> std::ws, path);
      auto dash = range.find('-');
      if (dash == std::string::npos) throw UsageError(file.string() + ": a damaged map line", "run again");
      out.maps.push_back({parse_number(range.substr(0, dash), file, 16), parse_number(range.substr(dash + 1), file, 16),
                          parse_number(offset, file, 16), path});
      continue;
    }
    // "sample_bytes=.. pid=.." or "stack ID key=value ... frames=a,b,c"
    CallsiteStack stack;
    bool is_stack = first == "stack";
    if (is_stack) {
      std::string id;
      words >> id;
      stack.id = parse_number(id, file);
    } else {
      words.clear();
      words.str(line);
    }
    for (std::string kv; words >> kv;) {
      auto eq = kv.find('=');
      if (eq == std::string::npos) continue;
      std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
      if (key == "sample_bytes") out.sample_bytes = parse_number(value, file);
      else if (key == "dropped") out.dropped = parse_number(value, file);
      else if (key == "samples") stack.samples = parse_number(value, file);
      else if (key == "freed_samples") stack.freed_samples = parse_number(value, file);
      else if (key == keys::callsites::est_alloc_bytes) stack.est_alloc_bytes = parse_number(value, file);
      else if (key == keys::callsites::est_alloc_count) stack.est_alloc_count = parse_number(value, file);
      else if (key == "est_freed_bytes") stack.est_freed_bytes = parse_number(value, file);
      else if (key == "est_freed_count") stack.est_freed_count = parse_number(value, file);
      else if (key == keys::callsites::est_live_bytes_at_peak) stack.est_live_bytes_at_peak = parse_number(value, file);
      else if (key == "frames") {
        std::istringstream list(value);
        for (std::string f; std::getline(list, f, ',');) stack.frames.push_back(parse_number(f, file, 16));
      }
    }
    if (is_stack) out.stacks.push_back(std::move(stack));
  }
  return out;
}

std::vector<std::vector<Frame>> symbolise(const CallsiteFile& file) {
  // Each address once, grouped by module, as the offset addr2line wants (a
  // return address minus one: the call, not the instruction after it).
  std::map<std::string, std::set<uint64_t>> wanted;
  auto mapping_of = [&](uint64_t address) -> const CallsiteMapping* {
    for (const auto& m : file.maps)
      if (address >= m.start && address < m.end) return &m;
    return nullptr;
  };
  auto offset_of = [](const CallsiteMapping& m, uint64_t address) { return address - 1 - m.start + m.offset; };
  for (const auto& s : file.stacks)
    for (uint64_t a : s.frames)
      if (const CallsiteMapping* m = mapping_of(a)) wanted[m->path].insert(offset_of(*m, a));
  std::map<std::pair<std::string, uint64_t>, Frame> known;
  for (const auto& [module, offsets] : wanted) {
    if (is_memprof(module)) continue;
    std::vector<std::string> argv = {"addr2line", "-C", "-f", "-e", module};
    for (uint64_t o : offsets) {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(o));
      argv.push_back(hex);
    }
    std::istringstream lines(output_of(argv));
    for (uint64_t o : offsets) {
      Frame f;
      f.module = module;
      std::string function, where;
      if (!std::getline(lines, function) || !std::getline(lines, where)) function = "??", where = "??:0";
      f.function = short_name(function);
      auto colon = where.rfind(':');
      f.file = where.substr(0, colon);
      if (colon != std::string::npos) {
        std::string number = where.substr(colon + 1);
        number = number.substr(0, number.find(' '));  // "12 (discriminator 3)"
        f.line = std::atoi(number.c_str());
      }
      known[{module, o}] = f;
    }
  }
  std::vector<std::vector<Frame>> out;
  for (const auto& s : file.stacks) {
    std::vector<Frame> frames;
    for (uint64_t a : s.frames) {
      const CallsiteMapping* m = mapping_of(a);
      if (m && is_memprof(m->path)) continue;
      if (!m) {
        frames.push_back({"??", "??", 0, "?"});
        continue;
      }
      auto it = known.find({m->path, offset_of(*m, a)});
      frames.push_back(it != known.end() ? it->second : Frame{"??", "??", 0, m->path});
    }
    out.push_back(std::move(frames));
  }
  return out;
}

std::vector<SiteRow> read_site_rows(const fs::path& dir) {
  const fs::path file = dir / "callsites.csv";
  std::vector<SiteRow> rows;
  if (!fs::exists(file)) return rows;
  std::vector<std::size_t> at;
  std::vector<CsvRow> table = read_side_table(file, "callsites", at);  // at: keys.def's callsites columns in order
  namespace cs = keys::callsites;
  const std::vector<std::string> names = side_table_columns("callsites");
  auto index = [&](const char* name) { return at[std::size_t(std::find(names.begin(), names.end(), name) - names.begin())]; };
  const std::size_t run = index(cs::run_id), function = index(cs::function), source = index(cs::file),
                    line = index(cs::line), samples = index(cs::samples), bytes = index(cs::est_alloc_bytes),
                    live = index(cs::est_live_bytes_end);
  for (const CsvRow& r : table) {
    rows.push_back({int(parse_number(r[run], file)), r[function], r[source], int(parse_number(r[line], file)),
                    parse_number(r[samples], file), parse_number(r[bytes], file), parse_number(r[live], file)});
  }
  return rows;
}

std::size_t write_callsites(const fs::path& dir) {
  const fs::path folder = dir / "callsites";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(folder, ec))) return 0;
  if (const std::string problem = own_folder_problem(folder); !problem.empty())
    throw UsageError(problem, "the runs are recorded; remove it, and bench --resume " + dir.string() +
                                  " writes callsites.csv from the folder's own files");
  std::vector<std::pair<uint64_t, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().extension() == ".txt") {
      std::string stem = entry.path().stem().string();
      if (!stem.empty() && std::all_of(stem.begin(), stem.end(), ::isdigit)) files.push_back({std::stoull(stem), entry.path()});
    }
  std::sort(files.begin(), files.end());
  // Each file written whole, through a fresh file renamed over its name: a
  // link or FIFO planted at callsites.csv or callsites/<run_id>.folded is
  // replaced, never written through.
  std::ostringstream csv;
  csv << schema_line("callsites.csv") << "\n";
  write_row(csv, side_table_columns("callsites"));
  for (const auto& [run_id, path] : files) {
    CallsiteFile file = read_callsites(path);
    std::vector<std::vector<Frame>> frames = symbolise(file);
    std::vector<std::size_t> order(file.stacks.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return file.stacks[a].est_alloc_bytes > file.stacks[b].est_alloc_bytes;
    });
    std::ostringstream folded;
    int rank = 0;
    for (std::size_t i : order) {
      const CallsiteStack& s = file.stacks[i];
      const std::vector<Frame>& f = frames[i];
      // The site: the innermost frame past the C and C++ runtimes' wrappers.
      std::size_t site = 0;
      while (site + 1 < f.size() && is_runtime(f[site].module)) ++site;
      Frame where = f.empty() ? Frame{"??", "??", 0, "?"} : f[site];
      uint64_t live_bytes = s.est_alloc_bytes > s.est_freed_bytes ? s.est_alloc_bytes - s.est_freed_bytes : 0;
      uint64_t live_count = s.est_alloc_count > s.est_freed_count ? s.est_alloc_count - s.est_freed_count : 0;
      write_row(csv, {std::to_string(run_id), std::to_string(++rank), where.function, where.file,
                      std::to_string(where.line), std::to_string(s.id), std::to_string(s.samples),
                      std::to_string(s.est_alloc_bytes), std::to_string(s.est_alloc_count),
                      std::to_string(live_bytes), std::to_string(live_count),
                      std::to_string(s.est_live_bytes_at_peak)});
      std::string stack;
      for (auto it = f.rbegin(); it != f.rend(); ++it) stack += (stack.empty() ? "" : ";") + it->function;
      folded << (stack.empty() ? "??" : stack) << ' ' << s.est_alloc_bytes << '\n';
    }
    replace_file(folder / (std::to_string(run_id) + ".folded"), folded.str());
  }
  replace_file(dir / "callsites.csv", csv.str());
  return files.size();
}

}  // namespace allocstamp
