// output_file.cpp — a file written whole through a fresh temporary (output_file.h).
#include "model/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "model/errors.h"

namespace allocstamp {

namespace fs = std::filesystem;

void replace_file(const fs::path& file, const std::string& text) {
  // A fresh file of our own beside the target (mkstemp: O_CREAT | O_EXCL, so a
  // link planted at any name is never opened), then renamed over the target:
  // rename replaces a link at `file` itself, never what it points to.
  std::string pattern = file.string() + ".tmp.XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw RunError("cannot write " + file.string() + " (" + std::strerror(errno) + ")",
                   "check that the folder is writable; the previous version is kept");
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += std::size_t(n);
  }
  const bool wrote = written == text.size() && ::fchmod(fd, 0644) == 0;
  const bool ok = ::close(fd) == 0 && wrote;
  std::error_code ec;
  if (!ok || (fs::rename(pattern, file, ec), ec)) {
    fs::remove(pattern, ec);
    throw RunError("cannot write " + file.string() + " (disk full?)", "free space; the previous version is kept");
  }
}

}  // namespace allocstamp
