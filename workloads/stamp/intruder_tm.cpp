// intruder_tm.cpp — STAMP's intruder, written from its description: a
// stream of shuffled packet fragments; threads take packets (a transaction),
// reassemble flows in a shared red-black tree of per-flow fragment lists (a
// transaction that allocates list nodes, flow records, the reassembled buffer
// and a queue node), take completed flows from a shared queue (a transaction)
// and search them for attack signatures outside transactions. Verified: the
// attacks found are exactly the attacks generated.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "intruder.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
#include "rb_tree.h"

struct Packet {
  long flow, fragment, fragments;
  long length;
  const char* data;
};

struct Fragment {
  const Packet* packet;
  Fragment* next;
};

struct Flow {
  long received;
  Fragment* head;  // sorted by fragment number
};

struct Decoded {
  long flow;
  char* data;
  long length;
  Decoded* next;
};

struct Shared {
  std::vector<const Packet*> stream;
  long next_packet = 0;
  RbTree<long, Flow*> flows;
  Decoded* queue_head = nullptr;
  Decoded* queue_tail = nullptr;
};

const char* const kSignatures[] = {"about", "after", "again", "below", "could", "every", "first", "found"};
constexpr int kSignatureCount = 8;

__attribute__((noinline)) const Packet* tx_get_packet(Shared& s) {
  const Packet* p;
  TM_BEGIN
  p = s.next_packet < long(s.stream.size()) ? s.stream[size_t(s.next_packet)] : nullptr;
  if (p) s.next_packet = s.next_packet + 1;
  TM_END
  return p;
}

// Copies a fragment into the flow's buffer without instrumentation, as STAMP's
// decoder does with memcpy: the buffer was allocated by this very transaction (libitm
// frees it if the transaction aborts) and packet data is read-only input, so no other
// thread can see either side of the copy.
TM_PURE void copy_uninstrumented(char* to, const char* from, long length) { std::memcpy(to, from, size_t(length)); }

// Adds the fragment; when its flow is complete, reassembles it and queues it.
__attribute__((noinline)) void tx_decode(Shared& s, const Packet* p) {
  TM_BEGIN
  Flow* flow = s.flows.get(p->flow, nullptr);
  if (!flow) {
    flow = new Flow{0, nullptr};
    s.flows.insert(p->flow, flow);
  }
  Fragment** link = &flow->head;
  while (*link && (*link)->packet->fragment < p->fragment) link = &(*link)->next;
  *link = new Fragment{p, *link};
  flow->received = flow->received + 1;
  if (flow->received == p->fragments) {
    long length = 0;
    for (Fragment* f = flow->head; f; f = f->next) length += f->packet->length;
    char* data = static_cast<char*>(malloc(size_t(length) + 1));
    long at = 0;
    for (Fragment* f = flow->head; f;) {
      copy_uninstrumented(data + at, f->packet->data, f->packet->length);
      at += f->packet->length;
      Fragment* next = f->next;
      delete f;
      f = next;
    }
    data[length] = 0;
    s.flows.remove(p->flow);
    delete flow;
    Decoded* d = new Decoded{p->flow, data, length, nullptr};
    if (s.queue_tail) s.queue_tail->next = d;
    else s.queue_head = d;
    s.queue_tail = d;
  }
  TM_END
}

__attribute__((noinline)) Decoded* tx_take_decoded(Shared& s) {
  Decoded* d;
  TM_BEGIN
  d = s.queue_head;
  if (d) {
    s.queue_head = d->next;
    if (!s.queue_head) s.queue_tail = nullptr;
  }
  TM_END
  return d;
}

bool is_attack(const char* data) {
  for (int i = 0; i < kSignatureCount; ++i)
    if (std::strstr(data, kSignatures[i])) return true;
  return false;
}

IntruderResult run(const IntruderConfig& c) {
  // The input: flows of digits (which can never spell a signature); an attack
  // flow carries one signature. Each flow is cut into 1..max_packets fragments
  // and all fragments are shuffled into one stream.
  Random rng(c.seed);
  std::vector<std::string> flow_data(size_t(c.flows));
  std::vector<char> attack(size_t(c.flows), 0);
  std::vector<Packet> packets;
  for (long f = 0; f < c.flows; ++f) {
    long length = 16 + long(rng.below(uint64_t(c.max_packets) * 16));
    std::string& data = flow_data[size_t(f)];
    data.resize(size_t(length));
    for (char& ch : data) ch = char('0' + rng.below(10));
    if (long(rng.below(100)) < c.attack_percent) {
      const char* sig = kSignatures[rng.below(kSignatureCount)];
      size_t at = size_t(rng.below(uint64_t(length) - 5));
      data.replace(at, 5, sig);
      attack[size_t(f)] = 1;
    }
    long fragments = 1 + long(rng.below(uint64_t(c.max_packets)));
    if (fragments > length) fragments = length;
    long base = length / fragments;
    for (long k = 0, at = 0; k < fragments; ++k) {
      long piece = k + 1 == fragments ? length - at : base;
      packets.push_back({f, k, fragments, piece, data.data() + at});
      at += piece;
    }
  }
  Shared s;
  for (const Packet& p : packets) s.stream.push_back(&p);
  for (size_t i = s.stream.size(); i > 1; --i) std::swap(s.stream[i - 1], s.stream[size_t(rng.below(i))]);

  std::vector<std::vector<long>> found(size_t(c.threads));
  IntruderResult r;
  {
    memprof::region parallel(MEMPROF_PAR);
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < c.threads; ++t)
      workers.emplace_back([&, t] {
        for (;;) {
          const Packet* p = tx_get_packet(s);
          if (p) tx_decode(s, p);
          while (Decoded* d = tx_take_decoded(s)) {
            if (is_attack(d->data)) found[size_t(t)].push_back(d->flow);
            free(d->data);
            delete d;
          }
          if (!p) break;
        }
        ::allocstamp::tm::publish_thread_counts();
      });
    for (auto& w : workers) w.join();
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    memprof::phase_end();
  }
  std::vector<long> detected;
  for (auto& list : found) detected.insert(detected.end(), list.begin(), list.end());
  std::sort(detected.begin(), detected.end());
  std::vector<long> expected;
  for (long f = 0; f < c.flows; ++f)
    if (attack[size_t(f)]) expected.push_back(f);
  r.attacks_generated = long(expected.size());
  r.attacks_found = long(detected.size());
  r.exact = detected == expected && s.flows.size() == 0 && !s.queue_head;
  return r;
}
}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
