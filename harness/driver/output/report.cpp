// report.cpp — builds the report as a list of blocks (setup, summary tables,
// figures, what was not drawn) and renders it twice: Markdown with every
// special character escaped, and one HTML page with a little embedded CSS.
#include "output/report.h"

#include "output/bottom_line.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "key_names.h"
#include "meta_names.h"
#include "results/callsites.h"
#include "results/csv.h"
#include "results/failures.h"
#include "output/summary_table.h"
#include "output/variants_table.h"
#include "analysis/findings.h"
#include "analysis/mechanisms.h"
#include "model/format.h"
#include "model/output_file.h"
#include "results/meta.h"
#include "results/side_tables.h"
#include "model/shell_words.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

std::string text_of(const nlohmann::json& j) {
  if (j.is_null()) return "";
  return j.is_string() ? j.get<std::string>() : j.dump();
}

// The command line as one could paste it into a shell.
std::string shell_line(const nlohmann::json& words) {
  std::vector<std::string> texts;
  for (const auto& w : words) texts.push_back(text_of(w));
  return allocstamp::shell_line(texts);
}

// The sizes the runs used: one, or each workload's where they differ (the
// default job sizes each workload on its own).
std::string sizes_run(const ResultsView& view) {
  std::vector<std::pair<std::string, std::string>> seen;  // workload, size; in order of first run
  std::set<std::string> sizes;
  for (const Cell& cell : view.cells.cells) {
    std::pair<std::string, std::string> ws{cell.id.workload, cell.id.size};
    sizes.insert(ws.second);
    if (std::find(seen.begin(), seen.end(), ws) == seen.end()) seen.push_back(ws);
  }
  if (sizes.size() <= 1) return sizes.empty() ? "" : *sizes.begin();
  std::string out;
  for (const auto& [workload, size] : seen) out += (out.empty() ? "" : ", ") + workload + " " + size;
  return out;
}

// Each workload's arguments as run (runs.csv's args), so that the report's
// "size small" can be reproduced: one line per group and argument list.
std::vector<std::string> arguments_run(const ResultsView& view) {
  std::vector<std::string> out;
  for (const Cell& cell : view.cells.cells) {
    if (cell.id.args.empty()) continue;
    std::string line = cell.group + ": " + cell.id.args;
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  }
  return out;
}

