// tm — transactions that allocate and free (GCC -fgnu-tm, libitm): each
// committed transaction makes one malloc, one operator new and frees one block
// of the previous round; the counts by region must say `tx` for exactly those.
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

int main(int argc, char** argv) {
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
