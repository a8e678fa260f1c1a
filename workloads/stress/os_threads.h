// os_threads.h — threads started the way the C originals start them, with
// pthread_create, which takes nothing from the heap. std::thread allocates a
// block per thread for its state: blocks the originals do not have, which
// would show in the figures compared with theirs.
#pragma once
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace allocstamp::stress {

inline pthread_t start_thread(void* (*body)(void*), void* argument) {
  pthread_t id;
  if (int error = pthread_create(&id, nullptr, body, argument)) {
    std::fprintf(stderr, "stress: pthread_create failed: %s\n", std::strerror(error));
    std::exit(1);
  }
  return id;
}

inline void join_thread(pthread_t id) { pthread_join(id, nullptr); }

}  // namespace allocstamp::stress
