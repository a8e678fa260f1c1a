// leaks — leaks from two known functions, among blocks that are freed: what
// sampled call sites must find. leak_small_nodes leaks 40,000 blocks of 256
// bytes (10,240,000 bytes); leak_big_buffers leaks 400 blocks of 40,000 bytes
// (16,000,000 bytes); churn_and_free allocates 50 MB and frees all of it.
// Prints the true figures for the test to compare with.
#include <cstdio>
#include <cstdlib>

static void* volatile kept[41000];

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

int main() {
  churn_and_free();
  leak_small_nodes();
  churn_and_free();
  leak_big_buffers();
  std::printf("leaks: small_nodes=10240000 big_buffers=16000000\n");
  return 0;
}
