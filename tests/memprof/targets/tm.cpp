// tm — transactions that allocate and free (GCC -fgnu-tm, libitm): each
// committed transaction makes one malloc, one operator new and frees one block
// of the previous round; the counts by region must say `tx` for exactly those.
// `tm many N`: one transaction frees N blocks allocated before it (every free
// is `tx`, however many one transaction makes), and one allocates N.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

constexpr int kRounds = 200;
struct Node {
  long value;
  Node* next;
};
Node* head = nullptr;
void* previous = nullptr;

void round_trip(long v) {
  __transaction_atomic {
    void* fresh = malloc(40);
    Node* n = new Node{v, head};
    head = n;
    free(previous);
    previous = fresh;
  }
}

void* worker(void* arg) {
  long base = reinterpret_cast<long>(arg);
  for (int i = 0; i < kRounds; ++i) round_trip(base + i);
  return nullptr;
}

void* blocks[100000];

int free_many(int n) {
  for (int i = 0; i < n; ++i) blocks[i] = malloc(24);
  __transaction_atomic {
    for (int i = 0; i < n; ++i) free(blocks[i]);
  }
  __transaction_atomic {
    for (int i = 0; i < n; ++i) blocks[i] = malloc(40);
  }
  for (int i = 0; i < n; ++i) free(blocks[i]);
  printf("tm: freed and allocated %d in one transaction each\n", n);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 2 && argv[1][0] == 'm') return free_many(atoi(argv[2]) > 100000 ? 100000 : atoi(argv[2]));
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  pthread_t t[2];
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], nullptr, worker, reinterpret_cast<void*>(long(i) * 1000));
  for (int i = 0; i < threads; ++i) pthread_join(t[i], nullptr);
  long count = 0;
  while (head) {
    Node* n = head;
    head = n->next;
    delete n;
    ++count;
  }
  free(previous);
  printf("tm: nodes=%ld\n", count);
  return count == long(threads) * kRounds ? 0 : 1;
}
