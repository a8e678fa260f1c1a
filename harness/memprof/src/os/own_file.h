// own_file.h — a file memprof writes into a folder someone else can write to
// (a results folder's callsites/<run_id>.txt): never through a link, never
// into a FIFO. The folder is opened without following a link at its own name
// (O_NOFOLLOW | O_DIRECTORY), a fresh file of memprof's own is made in it
// (O_CREAT | O_EXCL: nothing planted is opened), and at the end it is renamed
// over the file's name: a link, FIFO or file planted there is replaced, what
// it pointed at left alone. Allocation-free: it runs at exit.
#pragma once

#include "memprof_limits.h"

namespace memprof::own_file {

struct File {
  int folder = -1;  // the folder, held open: the rename happens in the folder checked
  int fd = -1;      // the fresh file: write to it
  char name[ALLOCSTAMP_MEMPROF_PATH_BYTES];
  char temp[ALLOCSTAMP_MEMPROF_PATH_BYTES];
};

// Makes the fresh file for `path`; false (nothing made, errno set) when its
// folder is a link or not a folder, or the file cannot be made.
bool open(File& f, const char* path);

// Closes the file and renames it to its name; false (the fresh file removed)
// when that fails, e.g. a folder stands at the name.
bool commit(File& f);

}  // namespace memprof::own_file
