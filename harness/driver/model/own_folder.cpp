// own_folder.cpp — mkdir(2) and lstat(2), never a link followed (own_folder.h).
#include "model/own_folder.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace allocstamp {

std::string own_folder_problem(const std::filesystem::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return "cannot look at " + dir.string() + ": " + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "";
  const char* what = S_ISLNK(st.st_mode)    ? "a symbolic link"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISREG(st.st_mode)  ? "a file"
                                            : "not a folder";
  return dir.string() + " is " + what + ", not a folder of the results folder's own: bench neither writes nor reads "
         "through it (remove it)";
}

std::string make_own_folder(const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return "cannot make " + dir.string() + ": " + std::strerror(errno);
  return own_folder_problem(dir);
}

}  // namespace allocstamp
