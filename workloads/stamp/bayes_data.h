// bayes_data.h — bayes's input, as STAMP's bayes/data.c and sort.c make it:
// a random network (bayes_net.h), a probability threshold per variable and
// combination of its parents' values, then numRecord records of numVar
// 0/1 values drawn in dependency order, all from STAMP's MT19937 in STAMP's
// draw order (so the records are STAMP's). Blocks, all outside transactions:
//   Data 32 B header + one numVar * numRecord byte block of records
//   while generating: a threshold table (8 B per variable, 8 B per threshold),
//   the order (8 B per variable), a queue, a vector and two bitmaps.
// Records are sorted (for the AD-tree) by STAMP's quicksort over records
// compared from a given variable on. Include inside the build's namespace
// after bayes_net.h.
#pragma once

struct Data {
  long num_var;
  long num_record;
  char* records;   // record r is records[r * num_var .. (r + 1) * num_var)
  StampRandom* random;
};
static_assert(sizeof(Data) == 32, "STAMP's data_t");

// Not 0 or 1: a value not yet drawn.
constexpr char kDataInit = 2;

inline Data* data_new(long num_var, long num_record, StampRandom* random) {
  Data* d = static_cast<Data*>(malloc(sizeof(Data)));
  const long n = num_var * num_record;
  d->records = static_cast<char*>(malloc(size_t(n)));
  std::memset(d->records, kDataInit, size_t(n));
  d->num_var = num_var;
  d->num_record = num_record;
  d->random = random;
  return d;
}

inline void data_delete(Data* d) {
  free(d->records);
  free(d);
}

// Draws the network (returned; the caller frees it) and the records.
inline Net* data_generate(Data* d, long max_num_parent, long percent_parent) {
  constexpr long kPrecision = 100;
  StampRandom& random = *d->random;
  const long num_var = d->num_var;
  Net* net = net_new(num_var);
  net_generate_random_edges(net, max_num_parent, percent_parent, random);

  // A threshold per combination of each variable's parents' values.
  long** thresholds = static_cast<long**>(malloc(size_t(num_var) * sizeof(long*)));
  for (long v = 0; v < num_var; ++v) {
    long n = 1l << net_parents(net, v)->size;
    long* t = static_cast<long*>(malloc(size_t(n) * sizeof(long)));
    for (long i = 0; i < n; ++i) t[i] = long(random() % (unsigned long)(kPrecision + 1));
    thresholds[v] = t;
  }

  // An order in which every variable comes after its parents: from each leaf,
  // its ancestors breadth first, taken back to front.
  long* order = static_cast<long*>(malloc(size_t(num_var) * sizeof(long)));
  long num_order = 0;
  PtrQueue* work = queue_new(-1);
  PtrVector* dependencies = vector_new(1);
  Bitmap* ordered = bitmap_new(num_var);
  Bitmap* done = bitmap_new(num_var);
  for (long v = bitmap_find_clear(done, 0); v >= 0; v = bitmap_find_clear(done, v + 1)) {
    if (net_children(net, v)->size != 0) continue;
    queue_clear(work);
    queue_push(work, id_item(v));
    while (!queue_empty(work)) {
      long id = item_id(queue_pop(work));
      bitmap_set(done, id);
      vector_push(dependencies, id_item(id));
      for (IdList::Node* n = net_parents(net, id)->head.next; n; n = n->next) queue_push(work, n->data);
    }
    for (long n = dependencies->size; n > 0; --n) {
      long id = item_id(dependencies->elements[--dependencies->size]);
      if (!bitmap_is_set(ordered, id)) {
        bitmap_set(ordered, id);
        order[num_order++] = id;
      }
    }
  }

  char* record = d->records;
  for (long r = 0; r < d->num_record; ++r, record += num_var) {
    for (long o = 0; o < num_order; ++o) {
      long v = order[o];
      long index = 0;
      for (IdList::Node* n = net_parents(net, v)->head.next; n; n = n->next)
        index = (index << 1) + record[item_id(n->data)];
      long draw = long(random() % (unsigned long)kPrecision);
      record[v] = draw < thresholds[v][index] ? 1 : 0;
    }
  }

  bitmap_delete(done);
  bitmap_delete(ordered);
  vector_delete(dependencies);
  queue_delete(work);
  free(order);
  for (long v = 0; v < num_var; ++v) free(thresholds[v]);
  free(thresholds);
  return net;
}

// ---- sorting records (bayes/sort.c): quicksort with an explicit stack,
// short ranges by selection, records compared byte by byte from `offset` ----

struct RecordOrder {
  long width;
  long offset;
  int compare(const char* a, const char* b) const {
    for (long i = offset; i < width; ++i)
      if (a[i] != b[i]) return int((unsigned char)a[i]) - int((unsigned char)b[i]);
    return 0;
  }
  void swap(char* a, char* b) const {
    if (a == b) return;
    for (long i = 0; i < width; ++i) {
      char t = a[i];
      a[i] = b[i];
      b[i] = t;
    }
  }
};

inline void sort_records(char* base, long num, const RecordOrder& o) {
  constexpr long kCutoff = 8;
  const long w = o.width;
  if (num < 2 || w == 0) return;
  char* low_stack[30];
  char* high_stack[30];
  int top = 0;
  char* lo = base;
  char* hi = base + w * (num - 1);
  for (;;) {
    long size = (hi - lo) / w + 1;
    if (size <= kCutoff) {
      // Selection: the largest of [lo, hi] to hi, then shrink.
      while (hi > lo) {
        char* max = lo;
        for (char* p = lo + w; p <= hi; p += w)
          if (o.compare(p, max) > 0) max = p;
        o.swap(max, hi);
        hi -= w;
      }
    } else {
      o.swap(lo + (size / 2) * w, lo);  // the middle record is the pivot
      char* left = lo;
      char* right = hi + w;
      for (;;) {
        do left += w;
        while (left <= hi && o.compare(left, lo) <= 0);
        do right -= w;
        while (right > lo && o.compare(right, lo) >= 0);
        if (right < left) break;
        o.swap(left, right);
      }
      o.swap(lo, right);
      // The larger side waits on the stack; the smaller goes next.
      if (right - 1 - lo >= hi - left) {
        if (lo + w < right) low_stack[top] = lo, high_stack[top] = right - w, ++top;
        if (left < hi) {
          lo = left;
          continue;
        }
      } else {
        if (left < hi) low_stack[top] = left, high_stack[top] = hi, ++top;
        if (lo + w < right) {
          hi = right - w;
          continue;
        }
      }
    }
    if (--top < 0) return;
    lo = low_stack[top];
    hi = high_stack[top];
  }
}

// Sorts records [start, start + num) by their values from variable `offset` on.
inline void data_sort(Data* d, long start, long num, long offset) {
  sort_records(d->records + start * d->num_var, num, RecordOrder{d->num_var, offset});
}

// How many of records [start, start + num), sorted at `offset`, have a 0 there.
inline long data_find_split(const Data* d, long start, long num, long offset) {
  long low = start, high = start + num - 1;
  while (low <= high) {
    long mid = (low + high) / 2;
    if (d->records[d->num_var * mid + offset] == 0) low = mid + 1;
    else high = mid - 1;
  }
  return low - start;
}
