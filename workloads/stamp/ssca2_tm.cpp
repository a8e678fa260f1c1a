// ssca2_tm.cpp — STAMP's ssca2 (SSCA#2 kernel 1), allocation for allocation.
// The generator is STAMP's sequential one, draw for draw from its MT19937
// (seeded 0): a permutation of the 2^s vertices, cliques of up to 2^(s/3)
// vertices with every pair joined (one or both ways) and parallel edges,
// edges between cliques at distances 1, 2, 4, ..., int or string weights, a
// sought string; the edges radix-sorted on their start (three counting
// passes, each with two histograms) and sorted on their end within a start.
// Kernel 1, the measured phase, builds the graph as STAMP's computeGraph:
// out-degrees and out-lists of the distinct edges, prefix sums (a 1 KiB
// scratch block each), then for every edge whose reverse is missing a short
// transaction adds it to the end vertex's implied (in-) list; an in-list that
// outgrows the cluster size takes an extra block inside the transaction.
// STAMP frees everything but its stdout buffer. Verified: the out-lists hold
// exactly the distinct edges of the sorted list (a count and a checksum taken
// before kernel 1) and every in-list entry is an edge whose reverse is
// missing, as many as there are such edges.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "runtime.h"
#include "ssca2.h"
#include "stamp_support.h"
#include "tm.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
namespace {

using ulong = unsigned long;

struct Sdg {  // graphSDG: 40 B
  ulong* start_vertex;
  ulong* end_vertex;
  long* int_weight;
  char* str_weight;
  ulong edges_placed;
};

struct Graph {  // graph: 120 B
  ulong vertices, edges, directed_edges, undirected_edges, int_edges, str_edges;
  long* out_degree;
  ulong* out_index;
  ulong* out_list;
  ulong* paral_index;
  long* in_degree;
  ulong* in_index;
  ulong* in_list;
  long* int_weight;
  char* str_weight;
};

struct Params {  // STAMP's globals, from the flags
  long scale;
  ulong vertices;       // TOT_VERTICES
  long max_clique;      // MAX_CLIQUE_SIZE = MAX_CLUSTER_SIZE
  long max_parallel;    // MAX_PARAL_EDGES
  float unidirectional; // PROB_UNIDIRECTIONAL
  float interclique;    // PROB_INTERCL_EDGES
  float int_weights;    // PERC_INT_WEIGHTS
  ulong max_int_weight; // MAX_INT_WEIGHT
  long max_strlen;      // MAX_STRLEN
  unsigned long seed;   // the generator's (STAMP's: 0)
};

template <typename T>
T* allocate(std::size_t bytes) {
  return static_cast<T*>(std::malloc(bytes));
}

// --- the radix sort: alg_radix_smp.c's sequential counting sorts ---

inline ulong bits(ulong x, long k, long j) { return (x >> k) & ~(~0ul << j); }

void count_sort(long q, const ulong* key, ulong* sorted, const ulong* aux, ulong* aux_sorted, long r, long shift,
                long width) {
  long* histogram = allocate<long>(std::size_t(r) * sizeof(long));
  long* sums = allocate<long>(std::size_t(r) * sizeof(long));
  for (long k = 0; k < r; ++k) histogram[k] = 0;
  for (long k = 0; k < q; ++k) ++histogram[bits(key[k], shift, width)];
  for (long k = 0; k < r; ++k) sums[k] = histogram[k];
  long offset = 0;
  for (long k = 0; k < r; ++k) {
    histogram[k] = (sums[k] - histogram[k]) + offset;
    offset += sums[k];
  }
  for (long k = 0; k < q; ++k) {
    long j = long(bits(key[k], shift, width));
    sorted[histogram[j]] = key[k];
    aux_sorted[histogram[j]] = aux[k];
    ++histogram[j];
  }
  std::free(sums);
  std::free(histogram);
}

void radix_sort(long q, ulong* keys, ulong* sorted, ulong* aux, ulong* aux_sorted) {
  ulong* temp = allocate<ulong>(std::size_t(q) * sizeof(ulong));
  ulong* temp2 = allocate<ulong>(std::size_t(q) * sizeof(ulong));
  count_sort(q, keys, sorted, aux, aux_sorted, 1 << 11, 0, 11);
  count_sort(q, sorted, temp, aux_sorted, temp2, 1 << 11, 11, 11);
  count_sort(q, temp, sorted, temp2, aux_sorted, 1 << 10, 22, 10);
  std::free(temp);
  std::free(temp2);
}

// The clique a vertex lies in: STAMP's binary search over the first vertices.
long clique_of(ulong vertex, const ulong* first, long cliques) {
  long h = cliques, l = 0, t = -1;
  while (h - l > 1) {
    long m = (h + l) / 2;
    if (vertex >= first[m]) {
      l = m;
    } else if (m > 0) {
      if (vertex >= first[m - 1]) {
        t = m - 1;
        break;
      }
      h = m;
    }
  }
  if (t == -1) {
    long m;
    for (m = l + 1; m < h; ++m)
      if (vertex < first[m]) break;
    t = m - 1;
  }
  return t;
}

// --- the generator: genScalData_seq ---

void generate(const Params& g, Sdg* sdg, char*& sought) {
  StampRandom* stream = stamp_random_new();
  stream->mt.seed(g.seed);
  const ulong n = g.vertices;
  ulong* perm = allocate<ulong>(n * sizeof(ulong));
  for (ulong i = 0; i < n; ++i) perm[i] = i;
  for (ulong i = 0; i < n; ++i) {
    long t1 = long((*stream)());
    ulong t = i + ulong(t1) % (n - i);
    if (t != i) std::swap(perm[t], perm[i]);
  }
  // Cliques.
  long est_cliques = long(std::ceil(1.5 * double(n) / double((1 + g.max_clique) / 2)));
  long* clique_sizes = allocate<long>(std::size_t(est_cliques) * sizeof(long));
  for (long i = 0; i < est_cliques; ++i) clique_sizes[i] = 1 + long((*stream)() % ulong(g.max_clique));
  ulong* last = allocate<ulong>(std::size_t(est_cliques) * sizeof(ulong));
  ulong* first = allocate<ulong>(std::size_t(est_cliques) * sizeof(ulong));
  last[0] = ulong(clique_sizes[0] - 1);
  long i = 1;
  for (; i < est_cliques; ++i) {
    last[i] = ulong(clique_sizes[i]) + last[i - 1];
    if (last[i] >= n - 1) break;
  }
  const long cliques = i + 1;
  clique_sizes[cliques - 1] = long(n - last[cliques - 2] - 1);
  last[cliques - 1] = n - 1;
  first[0] = 0;
  for (i = 1; i < cliques; ++i) first[i] = last[i - 1] + 1;
  // Edges inside the cliques.
  long est_edges = g.scale >= 12 ? long((g.max_clique - 1) * long(n))
                                 : long(std::ceil(1.2 * double(((g.max_clique - 1) * long(n)) * ((1 + g.max_parallel) / 2) +
                                                               long(n) * 2)));
  long edge = 0;
  float p = g.unidirectional;
  ulong* start_v = allocate<ulong>(std::size_t(est_edges) * sizeof(ulong));
  ulong* end_v = allocate<ulong>(std::size_t(est_edges) * sizeof(ulong));
  // STAMP sizes its edge buffers by estimate and writes past them below scale
  // 12 (it corrupts its heap there); ours stops with the reason instead.
  auto room = [&](long used, long capacity) {
    if (used < capacity) return;
    std::fprintf(stderr, "stamp ssca2: the generator's edge buffers (STAMP's estimate, %ld edges) overflow at scale %ld"
                 " — use --scale 12 or more (STAMP itself corrupts its heap here)\n", capacity, g.scale);
    std::exit(2);
  };
  ulong** counter = allocate<ulong*>(std::size_t(g.max_clique) * sizeof(ulong*));
  for (long k = 0; k < g.max_clique; ++k) counter[k] = allocate<ulong>(std::size_t(g.max_clique) * sizeof(ulong));
  for (long c = 0; c < cliques; ++c) {
    const long size = clique_sizes[c];
    const long base = long(first[c]);
    for (long a = 0; a < size; ++a)
      for (long b = 0; b < a; ++b) {
        float r = float((*stream)() % 1000) / 1000.0f;
        if (r >= p) {
          room(edge + 1, est_edges);
          start_v[edge] = ulong(a + base), end_v[edge] = ulong(b + base), ++edge;
          counter[a][b] = 1;
          start_v[edge] = ulong(b + base), end_v[edge] = ulong(a + base), ++edge;
          counter[b][a] = 1;
        } else if (r >= 0.5) {
          room(edge, est_edges);
          start_v[edge] = ulong(a + base), end_v[edge] = ulong(b + base), ++edge;
          counter[a][b] = 1;
          counter[b][a] = 0;
        } else {
          room(edge, est_edges);
          start_v[edge] = ulong(b + base), end_v[edge] = ulong(a + base), ++edge;
          counter[b][a] = 1;
          counter[a][b] = 0;
        }
      }
    if (size != 1) {
      long parallel = long((*stream)() % ulong(2 * size * g.max_parallel));
      for (long e = 0; e < parallel; ++e) {
        long a = long((*stream)() % ulong(size));
        long b = long((*stream)() % ulong(size));
        if (a != b && counter[a][b] < ulong(g.max_parallel)) {
          float r = float((*stream)() % 1000) / 1000.0f;
          if (r >= p) {
            room(edge, est_edges);
            start_v[edge] = ulong(a + base), end_v[edge] = ulong(b + base), ++edge;
            ++counter[a][b];
          }
        }
      }
    }
  }
  for (long k = 0; k < g.max_clique; ++k) std::free(counter[k]);
  std::free(counter);
  const ulong in_cliques = ulong(edge);
  std::size_t list_bytes = (g.scale < 10 ? 2 * std::size_t(edge) : std::size_t(edge) + std::size_t(g.max_parallel) * n) *
                           sizeof(ulong);
  ulong* start_vertex = allocate<ulong>(list_bytes);
  ulong* end_vertex = allocate<ulong>(list_bytes);
  for (long e = 0; e < edge; ++e) start_vertex[e] = start_v[e], end_vertex[e] = end_v[e];
  // Edges between cliques.
  edge = 0;
  for (ulong v = 0; v < n; ++v) {
    const ulong here = first[clique_of(v, first, cliques)];
    for (ulong d = 1; (p = d == 1 ? g.interclique : p), d < n; d *= 2, p /= 2) {
      float r = float((*stream)() % 1000) / 1000.0f;
      if (r <= p) {
        ulong other = (v + d) % n;
        if (here != first[clique_of(other, first, cliques)]) {
          long parallel = long((*stream)() % ulong(g.max_parallel) + 1);
          for (long k = 0; k < parallel; ++k) {
            room(edge, est_edges);
            room(long(in_cliques) + edge, long(list_bytes / sizeof(ulong)));
            start_v[edge] = v, end_v[edge] = other, ++edge;
          }
        }
      }
      float r0 = float((*stream)() % 1000) / 1000.0f;
      if (r0 <= p) {  // STAMP's (i - d >= 0) is unsigned: always true
        ulong other = (v - d) % n;
        if (here != first[clique_of(other, first, cliques)]) {
          long parallel = long((*stream)() % ulong(g.max_parallel) + 1);
          for (long k = 0; k < parallel; ++k) {
            room(edge, est_edges);
            room(long(in_cliques) + edge, long(list_bytes / sizeof(ulong)));
            start_v[edge] = v, end_v[edge] = other, ++edge;
          }
        }
      }
    }
  }
  for (long e = 0; e < edge; ++e) start_vertex[e + long(in_cliques)] = start_v[e], end_vertex[e + long(in_cliques)] = end_v[e];
  const ulong placed = in_cliques + ulong(edge);
  sdg->edges_placed = placed;
  std::free(clique_sizes);
  std::free(first);
  std::free(last);
  std::free(start_v);
  std::free(end_v);
  // Weights: int, or an index (as a negative value) into the strings.
  sdg->int_weight = allocate<long>(placed * sizeof(long));
  p = g.int_weights;
  ulong strings = 0;
  for (ulong e = 0; e < placed; ++e) {
    float r = float((*stream)() % 1000) / 1000.0f;
    if (r <= p) {
      sdg->int_weight[e] = long(1 + (*stream)() % (g.max_int_weight - 1));
    } else {
      sdg->int_weight[e] = -1;
      ++strings;
    }
  }
  long t = 0;
  for (ulong e = 0; e < placed; ++e)
    if (sdg->int_weight[e] < 0) sdg->int_weight[e] = -t, ++t;
  sdg->str_weight = allocate<char>(strings * ulong(g.max_strlen));
  for (ulong e = 0; e < placed; ++e)
    if (sdg->int_weight[e] <= 0)
      for (long j = 0; j < g.max_strlen; ++j)
        sdg->str_weight[(-sdg->int_weight[e]) * g.max_strlen + j] = char(1 + (*stream)() % 127);
  sought = allocate<char>(std::size_t(g.max_strlen));
  t = long((*stream)() % strings);
  for (long j = 0; j < g.max_strlen; ++j) sought[j] = sdg->str_weight[t * g.max_strlen + j];
  // Permute and sort.
  for (ulong e = 0; e < placed; ++e) start_vertex[e] = perm[start_vertex[e]], end_vertex[e] = perm[end_vertex[e]];
  sdg->start_vertex = allocate<ulong>(placed * sizeof(ulong));
  sdg->end_vertex = allocate<ulong>(placed * sizeof(ulong));
  radix_sort(long(placed), start_vertex, sdg->start_vertex, end_vertex, sdg->end_vertex);
  std::free(start_vertex);
  std::free(end_vertex);
  ulong* s = sdg->start_vertex;
  ulong* e = sdg->end_vertex;
  if (g.scale < 12) {  // STAMP's exchange sort of each start's ends
    long i0 = 0, i1 = 0;
    long k = 0;
    while (k < long(placed)) {
      for (k = i0; k < long(placed); ++k)
        if (s[k] != s[i1]) {
          i1 = k;
          break;
        }
      for (long a = i0; a < i1; ++a)
        for (long b = a + 1; b < i1; ++b)
          if (e[b] < e[a]) std::swap(e[a], e[b]);
      if (s[i0] != n - 1) {
        i0 = i1;
      } else {
        for (long a = i0; a < long(placed); ++a)
          for (long b = a + 1; b < long(placed); ++b)
            if (e[b] < e[a]) std::swap(e[a], e[b]);
      }
    }
  } else {
    ulong* index = allocate<ulong>((n + 1) * sizeof(ulong));
    index[0] = 0;
    index[n] = placed;
    ulong i0 = 0;
    for (ulong v = 0; v < n; ++v) {
      index[v + 1] = index[v];
      for (ulong j = i0; j < placed; ++j)
        if (s[j] != s[i0]) {
          if (s[i0] == v) {
            index[v + 1] = j;
            i0 = j;
            break;
          }
        }
    }
    for (ulong v = 0; v < n; ++v)  // STAMP's exchange sort within each start
      for (ulong a = index[v]; a < index[v + 1]; ++a)
        for (ulong b = a + 1; b < index[v + 1]; ++b)
          if (e[b] < e[a]) std::swap(e[a], e[b]);
    std::free(index);
  }
  stamp_random_delete(stream);
  std::free(perm);
}

// --- kernel 1: computeGraph ---

struct Shared {
  const Params* g;
  Graph* graph;
  Sdg* sdg;
  std::barrier<>* barrier;  // null with one thread
  ulong max_vertices = 0;     // global_maxNumVertices
  ulong out_list_size = 0;    // global_outVertexListSize
  ulong* prefix_scratch = nullptr;
  ulong* implied = nullptr;
  ulong** aux = nullptr;
};

void wait(Shared& s) {
  if (s.barrier) s.barrier->arrive_and_wait();
}

void partition(long min, long max, long id, long n, long& start, long& stop) {
  long range = max - min;
  long chunk = std::max(1l, (range + n / 2) / n);
  start = min + chunk * id;
  stop = id == n - 1 ? max : std::min(max, start + chunk);
}

constexpr long kNoShare = 1 << 7;  // STAMP's NOSHARE: a slot every 128 words

void prefix_sums(Shared& s, long id, long threads, ulong* result, const long* input, ulong size) {
  if (id == 0) s.prefix_scratch = allocate<ulong>(std::size_t(kNoShare * threads) * sizeof(ulong));
  wait(s);
  ulong* p = s.prefix_scratch;
  long r = long(size) / threads;
  long start = id * r + 1, end = (id + 1) * r;
  if (id == threads - 1) end = long(size);
  for (long j = start; j < end; ++j) result[j] = ulong(input[j - 1]) + result[j - 1];
  // The chunk's total. (STAMP stores result[end - 1] alone, which leaves out
  // input[end - 1]: with more than one thread its later chunks' sums come out
  // short and the adjacency lists overlap. Same blocks, the right sums.)
  p[kNoShare * id] = result[end - 1] + ulong(input[end - 1]);
  wait(s);
  if (id == 0)
    for (long j = 1; j < threads; ++j) p[kNoShare * j] += p[kNoShare * (j - 1)];
  wait(s);
  if (id > 0) {
    ulong add = p[kNoShare * (id - 1)];
    for (long j = start - 1; j < end; ++j) result[j] += add;
  }
  wait(s);
  if (id == 0) std::free(p);
}

__attribute__((noinline)) void tx_max_vertices(Shared& s, ulong mine) {
  // The vertex count: the largest start vertex + 1. (STAMP adds 1 to the
  // running maximum in every thread's transaction, so with more than one
  // thread the count can come out one too many and the last vertex's edges
  // are dropped. Same transactions, the right count.)
  TM_BEGIN
  ulong now = s.max_vertices;
  s.max_vertices = now > mine + 1 ? now : mine + 1;
  TM_END
}

__attribute__((noinline)) void tx_add_out_list_size(Shared& s, ulong mine) {
  TM_BEGIN
  s.out_list_size = s.out_list_size + mine;
  TM_END
}

// Adds i to v's implied (in-) list; past the cluster size, into an extra block.
__attribute__((noinline)) void tx_add_implied(Shared& s, ulong v, ulong i) {
  const long cluster = s.g->max_clique;
  Graph* G = s.graph;
  TM_BEGIN
  long in_degree = G->in_degree[v];
  G->in_degree[v] = in_degree + 1;
  if (in_degree < cluster) {
    s.implied[long(v) * cluster + in_degree] = i;
  } else {
    ulong* a;
    if (in_degree % cluster == 0) {
      a = static_cast<ulong*>(malloc(std::size_t(cluster) * sizeof(ulong)));
      s.aux[v] = a;
    } else {
      a = s.aux[v];
    }
    a[in_degree % cluster] = i;
  }
  TM_END
}

// One thread's part of computeGraph (STAMP's loops, quirks and all).
void compute_graph(Shared& s, long id, long threads) {
  Graph* G = s.graph;
  Sdg* sdg = s.sdg;
  const ulong placed = sdg->edges_placed;
  const ulong* sv = sdg->start_vertex;
  const ulong* ev = sdg->end_vertex;
  ulong max_vertices = 0;
  long i_start, i_stop;
  partition(0, long(placed), id, threads, i_start, i_stop);
  for (long i = i_start; i < i_stop; ++i)
    if (sv[i] > max_vertices) max_vertices = sv[i];
  tx_max_vertices(s, max_vertices);
  wait(s);
  if (id == 0) {
    G->vertices = s.max_vertices;
    G->edges = placed;
    G->int_weight = sdg->int_weight;
    G->str_weight = sdg->str_weight;
    for (ulong i = 0; i < placed; ++i)
      if (G->int_weight[placed - i - 1] < 0) {
        G->str_edges = ulong(-(G->int_weight[placed - i - 1]) + 1);
        G->int_edges = placed - G->str_edges;
        break;
      }
    G->out_degree = allocate<long>(G->vertices * sizeof(long));
    G->out_index = allocate<ulong>(G->vertices * sizeof(ulong));
  }
  wait(s);
  partition(0, long(G->vertices), id, threads, i_start, i_stop);
  for (long i = i_start; i < i_stop; ++i) G->out_degree[i] = 0, G->out_index[i] = 0;
  ulong out_size = 0;
  wait(s);
  ulong i0 = ~0ul;
  for (long i = i_start; i < i_stop; ++i) {
    ulong k = ulong(i);
    if (out_size == 0 && k != 0) {
      while (i0 == ~0ul) {
        for (ulong j = 0; j < placed; ++j)
          if (k == sv[j]) {
            i0 = j;
            break;
          }
        --k;
      }
    }
    if (out_size == 0 && k == 0) i0 = 0;
    for (ulong j = i0; j < placed; ++j) {
      if (ulong(i) == G->vertices - 1) break;
      if (ulong(i) != sv[j]) {
        if (j > 0 && ulong(i) == sv[j - 1] && j - i0 >= 1) {
          ++out_size;
          ++G->out_degree[i];
          for (ulong t = i0 + 1; t < j; ++t)
            if (ev[t] != ev[t - 1]) ++out_size, ++G->out_degree[i];
        }
        i0 = j;
        break;
      }
    }
    if (ulong(i) == G->vertices - 1) {
      ++out_size;
      ++G->out_degree[i];
      for (ulong t = i0 + 1; t < placed; ++t)
        if (ev[t] != ev[t - 1]) ++out_size, ++G->out_degree[i];
    }
  }
  wait(s);
  prefix_sums(s, id, threads, G->out_index, G->out_degree, G->vertices);
  wait(s);
  tx_add_out_list_size(s, out_size);
  wait(s);
  out_size = s.out_list_size;
  if (id == 0) {
    G->directed_edges = out_size;
    G->out_list = allocate<ulong>(out_size * sizeof(ulong));
    G->paral_index = allocate<ulong>(out_size * sizeof(ulong));
    G->out_list[0] = ev[0];
  }
  wait(s);
  i0 = ~0ul;
  for (long i = i_start; i < i_stop; ++i) {
    ulong k = ulong(i);
    while (i0 == ~0ul && k != 0) {
      for (ulong j = 0; j < placed; ++j)
        if (k == sv[j]) {
          i0 = j;
          break;
        }
      --k;
    }
    if (i0 == ~0ul && k == 0) i0 = 0;
    for (ulong j = i0; j < placed; ++j) {
      if (ulong(i) == G->vertices - 1) break;
      if (ulong(i) != sv[j]) {
        if (j > 0 && ulong(i) == sv[j - 1] && j - i0 >= 1) {
          ulong ii = G->out_index[i], r = 0;
          G->paral_index[ii] = i0;
          G->out_list[ii] = ev[i0];
          ++r;
          for (ulong t = i0 + 1; t < j; ++t)
            if (ev[t] != ev[t - 1]) G->paral_index[ii + r] = t, G->out_list[ii + r] = ev[t], ++r;
        }
        i0 = j;
        break;
      }
    }
    if (ulong(i) == G->vertices - 1) {
      ulong ii = G->out_index[i], r = 0;
      G->paral_index[ii + r] = i0;
      G->out_list[ii + r] = ev[i0];
      ++r;
      for (ulong t = i0 + 1; t < placed; ++t)
        if (ev[t] != ev[t - 1]) G->paral_index[ii + r] = t, G->out_list[ii + r] = ev[t], ++r;
    }
  }
  wait(s);
  if (id == 0) {
    std::free(sdg->start_vertex);
    std::free(sdg->end_vertex);
    G->in_degree = allocate<long>(G->vertices * sizeof(long));
    G->in_index = allocate<ulong>(G->vertices * sizeof(ulong));
  }
  wait(s);
  for (long i = i_start; i < i_stop; ++i) G->in_degree[i] = 0, G->in_index[i] = 0;
  const long cluster = s.g->max_clique;
  if (id == 0) s.implied = allocate<ulong>(G->vertices * ulong(cluster) * sizeof(ulong));
  wait(s);
  long c_start, c_stop;
  partition(0, long(G->vertices) * cluster, id, threads, c_start, c_stop);
  for (long i = c_start; i < c_stop; ++i) s.implied[i] = 0;
  if (id == 0) s.aux = allocate<ulong*>(G->vertices * sizeof(ulong*));
  wait(s);
  partition(0, long(G->vertices), id, threads, i_start, i_stop);
  for (long i = i_start; i < i_stop; ++i)
    for (ulong j = G->out_index[i]; j < G->out_index[i] + ulong(G->out_degree[i]); ++j) {
      ulong v = G->out_list[j];
      ulong k;
      for (k = G->out_index[v]; k < G->out_index[v] + ulong(G->out_degree[v]); ++k)
        if (G->out_list[k] == ulong(i)) break;
      if (k == G->out_index[v] + ulong(G->out_degree[v])) tx_add_implied(s, v, ulong(i));
    }
  wait(s);
  prefix_sums(s, id, threads, G->in_index, G->in_degree, G->vertices);
  if (id == 0) {
    G->undirected_edges = G->in_index[G->vertices - 1] + ulong(G->in_degree[G->vertices - 1]);
    G->in_list = allocate<ulong>(G->undirected_edges * sizeof(ulong));
  }
  wait(s);
  for (long i = i_start; i < i_stop; ++i)
    for (ulong j = G->in_index[i]; j < G->in_index[i] + ulong(G->in_degree[i]); ++j)
      G->in_list[j] = long(j - G->in_index[i]) < cluster ? s.implied[ulong(i) * ulong(cluster) + j - G->in_index[i]]
                                                         : s.aux[i][(j - G->in_index[i]) % ulong(cluster)];
  wait(s);
  if (id == 0) std::free(s.implied);
  for (long i = i_start; i < i_stop; ++i)
    if (G->in_degree[i] > cluster) std::free(s.aux[i]);
  wait(s);
  if (id == 0) std::free(s.aux);
}

// The (start, end) pairs of the sorted edge list, each run of equal pairs
// once: how many, and an order-free checksum. (STAMP's sort leaves the last
// vertex's ends unsorted, so its list may name a vertex twice, as here.)
void distinct_edges(const Sdg& sdg, ulong& count, ulong& sum) {
  count = sum = 0;
  for (ulong e = 0; e < sdg.edges_placed; ++e) {
    if (e > 0 && sdg.start_vertex[e] == sdg.start_vertex[e - 1] && sdg.end_vertex[e] == sdg.end_vertex[e - 1]) continue;
    ++count;
    sum += (sdg.start_vertex[e] + 1) * 0x9E3779B97F4A7C15ul ^ (sdg.end_vertex[e] + 7) * 0xC2B2AE3D27D4EB4Ful;
  }
}

bool verify(const Graph& G, ulong pairs, ulong pair_sum) {
  ulong count = 0, sum = 0, missing_reverse = 0;
  auto has = [&](ulong from, ulong to) {
    for (ulong k = G.out_index[from]; k < G.out_index[from] + ulong(G.out_degree[from]); ++k)
      if (G.out_list[k] == to) return true;
    return false;
  };
  for (ulong v = 0; v < G.vertices; ++v) {
    if (v > 0 && G.out_index[v] != G.out_index[v - 1] + ulong(G.out_degree[v - 1])) return false;
    for (ulong k = G.out_index[v]; k < G.out_index[v] + ulong(G.out_degree[v]); ++k) {
      ++count;
      sum += (v + 1) * 0x9E3779B97F4A7C15ul ^ (G.out_list[k] + 7) * 0xC2B2AE3D27D4EB4Ful;
      if (!has(G.out_list[k], v)) ++missing_reverse;
    }
    for (ulong k = G.in_index[v]; k < G.in_index[v] + ulong(G.in_degree[v]); ++k)
      if (!has(G.in_list[k], v) || has(v, G.in_list[k])) return false;
  }
  return count == pairs && sum == pair_sum && count == G.directed_edges && missing_reverse == G.undirected_edges;
}

}  // namespace

