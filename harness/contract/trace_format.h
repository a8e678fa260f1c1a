// trace_format.h — the allocation trace's file layout, shared by its one writer
// (memprof, MEMPROF_TRACE=path) and its one reader (harness/driver/trace_reader).
// Plain structs and constants only: memprof includes it inside malloc.
//
// A trace is a header, then chunks, then a trailer:
//   TraceHeader                 once, written when recording starts
//   TraceChunk + events[count]  one thread's events, in that thread's order;
//                               chunks of different threads interleave
//   TraceTrailer                once, at exit (or at an exec into a program
//                               without memprof): its totals tell a complete
//                               trace from a truncated one
// Events name blocks by address as the allocator returned them; every reader
// renumbers them to dense block ids (trace_reader.h), so nothing downstream
// depends on where an allocator put a block. Little-endian, x86_64.
#pragma once
#include <stdint.h>

namespace allocstamp::trace {

constexpr char kMagic[8] = {'A', 'S', 'T', 'R', 'A', 'C', 'E', '1'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kChunkMagic = 0x4b4e4843;    // "CHNK"
constexpr uint32_t kTrailerMagic = 0x444e4554;  // "TEND"
constexpr uint32_t kEventsPerChunk = 2048;

// What the program called. Aligned forms carry their alignment in `extra`.
enum Op : uint8_t {
  kMalloc = 1,
  kCalloc = 2,
  kRealloc = 3,  // old_addr → addr; extra = the call's duration in ns (its start is time_ns - extra)
  kFree = 4,
  kMemalign = 5,  // memalign, valloc, pvalloc
  kPosixMemalign = 6,
  kAlignedAlloc = 7,
  kNew = 8,
  kNewArray = 9,
  kNewAligned = 10,
  kNewArrayAligned = 11,
  kDelete = 12,
  kDeleteArray = 13,
  kDeleteAligned = 14,
  kDeleteArrayAligned = 15,
  kTmMalloc = 16,  // _ITM_malloc and the other allocations GCC's TM code calls (frees are kFree, region tx)
  kThreadStart = 30,  // the thread's first event
  kThreadEnd = 31,    // it ended (not written for threads alive at exit)
  kPhaseBegin = 32,   // memprof_phase_begin: the measured phase starts
  kPhaseEnd = 33,     // memprof_phase_end
};

// Region as memprof counted it: 0 seq, 1 par, 2 tx, 3 libitm's own.
struct TraceEvent {
  uint64_t time_ns;   // since the header's start_ns (CLOCK_MONOTONIC); allocations: after the call returned
  uint64_t addr;      // the block returned (allocations, realloc) or released (frees); 0: the call failed
  uint64_t old_addr;  // realloc: the block passed in
  uint64_t size;      // requested bytes
  uint32_t extra;     // alignment (aligned ops), duration (realloc)
  uint8_t op;
  uint8_t region;
  uint16_t flags;     // kUnknownBlock: a free of a block memprof never saw
};
static_assert(sizeof(TraceEvent) == 40, "a trace event is 40 bytes");
constexpr uint16_t kUnknownBlock = 1;

struct TraceHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // sizeof(TraceHeader)
  uint32_t event_bytes;   // sizeof(TraceEvent)
  uint32_t pid;
  uint64_t start_ns;      // CLOCK_MONOTONIC when memprof started (its measured phase's zero)
  uint64_t clock_id;      // CLOCK_MONOTONIC
  char program[256];      // /proc/self/cmdline's first word
};

struct TraceChunk {
  uint32_t magic;     // kChunkMagic
  uint32_t thread;    // thread index: 0 the main thread, then in order of first event
  uint32_t count;     // events that follow
  uint32_t checksum;  // of the events' bytes (checksum() below)
};

struct TraceTrailer {
  uint32_t magic;  // kTrailerMagic
  uint32_t threads;
  uint64_t events;  // events in all chunks
  uint64_t end_ns;  // since start_ns
};

// FNV-1a over 32-bit words: cheap enough for every chunk, catches a flipped bit.
inline uint32_t checksum(const void* data, uint64_t bytes) {
  const uint32_t* w = static_cast<const uint32_t*>(data);
  uint32_t h = 2166136261u;
  for (uint64_t i = 0; i < bytes / 4; ++i) h = (h ^ w[i]) * 16777619u;
  return h;
}

}  // namespace allocstamp::trace
