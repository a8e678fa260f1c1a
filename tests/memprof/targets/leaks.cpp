// leaks — leaks from two known functions, among blocks that are freed: what
// sampled call sites must find. leak_small_nodes leaks 40,000 blocks of 256
// bytes (10,240,000 bytes); leak_big_buffers leaks 400 blocks of 40,000 bytes
// (16,000,000 bytes); churn_and_free allocates 50 MB and frees all of it;
// hold_at_peak holds 30,000,000 bytes (3,000 blocks of 10,000) while the heap
// peaks, with leak_small_nodes' blocks live too, and frees them before
// leak_big_buffers runs, so the peak (40,240,000 requested bytes and the
// little the runtime holds) is theirs alone; grow_by_realloc grows one block
// by realloc to 4,000,000 bytes and leaks it. Prints the true figures for the
// test to compare with.
#include <cstdio>
#include <cstdlib>

static void* volatile kept[44000];

__attribute__((noinline)) void leak_small_nodes() {
  for (int i = 0; i < 40000; ++i) kept[i] = std::malloc(256);
}

__attribute__((noinline)) void leak_big_buffers() {
  for (int i = 0; i < 400; ++i) kept[40000 + i] = std::malloc(40000);
}

__attribute__((noinline)) void churn_and_free() {
  for (int i = 0; i < 100000; ++i) {
    void* p = std::malloc(size_t(64 + (i % 16) * 60));
    kept[40500] = p;
    std::free(p);
  }
}

__attribute__((noinline)) void hold_at_peak() {
  for (int i = 0; i < 3000; ++i) kept[41000 + i] = std::malloc(10000);
  for (int i = 0; i < 3000; ++i) std::free(kept[41000 + i]);
}

__attribute__((noinline)) void grow_by_realloc() {
  void* p = nullptr;
  for (size_t n = 1000; n <= 4000000; n += 1000) p = std::realloc(p, n);
  kept[40600] = p;
}

int main() {
  churn_and_free();
  leak_small_nodes();
  hold_at_peak();
  churn_and_free();
  leak_big_buffers();
  grow_by_realloc();
  std::printf("leaks: small_nodes=10240000 big_buffers=16000000 grown=4000000 held_at_peak=30000000\n");
  return 0;
}
