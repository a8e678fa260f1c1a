// input_file.cpp — the checks of input_file.h: open(2) with O_NONBLOCK (a FIFO
// opens at once instead of waiting for a writer), then fstat(2) on what was
// opened, so the file checked is the file read.
#include "model/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "model/errors.h"

namespace allocstamp {

int open_input_file(const std::filesystem::path& file, Links links) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (links == Links::refuse ? O_NOFOLLOW : 0));
  if (fd < 0) {
    const int error = errno;
    struct stat st {};
    if (error == ELOOP && links == Links::refuse && ::lstat(file.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      throw UsageError(file.string() + " is a symbolic link: bench reads the results folder's own files, never "
                                       "through a link",
                       "remove the link: what bench wrote there is never one");
    if (error == ELOOP)
      throw UsageError(file.string() + " is a symbolic link loop (or a chain of more than 40 links)",
                       "point the link at a real file");
    if (error == ENOENT) throw UsageError(file.string() + " does not exist", "check the path");
    throw UsageError("cannot read " + file.string() + ": " + std::strerror(error), "check the path and its permissions");
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISSOCK(st.st_mode)                        ? "a socket"
                                                                     : "not a regular file";
    ::close(fd);
    throw UsageError(file.string() + " is " + what + ", not a regular file", "give the file bench wrote");
  }
  // Reads of a regular file do not block; the flag only kept open() from waiting.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_input_file(const std::filesystem::path& file, std::size_t limit, Links links) {
  const int fd = open_input_file(file, links);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      throw UsageError("cannot read " + file.string() + ": " + std::strerror(error), "check the file");
    }
    if (got == 0) break;
    if (text.size() + std::size_t(got) > limit) {
      ::close(fd);
      throw UsageError(file.string() + " is larger than " + std::to_string(limit >> 20) + " MiB",
                       "it is not a file bench wrote: give the right file");
    }
    text.append(buffer, std::size_t(got));
  }
  ::close(fd);
  return text;
}

}  // namespace allocstamp
