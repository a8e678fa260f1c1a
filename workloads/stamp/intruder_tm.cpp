// intruder_tm.cpp — STAMP's intruder (signature-based network intrusion
// detection), allocating as the original does. A generated stream of flows,
// each a string of 1..max_length bytes (an attack flow is one of the
// dictionary's signature words), is cut into packets (each its own heap block:
// a 32-byte header and its bytes) that are shuffled into one queue. Threads
// take a packet (a transaction), give it to the decoder (a transaction: a
// flow's fragments wait in a list held in a red-black tree keyed by flow; the
// last one reassembles the flow into a new buffer queued as a decoded record),
// take one decoded flow (a transaction) and search it for signatures outside
// transactions. Verified as STAMP does: every flow found is an attack and as
// many were found as generated; and here also: no flow is left undecoded.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <thread>

#include <memprof/memprof.h>

#include "intruder.h"
#include "runtime.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
#include "rb_tree.h"
#include "intruder_lib.h"

namespace {

// STAMP's generator record: a function-pointer slot and MT19937's state (5008 bytes).
struct RandomState {
  void* draw = nullptr;
  std::mt19937 mt;
};
static_assert(sizeof(RandomState) == 5008, "STAMP's random_t is 5008 bytes");

// STAMP's default signatures (its dictionary, in its order).
const char* const kSignatures[] = {
    "about", "after", "all",   "also",  "and",   "any",   "back",  "because", "but",   "can",  "come",  "could",
    "day",   "even",  "first", "for",   "from",  "get",   "give",  "good",    "have",  "him",  "how",   "into",
    "its",   "just",  "know",  "like",  "look",  "make",  "most",  "new",     "not",   "now",  "one",   "only",
    "other", "out",   "over",  "people", "say",  "see",   "she",   "some",    "take",  "than", "that",  "their",
    "them",  "then",  "there", "these", "they",  "think", "this",  "time",    "two",   "use",  "want",  "way",
    "well",  "what",  "when",  "which", "who",   "will",  "with",  "work",    "would", "year", "your"};
constexpr long kSignatureCount = long(sizeof(kSignatures) / sizeof(kSignatures[0]));
static_assert(kSignatureCount == 71, "STAMP has 71 signatures");

// STAMP's thread runtime keeps, per thread, a 152-byte barrier record (a mutex,
// two condition variables, two longs), an id and a thread handle; it allocates
// the three arrays before the app starts and frees them at shutdown.
constexpr size_t kBarrierRecordBytes = 152;

// ---- dictionary and detector ----

using Preprocessor = void (*)(char*);

PtrVector* dictionary_new() {
  PtrVector* d = vector_new(kSignatureCount);
  for (long s = 0; s < kSignatureCount; ++s) vector_push(d, const_cast<char*>(kSignatures[s]));
  return d;
}

const char* dictionary_match(const PtrVector* d, const char* str) {
  for (long s = 0; s < d->size; ++s) {
    const char* signature = static_cast<const char*>(d->elements[s]);
    if (std::strstr(str, signature)) return signature;
  }
  return nullptr;
}

void to_lower(char* str) {
  for (; *str; ++str)
    if (*str >= 'A' && *str <= 'Z') *str = char(*str - 'A' + 'a');
}

struct Detector {
  PtrVector* dictionary;
  PtrVector* preprocessors;  // of Preprocessor
};
static_assert(sizeof(Detector) == 16, "detector");

Detector* detector_new() {
  Detector* d = static_cast<Detector*>(malloc(sizeof(Detector)));
  d->dictionary = dictionary_new();
  d->preprocessors = vector_new(1);
  return d;
}

void detector_add(Detector* d, Preprocessor p) { vector_push(d->preprocessors, reinterpret_cast<void*>(p)); }

void detector_delete(Detector* d) {
  vector_delete(d->dictionary);
  vector_delete(d->preprocessors);
  free(d);
}

// Preprocesses str in place; true when it holds a signature.
bool detector_finds_attack(const Detector* d, char* str) {
  for (long p = 0; p < d->preprocessors->size; ++p) reinterpret_cast<Preprocessor>(d->preprocessors->elements[p])(str);
  return dictionary_match(d->dictionary, str) != nullptr;
}

// ---- the stream of packets ----

struct Stream {
  long percent_attack;
  RandomState* random;
  PtrVector* blocks;        // every flow string and packet it allocated
  PtrQueue* packets;        // of Packet*
  FlowMap<char*>* attacks;  // flow -> its string, for the attack flows
};
static_assert(sizeof(Stream) == 40, "stream");

Stream* stream_new(long percent_attack) {
  Stream* s = static_cast<Stream*>(malloc(sizeof(Stream)));
  s->percent_attack = percent_attack;
  s->random = new RandomState;
  s->blocks = vector_new(1);
  s->packets = queue_new(-1);
  s->attacks = new FlowMap<char*>;
  return s;
}

void stream_delete(Stream* s) {
  for (long i = 0; i < s->blocks->size; ++i) free(s->blocks->elements[i]);
  delete s->attacks;
  queue_delete(s->packets);
  vector_delete(s->blocks);
  delete s->random;
  free(s);
}

// Equal pieces but the last, which also takes the remainder.
void split_into_packets(Stream* s, const char* str, long flow) {
  long bytes = long(std::strlen(str));
  long count = long(s->random->mt() % uint64_t(bytes)) + 1;
  long piece = bytes / count;
  for (long k = 0; k < count; ++k) {
    long length = k + 1 < count ? piece : piece + bytes % count;
    Packet* p = static_cast<Packet*>(malloc(sizeof(Packet) + size_t(length)));
    vector_push(s->blocks, p);
    p->flow = flow;
    p->fragment = k;
    p->fragments = count;
    p->length = length;
    std::memcpy(packet_data(p), str + k * piece, size_t(length));
    queue_push(s->packets, p);
  }
}

// Flows 1..flows, then the packets shuffled; returns the number of attacks.
long stream_generate(Stream* s, const PtrVector* dictionary, long flows, uint64_t seed, long max_length) {
  std::mt19937& rng = s->random->mt;
  Detector* detector = detector_new();
  detector_add(detector, &to_lower);
  rng.seed(std::mt19937::result_type(seed));
  s->packets->pop = s->packets->capacity - 1;
  s->packets->push = 0;
  constexpr long kRange = '~' - ' ' + 1;  // printable ASCII
  long attacks = 0;
  for (long f = 1; f <= flows; ++f) {
    char* str;
    if (long(rng() % 100) < s->percent_attack) {
      long which = long(rng() % uint64_t(kSignatureCount));
      str = static_cast<char*>(dictionary->elements[which]);
      s->attacks->tree.insert(f, str);
      ++attacks;
    } else {
      long length = long(rng() % uint64_t(max_length)) + 1;
      str = static_cast<char*>(malloc(size_t(length) + 1));
      vector_push(s->blocks, str);
      for (long i = 0; i < length; ++i) str[i] = char(' ' + char(rng() % kRange));
      str[length] = 0;
      char* copy = static_cast<char*>(malloc(size_t(length) + 1));
      std::strcpy(copy, str);
      if (detector_finds_attack(detector, copy)) {  // a random string can hold a word
        s->attacks->tree.insert(f, str);
        ++attacks;
      }
      free(copy);
    }
    split_into_packets(s, str, f);
  }
  queue_shuffle(s->packets, rng);
  detector_delete(detector);
  return attacks;
}

// ---- the decoder ----

struct Decoded {
  long flow;
  char* data;
};
static_assert(sizeof(Decoded) == 16, "decoded record");

struct Decoder {
  FlowMap<FragmentList*>* fragmented;  // flow -> its fragments so far
  PtrQueue* decoded;                   // of Decoded*
};
static_assert(sizeof(Decoder) == 16, "decoder");

Decoder* decoder_new() {
  Decoder* d = static_cast<Decoder*>(malloc(sizeof(Decoder)));
  d->fragmented = new FlowMap<FragmentList*>;
  d->decoded = queue_new(1024);
  return d;
}

void decoder_delete(Decoder* d) {
  queue_delete(d->decoded);
  delete d->fragmented;
  free(d);
}

// Copies packet bytes without instrumentation, as STAMP's decoder does with
// memcpy: the buffer was allocated by this very transaction (libitm frees it if
// the transaction aborts) and packet bytes are read-only input.
TM_PURE void copy_uninstrumented(char* to, const char* from, long length) { std::memcpy(to, from, size_t(length)); }

void queue_decoded(Decoder* d, long flow, char* data) {
  Decoded* record = static_cast<Decoded*>(malloc(sizeof(Decoded)));
  record->flow = flow;
  record->data = data;
  queue_push(d->decoded, record);
}

// Inside a transaction: adds the packet; the flow's last fragment reassembles
// it. Returns false for a malformed packet or flow (the generator makes none).
bool decode(Decoder* d, const Packet* p, long bytes) {
  if (bytes < long(sizeof(Packet))) return false;
  long flow = p->flow, fragment = p->fragment, fragments = p->fragments, length = p->length;
  if (flow < 0 || fragment < 0 || fragment >= fragments || length < 0) return false;
  if (fragments == 1) {
    char* data = static_cast<char*>(malloc(size_t(length) + 1));
    data[length] = 0;
    copy_uninstrumented(data, packet_data(p), length);
    queue_decoded(d, flow, data);
    return true;
  }
  RbTree<long, FragmentList*>& map = d->fragmented->tree;
  FragmentList* list = map.get(flow, nullptr);
  if (!list) {
    list = fragment_list_new();
    fragment_list_insert(list, p);
    map.insert(flow, list);
    return true;
  }
  if (list->head.next->packet->fragments != fragments) {
    map.remove(flow);
    return false;
  }
  fragment_list_insert(list, p);
  if (list->size != fragments) return true;
  long total = 0, expected = 0;
  for (FragmentNode* n = list->head.next; n; n = n->next, ++expected) {
    if (n->packet->fragment != expected) {
      map.remove(flow);
      return false;
    }
    total += n->packet->length;
  }
  char* data = static_cast<char*>(malloc(size_t(total) + 1));
  data[total] = 0;
  long at = 0;
  for (FragmentNode* n = list->head.next; n; n = n->next) {
    copy_uninstrumented(data + at, packet_data(n->packet), n->packet->length);
    at += n->packet->length;
  }
  queue_decoded(d, flow, data);
  fragment_list_delete(list);
  map.remove(flow);
  return true;
}

// ---- the three transactions of the main loop ----

__attribute__((noinline)) Packet* tx_get_packet(Stream* s) {
  Packet* p;
  TM_BEGIN
  p = static_cast<Packet*>(queue_pop(s->packets));
  TM_END
  return p;
}

__attribute__((noinline)) bool tx_decode(Decoder* d, const Packet* p) {
  bool ok;
  TM_BEGIN
  ok = decode(d, p, long(sizeof(Packet)) + p->length);
  TM_END
  return ok;
}

// A decoded flow's bytes (its record freed), or null when none is waiting.
__attribute__((noinline)) char* tx_take_decoded(Decoder* d, long& flow) {
  char* data;
  TM_BEGIN
  Decoded* record = static_cast<Decoded*>(queue_pop(d->decoded));
  if (record) {
    flow = record->flow;
    data = record->data;
    free(record);
  } else {
    flow = -1;
    data = nullptr;
  }
  TM_END
  return data;
}

struct Shared {
  Stream* stream;
  Decoder* decoder;
  PtrVector** found;  // per thread: the flows it found attacks in
  std::atomic<long> malformed{0};
};

void process_packets(Shared& sh, long thread) {
  memprof::scope scope("detection");
  Detector* detector = detector_new();
  detector_add(detector, &to_lower);
  PtrVector* found = sh.found[thread];
  for (;;) {
    Packet* p = tx_get_packet(sh.stream);
    if (!p) break;
    long flow = p->flow;
    if (!tx_decode(sh.decoder, p)) {
      sh.malformed.fetch_add(1);
      vector_push(found, reinterpret_cast<void*>(flow));
    }
    long decoded_flow;
    char* data = tx_take_decoded(sh.decoder, decoded_flow);
    if (data) {
      bool attack = detector_finds_attack(detector, data);
      free(data);
      if (attack) vector_push(found, reinterpret_cast<void*>(decoded_flow));
    }
  }
  detector_delete(detector);
  ::allocstamp::tm::publish_thread_counts();
}

}  // namespace

