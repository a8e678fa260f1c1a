// entry_points — calls every allocation entry point memprof interposes once,
// with sizes the test knows, then frees everything: exact counts and bytes.
// `entry_points 0` does none of it: the baseline for what startup allocates.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memprof/memprof.h>

#include <new>

int main(int argc, char** argv) {
  memprof::reset_peak();
  memprof::metric("start_bytes", memprof::current_bytes());
  if (argc > 1 && argv[1][0] == '0') {
    puts("entry_points: baseline");
    return 0;
  }
  void* blocks[32];
  int n = 0;
  blocks[n++] = malloc(10);
  blocks[n++] = calloc(3, 7);                 // 21
  void* grown = realloc(nullptr, 30);         // an allocation of 30
  grown = realloc(grown, 100);                // realloc: +70
  grown = realloc(grown, 50);                 // realloc: -50
  blocks[n++] = grown;
  blocks[n++] = reallocarray(nullptr, 4, 10);  // 40
  void* aligned = nullptr;
  if (posix_memalign(&aligned, 64, 200) != 0) return 2;
  blocks[n++] = aligned;                      // 200
  blocks[n++] = aligned_alloc(64, 128);       // 128
  blocks[n++] = memalign(32, 70);             // 70
  blocks[n++] = valloc(500);                  // 500
  blocks[n++] = pvalloc(100);                 // rounded up to 4096
  blocks[n++] = strdup("hello");              // 6
  blocks[n++] = strndup("hello world", 5);    // 6
  for (int i = 0; i < n; ++i)
    if (!blocks[i] || malloc_usable_size(blocks[i]) == 0) return 3;

  void* plain = ::operator new(4);
  void* array = ::operator new[](40);
  void* nothrow = ::operator new(33, std::nothrow);
  void* nothrow_array = ::operator new[](1, std::nothrow);
  void* al = ::operator new(64, std::align_val_t(64));
  void* al_array = ::operator new[](128, std::align_val_t(64));
  void* al_nothrow = ::operator new(10, std::align_val_t(64), std::nothrow);
  void* al_nothrow_array = ::operator new[](20, std::align_val_t(64), std::nothrow);
  void* sized = ::operator new(24);
  void* sized_array = ::operator new[](48);
  void* sized_al = ::operator new(256, std::align_val_t(128));
  void* sized_al_array = ::operator new[](512, std::align_val_t(128));

  ::operator delete(plain);
  ::operator delete[](array);
  ::operator delete(nothrow, std::nothrow);
  ::operator delete[](nothrow_array, std::nothrow);
  ::operator delete(al, std::align_val_t(64));
  ::operator delete[](al_array, std::align_val_t(64));
  ::operator delete(al_nothrow, std::align_val_t(64), std::nothrow);
  ::operator delete[](al_nothrow_array, std::align_val_t(64), std::nothrow);
  ::operator delete(sized, 24);
  ::operator delete[](sized_array, 48);
  ::operator delete(sized_al, 256, std::align_val_t(128));
  ::operator delete[](sized_al_array, 512, std::align_val_t(128));

  for (int i = 0; i < n; ++i) free(blocks[i]);
  free(nullptr);
  puts("entry_points: ok");
  return 0;
}