void setup_section(const ResultsView& view, Document& doc) {
  const nlohmann::json& meta = view.meta;
  doc.push_back(heading(2, "Setup"));
  if (meta.empty()) {
    doc.push_back(paragraph("The folder has no meta.json: the setup is unknown."));
    return;
  }
  if (meta.contains(meta::command_line)) {
    Block code;
    code.kind = Block::Kind::code;
    code.text = shell_line(meta[meta::command_line]);
    doc.push_back(code);
  }
  nlohmann::json machine = meta.value(meta::machine, nlohmann::json::object());
  nlohmann::json options = meta.value(meta::options, nlohmann::json::object());
  Block table;
  table.kind = Block::Kind::table;
  table.text_columns = 2;
  table.rows.push_back({"item", "value"});
  auto row = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) table.rows.push_back({name, value});
  };
  std::string commit = text_of(machine.value(meta::machine_git_commit, nlohmann::json()));
  if (!commit.empty() && machine.value(meta::machine_git_dirty, false)) commit += " (with uncommitted changes)";
  row("git commit", commit);
  row("allocstamp", text_of(machine.value(meta::machine_allocstamp_version, nlohmann::json())));
  row("host", text_of(machine.value(meta::machine_host, nlohmann::json())));
  std::string cpu = text_of(machine.value(meta::machine_cpu, nlohmann::json()));
  if (machine.contains(meta::machine_cores))
    cpu += (cpu.empty() ? "" : ", ") + text_of(machine[meta::machine_cores]) + " cores";
  row("CPU", cpu);
  if (machine.contains(meta::machine_topology) && machine[meta::machine_topology].is_object() &&
      !machine[meta::machine_topology].empty()) {
    const nlohmann::json& t = machine[meta::machine_topology];
    char memory[64];
    std::snprintf(memory, sizeof memory, "%.1f GiB",
                  t.value(meta::topology_memory_bytes, 0.0) / (1024.0 * 1024.0 * 1024.0));
    row("memory", memory);
    row("NUMA nodes", text_of(t.value(meta::topology_numa_nodes, nlohmann::json())));
    row("cores", text_of(t.value(meta::topology_physical_cores, nlohmann::json())) + " physical, " +
                     text_of(t.value(meta::topology_hardware_threads, nlohmann::json())) + " hardware threads (SMT " +
                     (t.value(meta::topology_smt, false) ? "on" : "off") + ")");
  }
  if (machine.contains(meta::machine_transparent_hugepages))
    row("transparent huge pages", text_of(machine[meta::machine_transparent_hugepages]));
  row("kernel", text_of(machine.value(meta::machine_kernel, nlohmann::json())));
  row("compiler", text_of(machine.value(meta::machine_compiler, nlohmann::json())));
  row("started", text_of(meta.value(meta::started, nlohmann::json())));
  row("finished", text_of(meta.value(meta::finished, nlohmann::json())));
  if (meta.value(meta::interrupted, false))
    row("interrupted", "yes: some runs are missing (bench --resume finishes them)");
  if (meta.contains(meta::resumed) && meta[meta::resumed].is_array())
    row("resumed", std::to_string(meta[meta::resumed].size()) + " time(s)");
  if (options.contains(meta::option_preset) && options[meta::option_preset] != nlohmann::json(""))
    row("preset", text_of(options[meta::option_preset]));
  row("size", sizes_run(view));
  for (const char* key : {meta::option_threads, meta::option_reps, meta::option_tm, meta::option_profile,
                          meta::option_series, meta::option_seed})
    if (options.contains(key) && options[key] != nlohmann::json("")) row(key, text_of(options[key]));
  row("memprof", text_of(meta.value(meta::memprof, nlohmann::json())));
  doc.push_back(table);
  if (const std::vector<std::string> args = arguments_run(view); !args.empty()) {
    doc.push_back(paragraph("Each workload ran with these arguments (runs.csv's args, each run with its own --threads):"));
    doc.push_back(list(args));
  }

  if (meta.contains(meta::allocators) && meta[meta::allocators].is_array() && !meta[meta::allocators].empty()) {
    doc.push_back(heading(3, "Allocators"));
    Block allocators;
    allocators.kind = Block::Kind::table;
    allocators.text_columns = 4;
    allocators.rows.push_back({"allocator", "package", "version", "library"});
    for (const auto& a : meta[meta::allocators])
      allocators.rows.push_back({text_of(a.value(meta::allocator_name, nlohmann::json())),
                                 text_of(a.value(meta::allocator_package, nlohmann::json())),
                                 text_of(a.value(meta::allocator_version, nlohmann::json())),
                                 a.value(meta::allocator_library, std::string()).empty()
                                     ? "(the C library's malloc)"
                                     : text_of(a[meta::allocator_library])});
    doc.push_back(allocators);
  }
  if (meta.contains(meta::inherited_environment) && meta[meta::inherited_environment].is_array() &&
      !meta[meta::inherited_environment].empty()) {
    doc.push_back(paragraph("Every run inherited these allocator or loader settings:"));
    std::vector<std::string> items;
    for (const auto& e : meta[meta::inherited_environment]) items.push_back(text_of(e));
    doc.push_back(list(items));
  }
  const Meta recorded{meta, true};
  if (const std::vector<std::string> warnings = recorded.machine_warnings(); !warnings.empty()) {
    doc.push_back(paragraph("bench warned about the machine:"));
    doc.push_back(list(warnings));
  }
  if (const Meta::BusyRuns busy = recorded.busy_runs(); busy.busy > 0)
    doc.push_back(paragraph(std::to_string(busy.busy) + " of " + std::to_string(busy.of) +
                            " runs measured while other processes used more than a quarter of the machine or the "
                            "hypervisor stole more than 10% (runs.csv: others_cpu_pct, steal_pct): their times are "
                            "less trustworthy."));
}

