// trace_reader.cpp — reads a trace (trace_reader.h): the checks, then the
// renumbering. Addresses become ids in time order: a block is born when its
// allocation returned and dies when its free began, so a free that let another
// thread's malloc reuse the address always comes first. A thread's own events
// are made strictly increasing in time first (two readings of the clock in a
// row may be equal), so that order within a thread is never reversed.
#include "trace_reader.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <filesystem>
#include <memory>
#include <unordered_map>

namespace allocstamp::trace {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, const std::string& fix) {
  throw TraceError(path + ": " + what + " — " + fix);
}

const char* const kRecordAgain = "record it again (MEMPROF_TRACE=path, or bench trace record)";

// The trace's bytes; zstd frames (bench trace record, or the zstd tool) are
// decompressed on the way in.
std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    fail(path, "is not a file (a folder?)", "give the path of a trace that MEMPROF_TRACE or bench trace record wrote");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be read", "give the path of a trace that MEMPROF_TRACE or bench trace record wrote");
  std::string bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
  static const unsigned char kZstdMagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kZstdMagic, 4) != 0) return bytes;
  std::string raw;
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::vector<char> out(ZSTD_DStreamOutSize());
  ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
  size_t last = 0;  // 0: the last frame was decoded and flushed whole
  for (;;) {
    ZSTD_outBuffer output{out.data(), out.size(), 0};
    last = ZSTD_decompressStream(ctx.get(), &output, &input);
    if (ZSTD_isError(last))
      fail(path, std::string("is damaged (zstd: ") + ZSTD_getErrorName(last) + ")", kRecordAgain);
    raw.append(out.data(), output.pos);
    if (input.pos == input.size && output.pos < output.size) break;
  }
  if (last != 0) fail(path, "is truncated (its last zstd frame is cut)", kRecordAgain);
  return raw;
}

bool is_alloc_op(uint8_t op) {
  switch (op) {
    case kMalloc: case kCalloc: case kMemalign: case kPosixMemalign: case kAlignedAlloc: case kNew:
    case kNewArray: case kNewAligned: case kNewArrayAligned: case kTmMalloc:
      return true;
    default:
      return false;
  }
}

bool is_free_op(uint8_t op) {
  return op == kFree || op == kDelete || op == kDeleteArray || op == kDeleteAligned || op == kDeleteArrayAligned;
}

// What happens to an address at one moment: a block dies (first at equal
// times) or is born. `slot` names the call and whether it is its old block.
struct AddressStep {
  uint64_t time;
  uint8_t born;  // 0 dies, 1 born
  uint32_t thread;
  uint64_t call;
  uint64_t addr;
};

struct RawCall {
  TraceEvent e;
  uint64_t start;
};

}  // namespace

const char* op_name(uint8_t op) {
  switch (op) {
    case kMalloc: return "malloc";
    case kCalloc: return "calloc";
    case kRealloc: return "realloc";
    case kFree: return "free";
    case kMemalign: return "memalign";
    case kPosixMemalign: return "posix_memalign";
    case kAlignedAlloc: return "aligned_alloc";
    case kNew: return "new";
    case kNewArray: return "new[]";
    case kNewAligned: return "new(align)";
    case kNewArrayAligned: return "new[](align)";
    case kDelete: return "delete";
    case kDeleteArray: return "delete[]";
    case kDeleteAligned: return "delete(align)";
    case kDeleteArrayAligned: return "delete[](align)";
    case kTmMalloc: return "_ITM_malloc";
    case kThreadStart: return "thread start";
    case kThreadEnd: return "thread end";
    case kPhaseBegin: return "phase begin";
    case kPhaseEnd: return "phase end";
    default: return "?";
  }
}

