// files.h — the files memprof opens itself: its output and trace files, the
// descriptor MEMPROF_OUT may name, and the /proc files it reads. No
// allocation (fixed buffers on the caller's stack), close-on-exec throughout,
// errno as the call left it.
#pragma once
#include <stddef.h>
#include <sys/types.h>

namespace memprof::files {

// Opens `path` for appending, made (0644) when missing, emptied first when
// `truncate`; -1 when it cannot be.
int open_appending(const char* path, bool truncate);
// Whether `fd` is an open descriptor.
bool is_open(int fd);
// A close-on-exec copy of `fd` numbered `lowest` or above; -1 on failure.
int copy_above(int fd, int lowest);
// Reads a small file whole into buf (at most n - 1 bytes, then a NUL); the
// bytes read, 0 when it cannot be opened.
size_t read_whole(const char* path, char* buf, size_t n);
// Calls `each` with every line of `path`, its newline cut off (a line longer
// than 1023 bytes is cut there too); false when it cannot be opened.
bool each_line(const char* path, void (*each)(const char* line, void* context), void* context);
// The file's length (its descriptor placed at the end); -1 on failure.
off_t end_of(int fd);
// Cuts the file to `length` bytes.
bool cut_to(int fd, off_t length);
void close(int fd);

}  // namespace memprof::files