// The cell of every ok run, by run_id: a failed run gives no figure (the report says so).
std::map<std::string, const Cell*> cells_by_ok_run(const ResultsView& view) {
  std::map<std::string, const Cell*> out;
  for (const Cell& cell : view.cells.cells)
    for (const CsvRow* r : cell.ok) out[view.table->text(*r, keys::run_id)] = &cell;
  return out;
}

// Up to this many workloads, their summary tables are shown open.
constexpr std::size_t kUnfoldedTables = 4;

void summary_section(const ResultsView& view, const std::vector<CellSummary>& cells, Document& doc) {
  doc.push_back(heading(2, "Summary"));
  doc.push_back(paragraph(summary_table_legend(view, cells)));
  for (const auto& group : view.cells.groups) {
    Block t = summary_table(view, cells, group);
    // Folded where there are many (the bottom line leads); open where a reader sees them all at once.
    if (view.cells.groups.size() > kUnfoldedTables)
      t.summary = group + ": every cell (" + std::to_string(t.rows.size() - 1) + " rows)";
    else
      doc.push_back(heading(3, group));
    doc.push_back(t);
  }
}

// Each variant against its base, where both ran.
void variants_section(const ResultsView& view, const std::vector<CellSummary>& cells, Document& doc) {
  Block t = variants_table(view, cells);
  if (t.rows.size() == 1) return;
  doc.push_back(heading(2, "Variants against their base"));
  doc.push_back(paragraph(variants_table_legend(cells)));
  // What separates, one row per variant, workload and thread count; then every cell.
  const Block changes = variant_changes(cells);
  if (changes.rows.size() == 1)
    doc.push_back(paragraph("No setting separates a variant from its base in time or peak RSS."));
  else
    doc.push_back(changes);
  doc.push_back(t);
}

// Per workload, the named scopes of the first profiled run of each allocator
// and thread count (scopes.csv: memprof_scope_begin/end in the program).
void scopes_section(const ResultsView& view, Document& doc) {
  const fs::path file = view.dir / "scopes.csv";
  if (!fs::exists(file)) return;
  std::vector<std::size_t> at;
  std::vector<CsvRow> rows = read_side_table(file, "scopes", at);  // at[i]: the i-th column
  if (rows.empty()) return;
  const std::size_t run = at[0], name = at[1], calls = at[2], allocs = at[3], bytes = at[4], held = at[5],
                    duration = at[6];
  const std::map<std::string, const Cell*> by_id = cells_by_ok_run(view);
  doc.push_back(heading(2, "Scopes"));
  doc.push_back(paragraph(
      "Named scopes the programs mark (memprof::scope): allocations, requested bytes, held bytes (requested "
      "less freed inside the scope: negative where it freed blocks made before it) and time inside, summed over the threads that entered "
      "them; from each allocator's first profiled run per thread count. Times here are under memprof."));
  for (const std::string& group : view.cells.groups) {
    Block t;
    t.kind = Block::Kind::table;
    t.text_columns = 3;
    t.rows.push_back({"allocator", "threads", "scope", "entered", "allocations", "requested (MiB)", "net held (MiB)",
                      "time (ms)"});
    std::set<std::pair<std::string, int>> seen;  // (allocator, threads) already shown
    std::string shown_run;
    for (const CsvRow& r : rows) {
      auto it = by_id.find(r[run]);
      if (it == by_id.end() || it->second->group != group) continue;
      const std::string& allocator = it->second->allocator;
      std::pair<std::string, int> cell{allocator, it->second->id.threads};
      if (seen.count(cell) && shown_run != r[run]) continue;
      seen.insert(cell);
      shown_run = r[run];
      t.rows.push_back({allocator, std::to_string(it->second->id.threads), r[name], r[calls], r[allocs],
                        number_text("%.2f", std::atof(r[bytes].c_str()) / (1024.0 * 1024.0)),
                        number_text("%.2f", std::atof(r[held].c_str()) / (1024.0 * 1024.0)),
                        number_text("%.2f", std::atof(r[duration].c_str()) / 1e6)});
    }
    if (t.rows.size() == 1) continue;
    doc.push_back(heading(3, group));
    doc.push_back(t);
  }
}

