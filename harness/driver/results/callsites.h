// callsites.h — the sampled call sites of a sweep run with --callsites: the one
// reader of memprof's callsites files (callsites/<run_id>.txt, format 1), their
// symbolisation (addr2line from binutils, once per module per run: it reads
// DWARF line tables without a library of our own to keep, and every machine
// that builds allocstamp has it), and what the results folder gets from them:
// callsites.csv (tidy, one row per site and run) and callsites/<run_id>.folded
// (collapsed stacks, `caller;callee bytes`, for flame-graph tools).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace allocstamp {

struct CallsiteStack {
  uint64_t id = 0;
  uint64_t samples = 0, freed_samples = 0;
  uint64_t est_alloc_bytes = 0, est_alloc_count = 0, est_freed_bytes = 0, est_freed_count = 0;
  uint64_t est_live_bytes_at_peak = 0;  // live when the heap's requested bytes peaked
  std::vector<uint64_t> frames;  // return addresses, innermost first
};

struct CallsiteMapping {
  uint64_t start = 0, end = 0, offset = 0;
  std::string path;
};

struct CallsiteFile {
  uint64_t sample_bytes = 0;
  uint64_t dropped = 0;
  std::vector<CallsiteMapping> maps;
  std::vector<CallsiteStack> stacks;
};

// Reads one file; UsageError when it is not a callsites file of format 1.
CallsiteFile read_callsites(const std::filesystem::path& file);

struct Frame {
  std::string function, file;  // "??" when unknown
  int line = 0;
  std::string module;  // the mapped file the address is in
};

// Every stack's frames, symbolised; memprof's own frames are left out.
std::vector<std::vector<Frame>> symbolise(const CallsiteFile& file);

// One row of callsites.csv.
struct SiteRow {
  int run_id = 0;
  std::string function, file;
  int line = 0;
  uint64_t samples = 0, est_alloc_bytes = 0, est_live_bytes_end = 0;
};

// The one reader of DIR/callsites.csv (empty when the folder has none).
std::vector<SiteRow> read_site_rows(const std::filesystem::path& dir);

// Writes DIR/callsites.csv and DIR/callsites/<run_id>.folded for every
// DIR/callsites/<run_id>.txt; returns the number of runs read.
std::size_t write_callsites(const std::filesystem::path& dir);

}  // namespace allocstamp
