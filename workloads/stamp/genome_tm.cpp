// genome_tm.cpp — STAMP's genome, object for object: a random gene (one
// text block), segments copied from it at random starts into one block (plus
// one block per segment added to close a gap), then the sequencer:
//   1. every segment goes into a shared hash set of texts, a fixed number of
//      segments per transaction (a pair and a list node per unique segment);
//   2a. each unique segment takes a construct entry (a transaction) and is
//      filed, one transaction each, in a table per prefix length by its
//      prefix's hash, and in one more table by its whole text's hash (a list
//      node each, inside the transaction);
//   2b. for overlaps from segment length - 1 down to 1, each chain's end looks
//      up segments whose prefix hash equals its suffix hash and links the first
//      that matches and starts a chain (a transaction per candidate);
//   3. the chains are copied into the sequence (one block).
// STAMP's structures keep their layouts (genome_lists.h, the structs below),
// its generator (MT19937) and draw order, so the inputs and every count are
// STAMP's. What STAMP frees at its end is freed before the measured phase
// ends; what it never frees (the hash set, the tables' lists and nodes, the
// sequence, the added segments) after. Verified as STAMP does: the sequence
// equals the gene.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>

#include <memprof/memprof.h>

#include "genome.h"
#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"

#include "genome_lists.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
namespace {

using namespace genome;

// Segments per transaction when deduplicating (STAMP builds genome with 12).
constexpr long kSegmentsPerTransaction = 12;

struct Bitmap {
  long num_bits;
  long num_words;
  unsigned long* bits;
};

struct Gene {
  long length;
  char* contents;   // length + 1 bytes
  Bitmap* starts;   // where segments start
};

struct Vector {
  long size;
  long capacity;
  void** elements;
};

struct Segments {
  long length;
  long min_num;
  Vector* contents;  // every segment's text
  char** strings;    // the first min_num, into one block
};

struct EndInfo {
  long is_end;        // nothing appended to this entry's segment yet
  long jump_to_next;  // to the next entry that may still be an end
};

struct ConstructEntry {
  long is_start;  // nothing prepended yet
  char* segment;
  unsigned long end_hash;  // hash of the suffix matched next
  ConstructEntry* start;   // first entry of this entry's chain (kept right at chain ends)
  ConstructEntry* next;
  ConstructEntry* end;     // last entry of this entry's chain (kept right at chain starts)
  long overlap;            // with next
  long length;             // of the chain (kept right at chain starts)
};

struct Sequencer {
  char* sequence;
  Segments* segments;
  HashSet* unique;
  EndInfo* end_info;
  Table** start_tables;  // [1, segment_length): by prefix length
  ConstructEntry* entries;
  Table* whole_table;    // by the whole text's hash
  long segment_length;
};

// One per thread: thread 0 counts arrivals in its own; each other thread is
// released through its own.
struct BarrierSlot {
  std::mutex lock;
  std::condition_variable arrived;
  std::condition_variable released;
  long count;
  long generation;
};

struct Threads {
  long count;
  BarrierSlot* barrier;  // count slots
  long* ids;             // count
  std::thread* handles;  // count; [0] unused (the main thread is thread 0)
};

static_assert(sizeof(StampRandom) == 5008, "STAMP's random_t");
static_assert(sizeof(Bitmap) == 24 && sizeof(Gene) == 24 && sizeof(Vector) == 24 && sizeof(Segments) == 32,
              "STAMP's bitmap, gene, vector and segments headers");
static_assert(sizeof(EndInfo) == 16 && sizeof(ConstructEntry) == 64 && sizeof(Sequencer) == 64,
              "STAMP's sequencer records");
static_assert(sizeof(BarrierSlot) == 152 && sizeof(std::thread) == 8, "STAMP's barrier and thread handle");

template <typename T>
T* allocate(long count = 1) {
  return static_cast<T*>(std::malloc(size_t(count) * sizeof(T)));
}

// --- threads (STAMP's thread_startup / thread_shutdown) ---

Threads thread_startup(long count) {
  Threads t;
  t.count = count;
  t.barrier = allocate<BarrierSlot>(count);
  for (long i = 0; i < count; ++i) {
    new (&t.barrier[i]) BarrierSlot();
    t.barrier[i].count = 0;
    t.barrier[i].generation = 0;
  }
  t.ids = allocate<long>(count);
  for (long i = 0; i < count; ++i) t.ids[i] = i;
  t.handles = allocate<std::thread>(count);
  return t;
}

void barrier_wait(Threads& t, long id) {
  if (t.count < 2) return;
  BarrierSlot& hub = t.barrier[0];
  if (id == 0) {
    std::unique_lock<std::mutex> hold(hub.lock);
    hub.arrived.wait(hold, [&] { return hub.count == t.count - 1; });
    hub.count = 0;
    hold.unlock();
    for (long i = 1; i < t.count; ++i) {
      BarrierSlot& own = t.barrier[i];
      {
        std::lock_guard<std::mutex> g(own.lock);
        ++own.generation;
      }
      own.released.notify_one();
    }
    return;
  }
  BarrierSlot& own = t.barrier[id];
  long generation;
  {
    std::lock_guard<std::mutex> g(own.lock);
    generation = own.generation;
  }
  {
    std::lock_guard<std::mutex> g(hub.lock);
    if (++hub.count == t.count - 1) hub.arrived.notify_one();
  }
  std::unique_lock<std::mutex> hold(own.lock);
  own.released.wait(hold, [&] { return own.generation != generation; });
}

// Runs body(id) on every thread, thread 0 being the caller.
template <typename Body>
void thread_run(Threads& t, Body body) {
  for (long i = 1; i < t.count; ++i)
    new (&t.handles[i]) std::thread([&t, &body, i] {
      body(t.ids[i]);
      ::allocstamp::tm::publish_thread_counts();
    });
  body(0);
  ::allocstamp::tm::publish_thread_counts();
  for (long i = 1; i < t.count; ++i) {
    t.handles[i].join();
    t.handles[i].~thread();
  }
}

void thread_shutdown(Threads& t) {
  for (long i = 0; i < t.count; ++i) t.barrier[i].~BarrierSlot();
  std::free(t.barrier);
  std::free(t.ids);
  std::free(t.handles);
}

// --- gene and segments ---

Gene* gene_alloc(long length) {
  Gene* gene = allocate<Gene>();
  gene->contents = allocate<char>(length + 1);
  gene->contents[length] = '\0';
  gene->length = length;
  Bitmap* bitmap = allocate<Bitmap>();
  bitmap->num_bits = length;
  bitmap->num_words = (length + 63) / 64;
  bitmap->bits = allocate<unsigned long>(bitmap->num_words);
  std::memset(bitmap->bits, 0, size_t(bitmap->num_words) * sizeof(unsigned long));
  gene->starts = bitmap;
  return gene;
}

void gene_create(Gene* gene, StampRandom* random) {
  static const char kBases[4] = {'a', 'c', 'g', 't'};
  for (long i = 0; i < gene->length; ++i) gene->contents[i] = kBases[(*random)() % 4];
}

bool bit_set(const Bitmap* b, long i) { return (b->bits[i / 64] >> (i % 64)) & 1ul; }
void set_bit(Bitmap* b, long i) { b->bits[i / 64] |= 1ul << (i % 64); }

Vector* vector_alloc(long capacity) {
  Vector* v = allocate<Vector>();
  v->size = 0;
  v->capacity = capacity < 1 ? 1 : capacity;
  v->elements = allocate<void*>(v->capacity);
  return v;
}

void vector_push(Vector* v, void* element) {
  if (v->size == v->capacity) {
    void** grown = allocate<void*>(v->capacity * 2);
    for (long i = 0; i < v->size; ++i) grown[i] = v->elements[i];
    std::free(v->elements);
    v->elements = grown;
    v->capacity *= 2;
  }
  v->elements[v->size++] = element;
}

Segments* segments_alloc(long length, long min_num) {
  Segments* s = allocate<Segments>();
  s->strings = allocate<char*>(min_num);
  char* block = allocate<char>(min_num * (length + 1));
  for (long i = 0; i < min_num; ++i) {
    s->strings[i] = block + i * (length + 1);
    s->strings[i][length] = '\0';
  }
  s->min_num = min_num;
  s->length = length;
  s->contents = vector_alloc(min_num);
  return s;
}

// A segment of its own block (to cover the gene's start or close a gap);
// STAMP never frees these.
void add_segment(Segments* s, Gene* gene, long start, NeverFreed& added) {
  char* text = allocate<char>(s->length + 1);
  added.add(text);
  text[s->length] = '\0';
  std::memcpy(text, gene->contents + start, size_t(s->length));
  vector_push(s->contents, text);
  set_bit(gene->starts, start);
}

void segments_create(Segments* s, Gene* gene, StampRandom* random, NeverFreed& added) {
  const long length = s->length;
  const long starts = gene->length - length + 1;
  for (long i = 0; i < s->min_num; ++i) {
    long start = long((*random)() % (unsigned long)starts);
    set_bit(gene->starts, start);
    std::memcpy(s->strings[i], gene->contents + start, size_t(length));
    vector_push(s->contents, s->strings[i]);
  }
  if (!bit_set(gene->starts, 0)) add_segment(s, gene, 0, added);
  // Every run of length - 1 starts without a segment ends in one, so that
  // neighbours overlap by at least one letter.
  for (long i = 0; i < starts; ++i) {
    long stop = i + length - 1 < starts ? i + length - 1 : starts;
    while (i < stop && !bit_set(gene->starts, i)) ++i;
    if (i == stop) {
      --i;
      add_segment(s, gene, i, added);
    }
  }
}

// --- the sequencer ---

Sequencer* sequencer_alloc(long gene_length, long segment_length, Segments* segments) {
  const long max_unique = gene_length - segment_length + 1;
  Sequencer* q = allocate<Sequencer>();
  q->sequence = nullptr;
  q->unique = hash_set_alloc(gene_length);
  q->end_info = allocate<EndInfo>(max_unique);
  for (long i = 0; i < max_unique; ++i) q->end_info[i] = EndInfo{1, 1};
  q->start_tables = allocate<Table*>(segment_length);
  q->start_tables[0] = nullptr;
  for (long i = 1; i < segment_length; ++i) q->start_tables[i] = table_alloc(gene_length);
  q->segment_length = segment_length;
  q->entries = allocate<ConstructEntry>(max_unique);
  for (long i = 0; i < max_unique; ++i) {
    ConstructEntry* e = &q->entries[i];
    *e = ConstructEntry{1, nullptr, 0, e, nullptr, e, 0, segment_length};
  }
  q->whole_table = table_alloc(gene_length);
  q->segments = segments;
  return q;
}

// [begin, end) of `total` for thread `id` of `threads`, rounded as STAMP's.
struct Share {
  long begin, end, size;
};
Share share(long total, long id, long threads) {
  long size = (total + threads / 2) / threads;
  long begin = id * size;
  return {begin, id == threads - 1 ? total : begin + size, size};
}

// Whether the first n letters agree; uninstrumented, as text_order.
TM_PURE bool same_letters(const char* a, const char* b, long n) { return std::strncmp(a, b, size_t(n)) == 0; }

// Links `start` after `end` when `start` still begins a chain other than
// end's and its first `overlap` letters are end's last.
TM_SAFE void try_link(EndInfo* end_info, long end_index, ConstructEntry* end, ConstructEntry* start,
                      long segment_length, long overlap) {
  if (!start->is_start || end->start == start ||
      !same_letters(start->segment, end->segment + (segment_length - overlap), overlap))
    return;
  start->is_start = 0;
  end_info[end_index].is_end = 0;
  ConstructEntry* chain_end = start->end;
  ConstructEntry* chain_start = end->start;
  chain_end->start = chain_start;
  end->next = start;
  chain_start->end = chain_end;
  end->overlap = overlap;
  chain_start->length = chain_start->length + start->length - overlap;
}

// Each transaction in a function of its own (the stm build's transactions
// save and restore the caller's registers; small callers keep that cheap).
__attribute__((noinline)) void tx_insert_segments(HashSet* unique, void** elements, long begin, long end) {
  TM_BEGIN
  for (long k = begin; k < end; ++k) {
    char* segment = static_cast<char*>(elements[k]);
    hash_set_insert(unique, segment, segment);
  }
  TM_END
}

// The first entry from `from` on without a segment takes `segment`.
TM_SAFE __attribute__((noinline)) long claim_entry(ConstructEntry* entries, long count, long from, char* segment) {
  while (entries[from].segment) from = (from + 1) % count;
  entries[from].segment = segment;
  return from;
}

__attribute__((noinline)) long tx_claim_entry(ConstructEntry* entries, long count, long from, char* segment) {
  long chosen;
  TM_BEGIN
  chosen = claim_entry(entries, count, from, segment);
  TM_END
  return chosen;
}

__attribute__((noinline)) void tx_file(Table* table, unsigned long hash, ConstructEntry* entry) {
  TM_BEGIN
  table_insert(table, hash, entry);
  TM_END
}

__attribute__((noinline)) void tx_try_link(EndInfo* end_info, long end_index, ConstructEntry* end,
                                           ConstructEntry* start, long segment_length, long overlap) {
  TM_BEGIN
  try_link(end_info, end_index, end, start, segment_length, overlap);
  TM_END
}

void sequencer_run(Sequencer* q, Threads& threads, long id) {
  const long n_threads = threads.count;
  HashSet* unique = q->unique;
  EndInfo* end_info = q->end_info;
  ConstructEntry* entries = q->entries;
  Vector* contents = q->segments->contents;
  const long segment_length = q->segment_length;

  // 1. Deduplicate.
  Share mine = share(contents->size, id, n_threads);
  for (long i = mine.begin; i < mine.end; i += kSegmentsPerTransaction) {
    long stop = i + kSegmentsPerTransaction < mine.end ? i + kSegmentsPerTransaction : mine.end;
    tx_insert_segments(unique, contents->elements, i, stop);
  }
  barrier_wait(threads, id);

  // 2a. Construct entries, and their prefixes filed by hash.
  const long num_unique = hash_set_size(unique);
  mine = share(unique->num_buckets, id, n_threads);
  long entry_index = num_unique ? (id * share(num_unique, id, n_threads).size) % num_unique : 0;
  for (long b = mine.begin; b < mine.end; ++b) {
    for (ListNode* node = unique->buckets[b]->head.next; node; node = node->next) {
      char* segment = static_cast<char*>(static_cast<Pair*>(node->data)->first);
      long chosen = tx_claim_entry(entries, num_unique, entry_index, segment);
      entry_index = (chosen + 1) % num_unique;
      ConstructEntry* entry = &entries[chosen];
      entry->end_hash = sdbm(segment + 1);
      unsigned long prefix_hash = 0;
      long j = 1;
      for (; j < segment_length; ++j) {
        prefix_hash = sdbm_step(prefix_hash, segment[j - 1]);
        tx_file(q->start_tables[j], prefix_hash, entry);
      }
      prefix_hash = sdbm_step(prefix_hash, segment[j - 1]);
      tx_file(q->whole_table, prefix_hash, entry);
    }
  }
  barrier_wait(threads, id);

  // 2b. Match chain ends to chain starts, longest overlap first.
  for (long overlap = segment_length - 1; overlap > 0; --overlap) {
    Table* table = q->start_tables[overlap];
    mine = share(num_unique, id, n_threads);
    for (long e = mine.begin; e < mine.end; e += end_info[e].jump_to_next) {
      if (!end_info[e].is_end) continue;
      ConstructEntry* end = &entries[e];
      List* chain = table->buckets[end->end_hash % (unsigned long)table->num_buckets];
      for (ListNode* node = chain->head.next; node; node = node->next) {
        ConstructEntry* start = static_cast<ConstructEntry*>(node->data);
        tx_try_link(end_info, e, end, start, segment_length, overlap);
        if (!end_info[e].is_end) break;
      }
    }
    barrier_wait(threads, id);

    // 2c. Thread 0: the remaining ends hash their next shorter suffix, and
    // each end's jump leads to the next end.
    if (id == 0 && overlap > 1) {
      const long from = segment_length - overlap + 1;
      long previous = 0;
      if (end_info[0].is_end) entries[0].end_hash = sdbm(entries[0].segment + from);
      long i = 1;
      while (i < num_unique && !end_info[i].is_end) i += end_info[i].jump_to_next;
      end_info[0].jump_to_next = i;
      for (; i < num_unique; i += end_info[i].jump_to_next) {
        if (!end_info[i].is_end) continue;
        entries[i].end_hash = sdbm(entries[i].segment + from);
        end_info[previous].jump_to_next = i - previous > 1 ? i - previous : 1;
        previous = i;
      }
      end_info[previous].jump_to_next = i - previous;
    }
    barrier_wait(threads, id);
  }

  // 3. Thread 0: the sequence, chain after chain.
  if (id == 0) {
    long total = 0;
    for (long i = 0; i < num_unique; ++i)
      if (entries[i].is_start) total += entries[i].length;
    char* sequence = allocate<char>(total + 1);
    long written = 0;
    for (long i = 0; i < num_unique; ++i) {
      if (!entries[i].is_start) continue;
      long chain_end = written + entries[i].length;
      char* at = sequence + written;
      written = chain_end;
      for (ConstructEntry* e = &entries[i]; e; e = e->next) {
        long letters = segment_length - e->overlap;
        if (at + letters > sequence + chain_end) break;  // a chain longer than its length says
        std::memcpy(at, e->segment, size_t(letters));
        at += letters;
      }
    }
    sequence[written] = '\0';
    q->sequence = sequence;
  }
}

}  // namespace

