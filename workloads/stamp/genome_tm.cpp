// genome_tm.cpp — STAMP's genome, written from its description: segments
// sampled from an unknown gene are (1) deduplicated in a shared hash set,
// (2) matched end-to-start, longest overlap first, through shared hash tables
// of segment prefixes, each link made in a transaction, and (3) followed from
// the one segment without a predecessor to rebuild the gene. Phases 1 and 2
// allocate small hash and list nodes inside transactions. Verified: the
// sequence equals the gene.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "genome.h"
#include "random.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {

// A shared set of byte strings of one length (the segments, or their prefixes).
struct StringSet {
  struct Node {
    const char* text;
    long id;
    Node* next;
  };
  explicit StringSet(long buckets) : heads(size_t(buckets), nullptr) {}
  std::vector<Node*> heads;
  static unsigned long hash(const char* text, long length) {
    unsigned long h = 1469598103934665603ul;
    for (long i = 0; i < length; ++i) h = (h ^ (unsigned char)text[i]) * 1099511628211ul;
    return h;
  }
  static bool same(const char* a, const char* b, long length) {
    for (long i = 0; i < length; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  void destroy() {
    for (Node*& head : heads)
      while (head) {
        Node* next = head->next;
        delete head;
        head = next;
      }
  }
};

// Inserts text unless an equal one is there; true when inserted.
__attribute__((noinline)) bool tx_insert_unique(StringSet& set, const char* text, long length, long id) {
  bool inserted;
  size_t b = size_t(StringSet::hash(text, length) % set.heads.size());
  TM_BEGIN
  inserted = true;
  for (StringSet::Node* n = set.heads[b]; n && inserted; n = n->next)
    if (StringSet::same(n->text, text, length)) inserted = false;
  if (inserted) set.heads[b] = new StringSet::Node{text, id, set.heads[b]};
  TM_END
  return inserted;
}

// Links segment `from` to the first segment in `candidates` whose prefix
// equals its suffix and that has no predecessor yet.
__attribute__((noinline)) bool tx_link(std::vector<long>& next, std::vector<char>& has_prev, std::vector<int>& overlap,
                                       const StringSet& prefixes, const char* suffix, long length, long from) {
  bool linked = false;
  size_t b = size_t(StringSet::hash(suffix, length) % prefixes.heads.size());
  TM_BEGIN
  linked = false;
  if (next[size_t(from)] < 0)
    for (const StringSet::Node* n = prefixes.heads[b]; n && !linked; n = n->next)
      if (n->id != from && !has_prev[size_t(n->id)] && StringSet::same(n->text, suffix, length)) {
        next[size_t(from)] = n->id;
        has_prev[size_t(n->id)] = 1;
        overlap[size_t(from)] = int(length);
        linked = true;
      }
  TM_END
  return linked;
}

template <typename Body>
void in_parallel(int threads, long n, Body body) {
  std::atomic<long> cursor{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (;;) {
        long first = cursor.fetch_add(64);
        if (first >= n) break;
        for (long i = first; i < first + 64 && i < n; ++i) body(i);
      }
      ::allocstamp::tm::publish_thread_counts();
    });
  for (auto& w : workers) w.join();
}

// No substring of `k` letters occurs twice: overlaps of k or more letters are
// then unambiguous, as the reconstruction needs.
bool unique_kmers(const std::string& gene, long k) {
  std::vector<std::string> kmers;
  for (long i = 0; i + k <= long(gene.size()); ++i) kmers.push_back(gene.substr(size_t(i), size_t(k)));
  std::sort(kmers.begin(), kmers.end());
  return std::adjacent_find(kmers.begin(), kmers.end()) == kmers.end();
}

GenomeResult run(const GenomeConfig& c) {
  const long s = c.segment_length;
  const long min_overlap = s / 2;
  // The gene: random bases, drawn again until every (s/2)-letter substring is unique.
  Random rng(c.seed);
  std::string gene;
  do {
    gene.resize(size_t(c.gene_length));
    for (char& base : gene) base = "acgt"[rng.below(4)];
  } while (!unique_kmers(gene, min_overlap));
  // Segments: one every s/2 letters (so neighbours overlap by s/2), then random ones.
  std::vector<long> starts;
  for (long at = 0;; at += s / 2) {
    if (at > c.gene_length - s) at = c.gene_length - s;
    starts.push_back(at);
    if (at == c.gene_length - s) break;
  }
  while (long(starts.size()) < c.segments) starts.push_back(long(rng.below(uint64_t(c.gene_length - s + 1))));
  for (size_t i = starts.size(); i > 1; --i) std::swap(starts[i - 1], starts[size_t(rng.below(i))]);
  std::vector<std::string> segments;
  segments.reserve(starts.size());
  for (long at : starts) segments.push_back(gene.substr(size_t(at), size_t(s)));

  GenomeResult r;
  std::string sequence;
  {
    memprof::region parallel(MEMPROF_PAR);
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    // (1) Deduplicate.
    const long n = long(segments.size());
    StringSet unique(n / 4 + 1);
    std::vector<char> kept(size_t(n), 0);
    in_parallel(c.threads, n, [&](long i) { kept[size_t(i)] = tx_insert_unique(unique, segments[size_t(i)].data(), s, i); });
    std::vector<long> ids;  // unique segment -> index into `segments`
    for (long i = 0; i < n; ++i)
      if (kept[size_t(i)]) ids.push_back(i);
    const long u = long(ids.size());
    // (2) Match, longest overlap first.
    std::vector<long> next(size_t(u), -1);
    std::vector<char> has_prev(size_t(u), 0);
    std::vector<int> overlap(size_t(u), 0);
    for (long length = s - 1; length >= min_overlap; --length) {
      StringSet prefixes(u / 2 + 1);
      in_parallel(c.threads, u, [&](long k) {
        if (!has_prev[size_t(k)]) tx_insert_unique(prefixes, segments[size_t(ids[size_t(k)])].data(), length, k);
      });
      in_parallel(c.threads, u, [&](long k) {
        if (next[size_t(k)] < 0)
          tx_link(next, has_prev, overlap, prefixes, segments[size_t(ids[size_t(k)])].data() + (s - length), length, k);
      });
      prefixes.destroy();
    }
    // (3) Sequence from the one segment without a predecessor.
    long head = -1, heads = 0;
    for (long k = 0; k < u; ++k)
      if (!has_prev[size_t(k)]) head = k, ++heads;
    if (heads == 1) {
      sequence = segments[size_t(ids[size_t(head)])];
      for (long k = head; next[size_t(k)] >= 0 && long(sequence.size()) <= c.gene_length; k = next[size_t(k)])
        sequence += segments[size_t(ids[size_t(next[size_t(k)])])].substr(size_t(overlap[size_t(k)]));
    }
    r.unique_segments = u;
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    memprof::phase_end();
    unique.destroy();
  }
  r.rebuilt = sequence == gene;
  return r;
}
}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
