// text.cpp — the one system call behind text::Line: a write that survives
// short writes and signals.
#include "base/text.h"

#include <errno.h>

namespace memprof::text {

bool write_all(int fd, const char* buf, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    buf += w;
    n -= size_t(w);
  }
  return true;
}

}  // namespace memprof::text
