// regions — the program sets regions itself (so memprof stops guessing from
// the thread count) and nests named scopes: exact counts for each.
// Needs libmemprof.so preloaded (calls memprof_region directly).
// `regions marked`: transactions marked with memprof_tx_begin/end instead.
// `regions realloc`: scopes that grow a block with realloc.
#include <memprof/memprof.h>
#include <pthread.h>
#include <stdlib.h>

void* idle(void* arg) { return arg; }

// 100 marked transactions, the inner mark nested: each allocates 24 + 16 + 100
// bytes and frees the 100 of the transaction before (the last one after).
int marked() {
  void* previous = nullptr;
  void* kept[200];
  for (int i = 0; i < 100; ++i) {
    memprof_tx_begin();
    kept[2 * i] = malloc(24);
    memprof_tx_begin();
    kept[2 * i + 1] = malloc(16);
    memprof_tx_end();
    free(previous);
    previous = malloc(100);
    memprof_tx_end();
  }
  free(previous);
  for (void* p : kept) free(p);
  return 0;
}

// Two scopes that grow a block with realloc, 100 bytes to 10,000: "grown"
// keeps it (held 10,000), "grown-and-freed" frees it (held 0); each counts
// one allocation and 10,100 requested bytes, as the totals count a realloc.
void* volatile kept_grown;
int reallocs() {
  {
    memprof::scope grown("grown");
    void* p = malloc(100);
    kept_grown = realloc(p, 10000);
  }
  {
    memprof::scope freed("grown-and-freed");
    void* p = malloc(100);
    void* q = realloc(p, 10000);
    free(q);
  }
  free(kept_grown);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == 'r') return reallocs();
  if (argc > 1) return marked();
  memprof_region(MEMPROF_SEQ);  // from here on the program says which region it is in
  pthread_t helper;             // what pthread_create allocates is seq, although two threads live
  pthread_create(&helper, nullptr, idle, nullptr);
  pthread_join(helper, nullptr);
  {
    memprof::region par(MEMPROF_PAR);  // one thread, but the program says par
    for (int i = 0; i < 7; ++i) free(malloc(100));
    {
      memprof::scope outer("outer");
      void* kept = malloc(1000);       // held at the end of outer
      {
        memprof::scope inner("inner");
        for (int i = 0; i < 3; ++i) free(malloc(10));
        void* inner_kept = malloc(20);  // held at the end of inner
        (void)inner_kept;
      }
      (void)kept;
    }
  }
  for (int i = 0; i < 5; ++i) free(malloc(50));  // back to seq
  return 0;
}
