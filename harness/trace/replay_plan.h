// replay_plan.h — a trace made ready for the replay: its calls renumbered and
// laid out flat, thread by thread, with the blocks no replayed call makes
// (libitm's own) marked. `bench trace replay` writes it once, outside the
// measured process, and the replay maps it read-only and drops the pages it
// has passed, so the replay's own memory is its block table (14 bytes per
// block), not the trace: the peak RSS measured is the allocator's.
//
// Layout: PlanHeader, PlanThread[threads], Call[calls], then one byte per
// block id 0..blocks (1: ready from the start, nothing replayed makes it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "trace_reader.h"

namespace allocstamp::trace {

constexpr char kPlanMagic[8] = {'A', 'S', 'P', 'L', 'A', 'N', '1', 0};
constexpr uint32_t kPlanVersion = 1;

struct PlanHeader {
  char magic[8];
  uint32_t version;
  uint32_t threads;
  uint64_t blocks;
  uint64_t calls;
  uint32_t call_bytes;  // sizeof(Call)
  uint32_t reserved;
  char program[256];
};

struct PlanThread {
  uint64_t start_ns, end_ns;
  uint64_t first, count;  // its calls: [first, first + count) of the flat array
  uint32_t ended;
  uint32_t reserved;
};

// A call is replayed unless it failed or is libitm's own (region 3).
inline bool replayed(const Call& c) { return !c.failed && c.region != 3; }
bool is_release_op(uint8_t op);

// The plan of `trace`, as the bytes of its file (the caller writes it where
// and how it may: bench names it by its digest, beside the trace).
std::string plan_bytes(const Trace& trace);

// A plan mapped read-only.
class Plan {
 public:
  // Maps `path`: a plan, or a trace (read and laid out in memory: the replay run
  // directly on a trace, at the cost of holding it). Throws TraceError.
  explicit Plan(const std::string& path);
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  const PlanHeader& header() const { return *header_; }
  const PlanThread& thread(uint32_t i) const { return threads_[i]; }
  const Call* calls() const { return calls_; }
  bool ready_at_start(uint64_t id) const { return ready_[id] != 0; }
  // The pages of calls [from, to) are no longer needed (a mapped plan drops them).
  void passed(uint64_t from, uint64_t to) const;

 private:
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  std::string in_memory_;  // a trace laid out as a plan, when given a trace
  const PlanHeader* header_ = nullptr;
  const PlanThread* threads_ = nullptr;
  const Call* calls_ = nullptr;
  const uint8_t* ready_ = nullptr;
};

}  // namespace allocstamp::trace