// Per workload, the top sites of each allocator's first profiled run with call
// sites: by bytes allocated, and by bytes still live at exit (leaks).
void callsites_section(const ResultsView& view, Document& doc) {
  std::vector<SiteRow> sites = read_site_rows(view.dir);
  if (sites.empty()) return;
  const std::map<std::string, const Cell*> by_id = cells_by_ok_run(view);
  doc.push_back(heading(2, "Call sites"));
  doc.push_back(paragraph(
      "Sampled in the profiled runs (--callsites): one allocation per N bytes on average, each standing for 1/p "
      "blocks (p = 1 - exp(-size/N)), so the figures are estimates; a site is the innermost frame past the C, C++ "
      "and TM runtimes, its stack in callsites/<run_id>.folded. Top 10 per allocator, from its first profiled run."));
  for (const std::string& group : view.cells.groups) {
    // (allocator -> site -> bytes), from the first run of each allocator.
    std::map<std::string, int> first_run;
    for (const SiteRow& s : sites) {
      auto it = by_id.find(std::to_string(s.run_id));
      if (it == by_id.end() || it->second->group != group) continue;
      const std::string& allocator = it->second->allocator;
      if (!first_run.count(allocator)) first_run[allocator] = s.run_id;
    }
    if (first_run.empty()) continue;
    doc.push_back(heading(3, group));
    for (const char* order : {"allocated", "live at exit"}) {
      const bool live = std::string(order) == "live at exit";
      Block t;
      t.kind = Block::Kind::table;
      t.text_columns = 4;
      t.rows.push_back({"allocator", "rank", "function", "file:line", std::string("est. MiB ") + order, "samples"});
      for (const std::string& allocator : view.cells.allocators) {
        auto run = first_run.find(allocator);
        if (run == first_run.end()) continue;
        std::map<std::tuple<std::string, std::string, int>, std::pair<uint64_t, uint64_t>> merged;
        for (const SiteRow& s : sites) {
          if (s.run_id != run->second) continue;
          auto& m = merged[{s.function, s.file, s.line}];
          m.first += live ? s.est_live_bytes_end : s.est_alloc_bytes;
          m.second += s.samples;
        }
        std::vector<std::pair<uint64_t, std::tuple<std::string, std::string, int, uint64_t>>> ranked;
        for (const auto& [key, v] : merged)
          if (v.first > 0) ranked.push_back({v.first, {std::get<0>(key), std::get<1>(key), std::get<2>(key), v.second}});
        std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (std::size_t i = 0; i < ranked.size() && i < 10; ++i) {
          const auto& [bytes, site] = ranked[i];
          std::string where = fs::path(std::get<1>(site)).filename().string() + ":" + std::to_string(std::get<2>(site));
          t.rows.push_back({allocator, std::to_string(i + 1), std::get<0>(site), where,
                            number_text("%.2f", double(bytes) / (1024.0 * 1024.0)), std::to_string(std::get<3>(site))});
        }
      }
      if (t.rows.size() > 1) doc.push_back(t);
      else doc.push_back(paragraph(std::string("No site with bytes ") + order + "."));
    }
  }
}

}  // namespace

