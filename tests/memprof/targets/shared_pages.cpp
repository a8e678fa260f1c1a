// shared_pages — 64 MiB of shared anonymous memory whose share of the process's
// PSS and USS is known without reading smaps. `shared_pages alone` touches every
// page; `shared_pages shared` also has a forked child touch them all and stay
// alive until the parent's measured phase has ended, so that each page is mapped
// twice then: half of it counts in the parent's PSS, none in its USS.
// Both modes fork the child (fork leaves a shared mapping's pages unmapped in
// the child until it touches them, which it does only in `shared`): what else
// fork shares (heap, stack, copy-on-write data) is the same in both runs, which
// differ by the 64 MiB alone.
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memprof/memprof.h>

namespace {

constexpr size_t kRegionBytes = size_t(64) << 20;

// The child: touches the pages when asked, says so, then waits for the parent
// to close its end of `release` (its measured phase is over).
[[noreturn]] void child(char* region, bool touch, int ready, int release) {
  if (touch) memset(region, 2, kRegionBytes);
  char byte = 'r';
  if (write(ready, &byte, 1) != 1) _exit(3);
  while (read(release, &byte, 1) > 0) {
  }
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  const bool shared = argc > 1 && strcmp(argv[1], "shared") == 0;
  if (argc != 2 || (!shared && strcmp(argv[1], "alone") != 0)) {
    fprintf(stderr, "usage: shared_pages alone|shared\n");
    return 2;
  }
  char* region = static_cast<char*>(
      mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (region == MAP_FAILED) return 1;
  memprof::phase_begin();
  memset(region, 1, kRegionBytes);

  int ready[2], release[2];
  if (pipe(ready) != 0 || pipe(release) != 0) return 1;
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    close(ready[0]);
    close(release[1]);
    child(region, shared, ready[1], release[0]);
  }
  close(ready[1]);
  close(release[0]);
  char byte = 0;
  if (read(ready[0], &byte, 1) != 1) return 1;  // the child has touched what it will
  memprof::phase_end();
  close(release[1]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  puts("shared_pages: ok");
  return 0;
}