GenomeResult run(const GenomeConfig& c) {
  GenomeResult r;
  memprof::phase_begin();
  Threads threads = thread_startup(c.threads);

  StampRandom* random = stamp_random_new();
  random->mt.seed(uint32_t(c.seed - 1));
  Gene* gene = gene_alloc(c.gene_length);
  gene_create(gene, random);
  // What STAMP never frees, remembered outside the heap: the added segments
  // (at most one per start) and the tables' bucket arrays (one per table).
  NeverFreed added(size_t(c.gene_length - c.segment_length + 2));
  NeverFreed table_buckets(size_t(c.segment_length));
  Segments* segments = segments_alloc(c.segment_length, c.segments);
  segments_create(segments, gene, random, added);
  Sequencer* sequencer = sequencer_alloc(c.gene_length, c.segment_length, segments);

  auto start = std::chrono::steady_clock::now();
  thread_run(threads, [&](long id) { sequencer_run(sequencer, threads, id); });
  r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start).count());

  r.rebuilt = std::strcmp(gene->contents, sequencer->sequence) == 0;
  r.segments = segments->contents->size;
  r.unique_segments = hash_set_size(sequencer->unique);

  // The rest of what STAMP never frees: the hash set, the sequence, and the
  // tables' lists and nodes (through their bucket arrays).
  HashSet* unique = sequencer->unique;
  char* sequence = sequencer->sequence;
  for (long i = 1; i < c.segment_length; ++i) table_buckets.add(sequencer->start_tables[i]->buckets);
  table_buckets.add(sequencer->whole_table->buckets);

  // What STAMP frees at its end, in its order.
  std::free(sequencer->whole_table);
  std::free(sequencer->entries);
  for (long i = 1; i < c.segment_length; ++i) std::free(sequencer->start_tables[i]);
  std::free(sequencer->start_tables);
  std::free(sequencer->end_info);
  std::free(sequencer);
  std::free(segments->contents->elements[0]);  // the block of the first min_num texts
  std::free(segments->contents->elements);
  std::free(segments->contents);
  std::free(segments->strings);
  std::free(segments);
  std::free(gene->starts->bits);
  std::free(gene->starts);
  std::free(gene->contents);
  std::free(gene);
  stamp_random_delete(random);
  thread_shutdown(threads);
  memprof::phase_end();

  hash_set_free(unique);
  for (size_t i = 0; i < table_buckets.size(); ++i)
    table_free_buckets(static_cast<List**>(table_buckets[i]), c.gene_length);
  std::free(sequence);
  added.free_all();
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