Document build_report(const ResultsView& view, const std::vector<CellSummary>& cells, const FigurePlan& plan) {
  Document doc;
  std::error_code ec;
  fs::path real = fs::weakly_canonical(view.dir, ec);
  doc.push_back(heading(1, "allocstamp report: " + (ec ? view.dir : real).filename().string()));
  doc.push_back(paragraph("Results folder " + (ec ? view.dir : real).string() + ": " +
                          std::to_string(view.table->rows.size()) + " runs of " +
                          std::to_string(view.cells.groups.size()) + " workload(s) under " +
                          std::to_string(view.cells.allocators.size()) + " allocator(s). Redraw with: bench plot " +
                          view.dir.string()));
  if (!view.notes.empty()) doc.push_back(list(view.notes));
  auto figure_block = [](const Figure& f) {
    Block b;
    b.kind = Block::Kind::figure;
    b.text = f.title;
    b.image = "figures/" + f.name;
    b.caption = f.caption;
    b.items = f.notes;
    return b;
  };
  // The answer first: every workload's time at once (the heatmap per thread
  // count), the bottom-line table, and one finding per workload and thread count.
  std::vector<bool> placed(plan.figures.size(), false);
  doc.push_back(heading(2, "Bottom line"));
  if (view.cells.allocators.size() > 1) {
    doc.push_back(bottom_line_table(view, cells));
    doc.push_back(paragraph(bottom_line_legend(view)));
  }
  doc.push_back(paragraph("Findings, per workload and thread count: the fastest allocator where its time separates from " +
                          view.cells.reference + "'s, and the leanest where its peak RSS does (each the ratio of "
                          "geometric means with its interval, claimed only where the interval leaves 1 out); map "
                          "workloads first, by bytes per element. Times and peak RSS are the timed runs' (the allocator "
                          "alone); bytes per element the profiled runs'. " + standings_legend(cells) + " " +
                          mechanism_legend(mechanism_family(
                              view.cells, !cells.empty() && cells.front().time_family.per_comparison))));
  doc.push_back(list(findings(view, cells)));
  for (std::size_t i = 0; i < plan.figures.size(); ++i)
    if (plan.figures[i].name.rfind("time-t", 0) == 0) {
      placed[i] = true;
      doc.push_back(figure_block(plan.figures[i]));
    }
  if (const std::vector<RunNotOk> failures = runs_not_ok(*view.table); !failures.empty()) {
    doc.push_back(heading(2, "Runs that did not end ok"));
    doc.push_back(paragraph(std::to_string(failures.size()) + " run(s): no figure above or below takes anything "
                            "from them. Their logs are in logs/; bench --resume " + view.dir.string() +
                            " --redo-failed makes them again."));
    std::vector<std::string> items;
    for (const RunNotOk& f : failures) items.push_back(f.run + ": " + f.status + " — " + f.why);
    doc.push_back(list(items));
  }
  doc.push_back(contents());
  setup_section(view, doc);
  summary_section(view, cells, doc);
  variants_section(view, cells, doc);
  scopes_section(view, doc);
  callsites_section(view, doc);
  doc.push_back(heading(2, "Figures"));
  if (plan.figures.empty()) doc.push_back(paragraph("No figure could be drawn from this folder (see below)."));
  // Grouped by workload, then those across workloads (but the bottom line's).
  for (const std::string& group : view.cells.groups) {
    bool any = false;
    for (std::size_t i = 0; i < plan.figures.size(); ++i) {
      if (placed[i] || plan.figures[i].group != group) continue;
      if (!any) doc.push_back(heading(3, group));
      any = true;
      placed[i] = true;
      doc.push_back(figure_block(plan.figures[i]));
    }
  }
  bool across = false;
  for (std::size_t i = 0; i < plan.figures.size(); ++i) {
    if (placed[i]) continue;
    if (!across) doc.push_back(heading(3, "Across workloads"));
    across = true;
    doc.push_back(figure_block(plan.figures[i]));
  }
  if (!plan.skipped.empty()) {
    doc.push_back(heading(2, "Figures not drawn"));
    doc.push_back(list(plan.skipped));
  }
  return doc;
}

void write_report(const ResultsView& view, const std::vector<CellSummary>& cells, const FigurePlan& plan) {
  Document doc = build_report(view, cells, plan);
  // Through a fresh file renamed into place: a link planted at report.md is
  // replaced, never written through.
  for (const auto& [name, text] : {std::pair{"report.md", render_markdown(doc)}, std::pair{"report.html", render_html(doc)}})
    replace_file(view.dir / name, text);
}

}  // namespace allocstamp
