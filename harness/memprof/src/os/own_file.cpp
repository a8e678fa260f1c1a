// own_file.cpp — a file written beside its name, then renamed into place (own_file.h).
#include "os/own_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "base/text.h"

namespace memprof::own_file {

bool open(File& f, const char* path) {
  f.folder = f.fd = -1;
  size_t slash = text::length(path);
  while (slash > 0 && path[slash - 1] != '/') --slash;
  // The folder without its trailing slash: "link/" would resolve the link
  // whatever O_NOFOLLOW says ("/" stays "/").
  char folder[ALLOCSTAMP_MEMPROF_PATH_BYTES];
  if (slash == 0) {
    text::copy(folder, sizeof folder, ".");
  } else {
    const size_t end = slash == 1 ? 1 : slash - 1;
    for (size_t i = 0; i < end; ++i) folder[i] = path[i];
    folder[end] = 0;
  }
  if (!text::copy(f.name, sizeof f.name, path + slash) || !f.name[0]) return errno = EINVAL, false;
  // ".<name>.<pid>.tmp": hidden from a reader that takes *.txt.
  text::Line temp;
  temp.add('.').add(f.name).add('.').num(uint64_t(getpid())).add(".tmp");
  if (temp.size() + 1 > sizeof f.temp) return errno = ENAMETOOLONG, false;
  for (size_t i = 0; i < temp.size(); ++i) f.temp[i] = temp.data()[i];
  f.temp[temp.size()] = 0;
  f.folder = ::open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (f.folder < 0) return false;
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  f.fd = openat(f.folder, f.temp, flags, 0644);
  if (f.fd < 0 && errno == EEXIST) {
    // A leftover of this pid, or one planted: removing a name removes a link, never its target.
    unlinkat(f.folder, f.temp, 0);
    f.fd = openat(f.folder, f.temp, flags, 0644);
  }
  if (f.fd < 0) {
    const int error = errno;
    close(f.folder);
    f.folder = -1;
    errno = error;
    return false;
  }
  return true;
}

bool commit(File& f) {
  bool ok = close(f.fd) == 0;
  f.fd = -1;
  ok = ok && renameat(f.folder, f.temp, f.folder, f.name) == 0;
  const int error = errno;
  if (!ok) unlinkat(f.folder, f.temp, 0);
  close(f.folder);
  f.folder = -1;
  errno = error;
  return ok;
}

}  // namespace memprof::own_file