IntruderResult run(const IntruderConfig& c) {
  IntruderResult r;
  memprof::phase_begin();  // STAMP's figures are its whole run
  size_t threads = size_t(c.threads);
  void* barriers = malloc(threads * kBarrierRecordBytes);
  long* ids = static_cast<long*>(malloc(threads * sizeof(long)));
  std::thread* handles = static_cast<std::thread*>(malloc(threads * sizeof(std::thread)));
  static_assert(sizeof(std::thread) == 8, "a thread handle is one word, as pthread_t");
  for (size_t t = 0; t < threads; ++t) ids[t] = long(t);
  asm volatile("" : : "r"(barriers) : "memory");  // kept: GCC drops an allocation nothing reads

  PtrVector* dictionary = nullptr;
  Stream* stream = nullptr;
  long attacks = 0;
  {
    memprof::scope scope("setup");  // the packet stream, apart from detection (scopes.csv)
    dictionary = dictionary_new();
    stream = stream_new(c.attack_percent);
    attacks = stream_generate(stream, dictionary, c.flows, c.seed, c.max_length);
  }
  Decoder* decoder = decoder_new();
  PtrVector** found = static_cast<PtrVector**>(malloc(threads * sizeof(PtrVector*)));
  for (size_t t = 0; t < threads; ++t) found[t] = vector_new(c.flows);

  Shared sh;
  sh.stream = stream;
  sh.decoder = decoder;
  sh.found = found;
  auto start = std::chrono::steady_clock::now();
  if (threads == 1) {
    process_packets(sh, 0);  // on the main thread, as STAMP's sequential build
  } else {
    memprof::region parallel(MEMPROF_PAR);
    for (size_t t = 1; t < threads; ++t) new (&handles[t]) std::thread(process_packets, std::ref(sh), ids[t]);
    process_packets(sh, 0);
    for (size_t t = 1; t < threads; ++t) {
      handles[t].join();
      handles[t].~thread();
    }
  }
  r.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());

  // STAMP's check: every flow found is an attack, and all were found. Ours
  // also: no packet was malformed and no flow is left in the decoder.
  long numbers_found = 0;
  bool all_attacks = true;
  for (size_t t = 0; t < threads; ++t) {
    numbers_found += found[t]->size;
    for (long i = 0; i < found[t]->size; ++i)
      if (!stream->attacks->tree.contains(reinterpret_cast<long>(found[t]->elements[i]))) all_attacks = false;
  }
  r.attacks_generated = attacks;
  r.attacks_found = numbers_found;
  r.exact = all_attacks && numbers_found == attacks && sh.malformed.load() == 0 &&
            decoder->fragmented->tree.size() == 0 && queue_empty(decoder->decoded);

  for (size_t t = 0; t < threads; ++t) vector_delete(found[t]);
  free(found);
  decoder_delete(decoder);
  stream_delete(stream);
  vector_delete(dictionary);
  free(barriers);
  free(ids);
  free(handles);
  memprof::phase_end();
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
