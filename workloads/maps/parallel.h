// parallel.h — runs a body on N threads (thread index 0..N-1), inline on the main
// thread when N is 1, with memprof's region set to par or seq to match; and the
// first problem any thread meets, kept once.
#pragma once
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

namespace allocstamp::maps {

template <typename Body>
void on_threads(int threads, Body body) {
  if (threads == 1) {
    memprof::region seq(MEMPROF_SEQ);
    body(0);
    return;
  }
  memprof::region par(MEMPROF_PAR);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (int t = 0; t < threads; ++t) workers.emplace_back(body, t);
  for (auto& w : workers) w.join();
}

class FirstProblem {
 public:
  void report(std::string problem) {
    std::lock_guard<std::mutex> hold(mutex_);
    if (problem_.empty()) problem_ = std::move(problem);
    seen_.store(true, std::memory_order_relaxed);
  }
  bool seen() const { return seen_.load(std::memory_order_relaxed); }
  std::string take() { return std::move(problem_); }

 private:
  std::mutex mutex_;
  std::atomic<bool> seen_{false};
  std::string problem_;
};

}  // namespace allocstamp::maps
