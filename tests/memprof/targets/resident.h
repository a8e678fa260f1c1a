// resident.h — the process's resident bytes as the kernel counts them
// (/proc/self/statm's second field), read without allocating: for the target
// programs that hold memprof's memory figures to what the process holds.
#pragma once
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The process's resident bytes, or -1.
inline long resident_bytes() {
  char text[128] = {0};
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return -1;
  const char* p = strchr(text, ' ');
  return p ? atol(p + 1) * sysconf(_SC_PAGESIZE) : -1;
}