namespace {

// The header checked: magic, format version, sizes.
TraceHeader check_header(const std::string& path, const std::string& bytes) {
  if (bytes.size() < sizeof(TraceHeader))
    fail(path, "is not an allocation trace (shorter than its header)", kRecordAgain);
  TraceHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    fail(path, "is not an allocation trace (its first bytes are not ASTRACE1)",
         "give a file that MEMPROF_TRACE or bench trace record wrote");
  if (h.version != kVersion)
    fail(path, "is a trace of format version " + std::to_string(h.version) + "; this bench reads version " +
                   std::to_string(kVersion),
         "record it again with this allocstamp's libmemprof.so");
  if (h.header_bytes != sizeof(TraceHeader) || h.event_bytes != sizeof(TraceEvent))
    fail(path, "has a damaged header (sizes " + std::to_string(h.header_bytes) + "/" +
                   std::to_string(h.event_bytes) + " where " + std::to_string(sizeof(TraceHeader)) + "/" +
                   std::to_string(sizeof(TraceEvent)) + " belong)",
         kRecordAgain);
  return h;
}

// The chunks' events as read, before any renumbering: each thread's calls in
// its own order, its start and end, the phase marks, the trailer.
struct Chunks {
  std::vector<std::vector<RawCall>> raw;
  std::vector<ThreadCalls> threads;
  std::vector<std::pair<uint64_t, uint8_t>> marks;  // the phase marks: time, op
  TraceTrailer tail{};
  uint64_t events = 0;
};

// Reads every chunk after the header up to the trailer, each checked (its
// count, its checksum, its events' kinds), and the trailer against them.
Chunks read_chunks(const std::string& path, const std::string& bytes) {
  Chunks read;
  auto thread_slot = [&](uint32_t index) -> ThreadCalls& {
    if (index > 1u << 20) fail(path, "names thread " + std::to_string(index) + ": the trace is damaged", kRecordAgain);
    if (index >= read.threads.size()) {
      read.threads.resize(index + 1);
      read.raw.resize(index + 1);
      for (uint32_t i = 0; i < read.threads.size(); ++i) read.threads[i].index = i;
    }
    return read.threads[index];
  };
  size_t off = sizeof(TraceHeader);
  bool trailer_seen = false;
  while (off < bytes.size()) {
    uint32_t magic;
    if (bytes.size() - off < sizeof magic) break;
    std::memcpy(&magic, bytes.data() + off, sizeof magic);
    if (magic == kTrailerMagic) {
      if (bytes.size() - off < sizeof read.tail) break;
      std::memcpy(&read.tail, bytes.data() + off, sizeof read.tail);
      off += sizeof read.tail;
      trailer_seen = true;
      break;
    }
    if (magic != kChunkMagic)
      fail(path, "is damaged at byte " + std::to_string(off) + " (no chunk starts there)", kRecordAgain);
    if (bytes.size() - off < sizeof(TraceChunk)) break;
    TraceChunk c;
    std::memcpy(&c, bytes.data() + off, sizeof c);
    off += sizeof c;
    if (c.count > kEventsPerChunk)
      fail(path, "is damaged at byte " + std::to_string(off) + " (a chunk of " + std::to_string(c.count) +
                     " events)",
           kRecordAgain);
    const size_t n = size_t(c.count) * sizeof(TraceEvent);
    if (bytes.size() - off < n) break;
    if (checksum(bytes.data() + off, n) != c.checksum)
      fail(path, "is damaged at byte " + std::to_string(off) + " (a chunk's checksum does not match)", kRecordAgain);
    ThreadCalls& t = thread_slot(c.thread);
    for (uint32_t i = 0; i < c.count; ++i) {
      TraceEvent e;
      std::memcpy(&e, bytes.data() + off + size_t(i) * sizeof e, sizeof e);
      ++read.events;
      switch (e.op) {
        case kThreadStart: t.start_ns = e.time_ns; break;
        case kThreadEnd: t.end_ns = e.time_ns, t.ended = true; break;
        case kPhaseBegin: case kPhaseEnd: read.marks.push_back({e.time_ns, e.op}); break;
        default:
          if (!is_alloc_op(e.op) && !is_free_op(e.op) && e.op != kRealloc)
            fail(path, "holds an event of unknown kind " + std::to_string(e.op), kRecordAgain);
          read.raw[c.thread].push_back({e, e.op == kRealloc && e.extra <= e.time_ns ? e.time_ns - e.extra : e.time_ns});
      }
    }
    off += n;
  }
  if (!trailer_seen)
    fail(path, "is truncated (" + std::to_string(read.events) + " events read, no trailer): the program did not "
               "exit normally (killed by a signal, or it made a raw execve or exit_group system call, which memprof "
               "cannot see), or the file was cut",
         "record it again and let the program exit (memprof writes the trailer at exit)");
  if (off != bytes.size()) fail(path, "has bytes after its trailer", kRecordAgain);
  if (read.tail.events != read.events)
    fail(path, "says it holds " + std::to_string(read.tail.events) + " events but " + std::to_string(read.events) +
                   " were read (a write failed while recording?)",
         kRecordAgain);
  return read;
}

// The measured phase: the last begin mark and the first end mark after it
// (none: the whole run).
void set_phase(Trace& trace, std::vector<std::pair<uint64_t, uint8_t>> marks) {
  std::stable_sort(marks.begin(), marks.end());
  trace.phase_end_ns = trace.duration_ns;
  for (const auto& [time, op] : marks) {
    if (op == kPhaseBegin) trace.phase_begin_ns = time, trace.phase_end_ns = trace.duration_ns, trace.phase_end_marked = false;
    else trace.phase_end_ns = time, trace.phase_end_marked = true;
  }
}

// Each thread's times made strictly increasing (so that its order survives
// the sort), then every birth and death of an address, in time order.
std::vector<AddressStep> address_steps(std::vector<std::vector<RawCall>>& raw) {
  std::vector<AddressStep> steps;
  for (uint32_t ti = 0; ti < raw.size(); ++ti) {
    uint64_t last = 0;
    bool first = true;
    for (uint64_t ci = 0; ci < raw[ti].size(); ++ci) {
      RawCall& r = raw[ti][ci];
      if (!first && r.start <= last) r.start = last + 1;
      if (r.e.time_ns < r.start) r.e.time_ns = r.start;
      last = r.e.time_ns;
      first = false;
      const TraceEvent& e = r.e;
      if (e.op == kRealloc) {
        if (e.addr == 0) continue;  // failed: p untouched
        steps.push_back({r.start, 0, ti, ci, e.old_addr});
        steps.push_back({e.time_ns, 1, ti, ci, e.addr});
      } else if (is_alloc_op(e.op)) {
        if (e.addr != 0) steps.push_back({e.time_ns, 1, ti, ci, e.addr});
      } else if (!(e.flags & kUnknownBlock)) {
        steps.push_back({e.time_ns, 0, ti, ci, e.addr});
      }
    }
  }
  std::sort(steps.begin(), steps.end(), [](const AddressStep& a, const AddressStep& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.born != b.born) return a.born < b.born;
    if (a.thread != b.thread) return a.thread < b.thread;
    return a.call < b.call;
  });
  return steps;
}

