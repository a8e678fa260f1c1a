// forks — a multi-threaded parent that forks while another thread allocates:
// children must not deadlock, and the parent's figures must not include theirs.
// `forks N` forks N times. Before the forks a thread allocates and frees 10
// blocks of 200 bytes and ends: its counts are the parent's, in no child's.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

std::atomic<bool> stop{false};

void* churn(void*) {
  while (!stop.load(std::memory_order_relaxed)) free(malloc(64));
  return nullptr;
}

void* ended(void*) {
  for (int i = 0; i < 10; ++i) free(malloc(200));
  return nullptr;
}

int main(int argc, char** argv) {
  int forks = argc > 1 ? atoi(argv[1]) : 50;
  pthread_t t;
  pthread_create(&t, nullptr, ended, nullptr);
  pthread_join(t, nullptr);
  pthread_create(&t, nullptr, churn, nullptr);
  // The forking thread's, before the forks: none of the children's figures (the
  // second takes memprof's hot path, the first having filled what it needs).
  for (int i = 0; i < 2; ++i) free(malloc(100));
  for (int i = 0; i < forks; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      void* p = malloc(1234);
      free(p);
      exit(0);  // runs exit handlers: the child's report
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 2;
  }
  stop.store(true);
  pthread_join(t, nullptr);
  void* mine = malloc(4321);
  free(mine);
  puts("forks: ok");
  return 0;
}
