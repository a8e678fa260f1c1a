// genome_lists.h — the containers genome builds on, with the layouts of STAMP's
// (lib/list, lib/pair, lib/hashtable and genome's fixed table), so that every
// object is allocated with STAMP's size at STAMP's moment:
//   ListNode 16 B   one per element (inserted inside a transaction)
//   List     32 B   a header with its sentinel node embedded; kept sorted,
//                   no duplicates (STAMP builds genome with LIST_NO_DUPLICATES)
//   Pair     16 B   a hash set entry (key, value), inside a transaction
//   HashSet  48 B   header; buckets: (n + 1) list pointers, one List each
//   Table    16 B   header; buckets: n list pointers, one List each
// Headers, bucket arrays and lists are allocated outside transactions; nodes
// and pairs inside. Functions marked TM_SAFE run inside transactions.
// Include after tm.h, at file scope: it opens the build's namespace itself.
#pragma once
#include <cstdlib>
#include <cstring>

#ifndef ALLOCSTAMP_TM_BUILD
#error "include tm.h before genome_lists.h"
#endif

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD::genome {

// sdbm over a NUL-terminated string: the hash STAMP's genome uses for segment
// texts, and (one letter at a time) for their prefixes and suffixes. A step is
// hash * 65599 + letter (mod 2^64).
constexpr unsigned long kSdbm1 = 65599ul;
TM_SAFE inline unsigned long sdbm_step(unsigned long hash, char letter) {
  return (unsigned long)(long)letter + (hash << 6) + (hash << 16) - hash;
}
// The same value eight letters a step (the eight products are independent).
// Uninstrumented inside transactions: it reads only segment texts, which are
// written before the sequencer starts.
TM_PURE inline unsigned long sdbm(const char* text) {
  constexpr unsigned long p1 = kSdbm1, p2 = p1 * p1, p3 = p2 * p1, p4 = p3 * p1, p5 = p4 * p1, p6 = p5 * p1,
                          p7 = p6 * p1, p8 = p7 * p1;
  auto at = [text](size_t i) { return (unsigned long)(long)text[i]; };
  const size_t n = std::strlen(text);
  unsigned long hash = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    hash = hash * p8 + at(i) * p7 + at(i + 1) * p6 + at(i + 2) * p5 + at(i + 3) * p4 + at(i + 4) * p3 +
           at(i + 5) * p2 + at(i + 6) * p1 + at(i + 7);
  for (; i < n; ++i) hash = hash * p1 + at(i);
  return hash;
}
// <0, 0, >0 as the NUL-terminated texts compare. Uninstrumented inside
// transactions, as STAMP's comparison is: segment texts are written before
// the sequencer starts and only read while it runs.
TM_PURE inline long text_order(const char* a, const char* b) { return std::strcmp(a, b); }

struct ListNode {
  void* data;
  ListNode* next;
};

// How a list keeps its elements sorted.
enum ListOrder : long { kByAddress = 0, kByPairKey = 1 };

struct Pair {
  void* first;   // the key: a segment's text
  void* second;  // the value
};

struct List {
  ListNode head;  // sentinel; head.next is the first element
  long order;     // ListOrder
  long size;
};

TM_SAFE inline long list_compare(long order, void* a, void* b) {
  if (order == kByPairKey)
    return text_order(static_cast<const char*>(static_cast<Pair*>(a)->first),
                      static_cast<const char*>(static_cast<Pair*>(b)->first));
  return (long)a - (long)b;
}

inline List* list_alloc(long order) {
  List* list = static_cast<List*>(std::malloc(sizeof(List)));
  list->head.data = nullptr;
  list->head.next = nullptr;
  list->order = order;
  list->size = 0;
  return list;
}

// The node after which `data` belongs.
TM_SAFE inline ListNode* list_before(List* list, void* data) {
  ListNode* before = &list->head;
  for (ListNode* node = before->next; node; node = node->next) {
    if (list_compare(list->order, node->data, data) >= 0) break;
    before = node;
  }
  return before;
}

TM_SAFE inline void* list_find(List* list, void* data) {
  ListNode* node = list_before(list, data)->next;
  if (!node || list_compare(list->order, node->data, data) != 0) return nullptr;
  return node->data;
}

// False (and nothing allocated) when an equal element is there.
TM_SAFE inline bool list_insert(List* list, void* data) {
  ListNode* before = list_before(list, data);
  ListNode* after = before->next;
  if (after && list_compare(list->order, after->data, data) == 0) return false;
  ListNode* node = static_cast<ListNode*>(std::malloc(sizeof(ListNode)));
  node->data = data;
  node->next = after;
  before->next = node;
  list->size = list->size + 1;
  return true;
}

// Frees the list's nodes and header (not what they point to).
inline void list_free(List* list) {
  for (ListNode* node = list->head.next; node;) {
    ListNode* next = node->next;
    std::free(node);
    node = next;
  }
  std::free(list);
}

// A set of segment texts, chained per bucket in sorted lists of pairs. Its
// layout keeps STAMP's hash table header (hash and compare functions, resize
// ratio and growth factor; genome never resizes it).
struct HashSet {
  List** buckets;  // num_buckets + 1: the last is a spare STAMP's iterator uses
  long num_buckets;
  unsigned long (*hash)(const char*);
  long (*compare)(const char*, const char*);
  long resize_ratio;
  long growth_factor;
};

inline unsigned long hash_text(const char* text) { return sdbm(text); }
inline long compare_text(const char* a, const char* b) { return text_order(a, b); }

inline HashSet* hash_set_alloc(long num_buckets) {
  HashSet* set = static_cast<HashSet*>(std::malloc(sizeof(HashSet)));
  set->buckets = static_cast<List**>(std::malloc(size_t(num_buckets + 1) * sizeof(List*)));
  for (long i = 0; i < num_buckets + 1; ++i) set->buckets[i] = list_alloc(kByPairKey);
  set->num_buckets = num_buckets;
  set->hash = &hash_text;
  set->compare = &compare_text;
  set->resize_ratio = 3;
  set->growth_factor = 3;
  return set;
}

// Inside a transaction: adds (key, value) unless the key is there; a pair and
// a list node when it adds.
TM_SAFE inline bool hash_set_insert(HashSet* set, char* key, void* value) {
  List* chain = set->buckets[sdbm(key) % (unsigned long)set->num_buckets];
  Pair probe{key, nullptr};
  if (list_find(chain, &probe)) return false;
  Pair* pair = static_cast<Pair*>(std::malloc(sizeof(Pair)));
  pair->first = key;
  pair->second = value;
  if (!list_insert(chain, pair)) {
    std::free(pair);
    return false;
  }
  return true;
}

inline long hash_set_size(const HashSet* set) {
  long size = 0;
  for (long i = 0; i < set->num_buckets; ++i) size += set->buckets[i]->size;
  return size;
}

// Frees the pairs, the lists, the buckets and the header.
inline void hash_set_free(HashSet* set) {
  for (long i = 0; i < set->num_buckets + 1; ++i) {
    for (ListNode* node = set->buckets[i]->head.next; node; node = node->next) std::free(node->data);
    list_free(set->buckets[i]);
  }
  std::free(set->buckets);
  std::free(set);
}

// A fixed number of buckets chosen by a caller's hash; each a list sorted by address.
struct Table {
  List** buckets;
  long num_buckets;
};

inline Table* table_alloc(long num_buckets) {
  Table* table = static_cast<Table*>(std::malloc(sizeof(Table)));
  table->buckets = static_cast<List**>(std::malloc(size_t(num_buckets) * sizeof(List*)));
  for (long i = 0; i < num_buckets; ++i) table->buckets[i] = list_alloc(kByAddress);
  table->num_buckets = num_buckets;
  return table;
}

TM_SAFE inline bool table_insert(Table* table, unsigned long hash, void* data) {
  return list_insert(table->buckets[hash % (unsigned long)table->num_buckets], data);
}

// A table's lists and bucket array (the header is freed on its own: STAMP frees
// only the header, so genome frees the rest after its measured phase).
inline void table_free_buckets(List** buckets, long num_buckets) {
  for (long i = 0; i < num_buckets; ++i) list_free(buckets[i]);
  std::free(buckets);
}

static_assert(sizeof(ListNode) == 16 && sizeof(List) == 32 && sizeof(Pair) == 16, "STAMP's list and pair sizes");
static_assert(sizeof(HashSet) == 48 && sizeof(Table) == 16, "STAMP's hash table and table header sizes");

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD::genome