// Each thread's calls as the trace gives them, without block ids yet.
void fill_calls(const std::vector<std::vector<RawCall>>& raw, std::vector<ThreadCalls>& threads) {
  for (uint32_t ti = 0; ti < raw.size(); ++ti) {
    threads[ti].calls.resize(raw[ti].size());
    for (uint64_t ci = 0; ci < raw[ti].size(); ++ci) {
      const RawCall& r = raw[ti][ci];
      Call& c = threads[ti].calls[ci];
      c = Call{};
      c.time_ns = r.e.time_ns;
      c.start_ns = r.start;
      c.size = r.e.size;
      c.align = r.e.op == kRealloc ? 0 : r.e.extra;
      c.op = r.e.op;
      c.region = r.e.region;
      c.failed = r.e.addr == 0 && (is_alloc_op(r.e.op) || r.e.op == kRealloc);
      c.unknown = (r.e.flags & kUnknownBlock) != 0;
      c.moved = r.e.op == kRealloc && r.e.addr != 0 && r.e.addr != r.e.old_addr;
    }
  }
}

// Addresses become ids: a block's id from its birth to its death; a death
// of an address no one holds is a free of an unknown block.
void number_blocks(const std::vector<AddressStep>& steps, std::vector<ThreadCalls>& threads, uint64_t& blocks) {
  std::unordered_map<uint64_t, uint64_t> live;  // address -> id
  live.reserve(steps.size() / 2 + 16);
  for (const AddressStep& s : steps) {
    Call& c = threads[s.thread].calls[s.call];
    if (s.born) {
      c.id = ++blocks;
      live[s.addr] = c.id;
    } else {
      auto it = live.find(s.addr);
      uint64_t id = 0;
      if (it != live.end()) {
        id = it->second;
        live.erase(it);
      }
      if (c.op == kRealloc) c.old_id = id;
      else c.id = id;
      if (id == 0) c.unknown = true;
    }
  }
}

}  // namespace

Trace read_trace(const std::string& path) {
  const std::string bytes = read_file(path);
  const TraceHeader h = check_header(path, bytes);
  Chunks read = read_chunks(path, bytes);
  Trace trace;
  trace.program.assign(h.program, strnlen(h.program, sizeof h.program));
  trace.pid = h.pid;
  trace.events = read.events;
  trace.duration_ns = read.tail.end_ns;
  set_phase(trace, std::move(read.marks));
  const std::vector<AddressStep> steps = address_steps(read.raw);
  fill_calls(read.raw, read.threads);
  number_blocks(steps, read.threads, trace.blocks);
  trace.threads = std::move(read.threads);
  return trace;
}

}  // namespace allocstamp::trace