Ssca2Result run(const Ssca2Config& c) {
  Params g;
  g.scale = c.scale;
  g.vertices = 1ul << c.scale;
  g.max_clique = 1l << (c.scale / 3);
  g.max_parallel = c.max_parallel;
  g.unidirectional = c.unidirectional;
  g.interclique = c.interclique;
  g.int_weights = c.int_weights;
  g.max_int_weight = 1ul << c.scale;
  g.max_strlen = c.scale;
  g.seed = static_cast<unsigned long>(c.seed - 1);

  StampThreadBlocks pool = stamp_thread_startup(c.threads);
  Sdg* sdg = allocate<Sdg>(sizeof(Sdg));
  char* sought = nullptr;
  generate(g, sdg, sought);
  keep(sought);
  ulong pairs, pair_sum;
  distinct_edges(*sdg, pairs, pair_sum);

  Graph* G = allocate<Graph>(sizeof(Graph));
  std::memset(static_cast<void*>(G), 0, sizeof(Graph));
  Ssca2Result r;
  memprof::phase_begin();
  auto start = std::chrono::steady_clock::now();
  Shared s{&g, G, sdg, nullptr};
  if (c.threads == 1) {
    compute_graph(s, 0, 1);
    ::allocstamp::tm::publish_thread_counts();
  } else {
    memprof::region parallel(MEMPROF_PAR);
    std::barrier<> barrier(c.threads);
    s.barrier = &barrier;
    std::vector<std::thread> others;
    for (long id = 1; id < c.threads; ++id)
      others.emplace_back([&s, id, &c] {
        compute_graph(s, id, c.threads);
        ::allocstamp::tm::publish_thread_counts();
      });
    compute_graph(s, 0, c.threads);
    ::allocstamp::tm::publish_thread_counts();
    for (auto& t : others) t.join();
  }
  r.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  r.vertices = long(G->vertices);
  r.edges = long(G->directed_edges);
  r.consistent = verify(*G, pairs, pair_sum);
  // ssca2.c's cleanup: everything but the stdout buffer.
  for (void* block : {static_cast<void*>(G->out_degree), static_cast<void*>(G->out_index),
                      static_cast<void*>(G->out_list), static_cast<void*>(G->paral_index),
                      static_cast<void*>(G->in_degree), static_cast<void*>(G->in_index), static_cast<void*>(G->in_list),
                      static_cast<void*>(G->int_weight), static_cast<void*>(G->str_weight)})
    std::free(block);
  std::free(sought);
  std::free(G);
  std::free(sdg);
  stamp_thread_shutdown(pool);
  memprof::phase_end();
  return r;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
