// shared_pages — 64 MiB of shared anonymous memory whose share of the process's
// PSS and USS is known without reading smaps. `shared_pages alone` touches every
// page; `shared_pages shared` also has a forked child touch them all and stay
// alive until the parent's measured phase has ended, so that each page is mapped
// twice then: half of it counts in the parent's PSS, none in its USS.
// Both modes fork the child (fork leaves a shared mapping's pages unmapped in
// the child until it touches them, which it does only in `shared`): what else
// fork shares (heap, stack, copy-on-write data) is the same in both runs, which
// differ by the 64 MiB alone.
// `shared_pages peak` touches 64 MiB of private memory and unmaps it before its
// measured phase ends: the peak RSS is above the phase end's RSS by that much.
// It reports its RSS with the 64 MiB touched as `touched_rss_kb`.
// `shared_pages clean <dir>` writes a 16 MiB file in <dir>, syncs it (its
// pages clean), maps it private and read-only and reads every page: 16 MiB of
// private clean pages, mapped by this process alone. `shared_pages
// clean-untouched <dir>` maps it and reads nothing.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memprof/memprof.h>

#include "resident.h"

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

// The process's resident kB, or -1.
long resident_kb() {
  const long bytes = resident_bytes();
  return bytes < 0 ? -1 : bytes / 1024;
}

int peak() {
  memprof::phase_begin();
  char* region = static_cast<char*>(
      mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (region == MAP_FAILED) return 1;
  memset(region, 1, kRegionBytes);
  memprof::metric("touched_rss_kb", resident_kb());
  if (munmap(region, kRegionBytes) != 0) return 1;
  memprof::phase_end();
  puts("shared_pages: ok");
  return 0;
}

constexpr size_t kFileBytes = size_t(16) << 20;

int clean(const char* dir, bool touch) {
  char path[4096];
  snprintf(path, sizeof path, "%s/shared_pages-clean-%d", dir, int(getpid()));
  const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return 1;
  unlink(path);
  static char chunk[1 << 16];
  memset(chunk, 3, sizeof chunk);
  for (size_t done = 0; done < kFileBytes; done += sizeof chunk)
    if (write(fd, chunk, sizeof chunk) != ssize_t(sizeof chunk)) return 1;
  if (fsync(fd) != 0) return 1;  // written back: the pages are clean
  const char* file = static_cast<const char*>(mmap(nullptr, kFileBytes, PROT_READ, MAP_PRIVATE, fd, 0));
  close(fd);
  if (file == MAP_FAILED) return 1;
  memprof::phase_begin();
  long sum = 0;
  if (touch)
    for (size_t at = 0; at < kFileBytes; at += 4096) sum += file[at];
  memprof::phase_end();
  printf("shared_pages: ok %ld\n", sum);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "peak") == 0) return peak();
  if (argc == 3 && strncmp(argv[1], "clean", 5) == 0) return clean(argv[2], strcmp(argv[1], "clean") == 0);
  const bool shared = argc > 1 && strcmp(argv[1], "shared") == 0;
  if (argc != 2 || (!shared && strcmp(argv[1], "alone") != 0)) {
    fprintf(stderr, "usage: shared_pages alone|shared|peak|clean <dir>|clean-untouched <dir>\n");
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
