// replay_plan.cpp — writing, mapping and laying out replay plans (replay_plan.h).
#include "replay_plan.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <vector>

namespace allocstamp::trace {
namespace {

static_assert(std::is_trivially_copyable_v<Call>, "calls are written as they are");

// The plan of a trace, as bytes.
std::string lay_out(const Trace& trace) {
  PlanHeader h{};
  std::memcpy(h.magic, kPlanMagic, sizeof h.magic);
  h.version = kPlanVersion;
  h.threads = uint32_t(trace.threads.size());
  h.blocks = trace.blocks;
  h.call_bytes = sizeof(Call);
  std::strncpy(h.program, trace.program.c_str(), sizeof h.program - 1);
  std::vector<PlanThread> threads;
  for (const ThreadCalls& t : trace.threads) {
    threads.push_back({t.start_ns, t.end_ns, h.calls, t.calls.size(), t.ended ? 1u : 0u, 0});
    h.calls += t.calls.size();
  }
  // Ready from the start: every block no replayed call makes.
  std::vector<uint8_t> ready(trace.blocks + 1, 1);
  for (const ThreadCalls& t : trace.threads)
    for (const Call& c : t.calls)
      if (c.id && replayed(c) && (c.op == kRealloc || !is_release_op(c.op))) ready[c.id] = 0;
  std::string out;
  out.reserve(sizeof h + threads.size() * sizeof(PlanThread) + h.calls * sizeof(Call) + ready.size());
  out.append(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(reinterpret_cast<const char*>(threads.data()), threads.size() * sizeof(PlanThread));
  for (const ThreadCalls& t : trace.threads)
    out.append(reinterpret_cast<const char*>(t.calls.data()), t.calls.size() * sizeof(Call));
  out.append(reinterpret_cast<const char*>(ready.data()), ready.size());
  return out;
}

}  // namespace

bool is_release_op(uint8_t op) {
  return op == kFree || op == kDelete || op == kDeleteArray || op == kDeleteAligned || op == kDeleteArrayAligned;
}

std::string plan_bytes(const Trace& trace) { return lay_out(trace); }

Plan::Plan(const std::string& path) {
  const char* base = nullptr;
  std::size_t size = 0;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw TraceError(path + ": cannot be read — check the path");
  char magic[8] = {};
  struct stat st {};
  bool is_plan = fstat(fd, &st) == 0 && pread(fd, magic, sizeof magic, 0) == ssize_t(sizeof magic) &&
                 std::memcmp(magic, kPlanMagic, sizeof magic) == 0;
  if (is_plan) {
    map_bytes_ = std::size_t(st.st_size);
    // Not populated: the kernel maps 16 page-cache pages per fault, so reading
    // costs no measurable time (24 ms with or without MAP_POPULATE on a 1.2 M
    // call trace), and the peak RSS stays the allocator's.
    map_ = mmap(nullptr, map_bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map_ == MAP_FAILED) throw TraceError(path + ": cannot be mapped — check the free memory");
    base = static_cast<const char*>(map_);
    size = map_bytes_;
  } else {
    close(fd);
    in_memory_ = lay_out(read_trace(path));
    base = in_memory_.data();
    size = in_memory_.size();
  }
  header_ = reinterpret_cast<const PlanHeader*>(base);
  const std::string damaged = path + ": a damaged replay plan — delete it; bench trace replay writes it again";
  if (size < sizeof(PlanHeader) || header_->version != kPlanVersion || header_->call_bytes != sizeof(Call))
    throw TraceError(damaged);
  std::size_t need = sizeof(PlanHeader) + header_->threads * sizeof(PlanThread) + header_->calls * sizeof(Call) +
                     header_->blocks + 1;
  if (size != need) throw TraceError(damaged);
  threads_ = reinterpret_cast<const PlanThread*>(base + sizeof(PlanHeader));
  calls_ = reinterpret_cast<const Call*>(base + sizeof(PlanHeader) + header_->threads * sizeof(PlanThread));
  ready_ = reinterpret_cast<const uint8_t*>(calls_ + header_->calls);
}

Plan::~Plan() {
  if (map_) munmap(map_, map_bytes_);
}

void Plan::passed(uint64_t from, uint64_t to) const {
  if (!map_ || to <= from) return;
  const long page = sysconf(_SC_PAGESIZE);
  auto lo = reinterpret_cast<uintptr_t>(calls_ + from), hi = reinterpret_cast<uintptr_t>(calls_ + to);
  lo = (lo + uintptr_t(page) - 1) & ~uintptr_t(page - 1);
  hi &= ~uintptr_t(page - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

}  // namespace allocstamp::trace
