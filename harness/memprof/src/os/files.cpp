// files.cpp — open, read, cut and close for the files memprof handles itself
// (files.h), with stack buffers only: they run at start, at exit and in the
// sampler thread.
#include "os/files.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

namespace memprof::files {

int open_appending(const char* path, bool truncate) {
  return ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
}

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

int copy_above(int fd, int lowest) { return fcntl(fd, F_DUPFD_CLOEXEC, lowest); }

size_t read_whole(const char* path, char* buf, size_t n) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t got = 0;
  while (got + 1 < n) {
    ssize_t r = ::read(fd, buf + got, n - 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += size_t(r);
  }
  ::close(fd);
  buf[got] = 0;
  return got;
}

bool each_line(const char* path, void (*each)(const char* line, void* context), void* context) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096], row[1024];
  size_t used = 0;
  ssize_t got;
  while ((got = ::read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < got; ++i) {
      if (buf[i] != '\n') {
        if (used + 1 < sizeof row) row[used++] = buf[i];
        continue;
      }
      row[used] = 0;
      each(row, context);
      used = 0;
    }
  }
  ::close(fd);
  return true;
}

off_t end_of(int fd) { return lseek(fd, 0, SEEK_END); }

bool cut_to(int fd, off_t length) { return ftruncate(fd, length) == 0; }

void close(int fd) { ::close(fd); }

}  // namespace memprof::files
