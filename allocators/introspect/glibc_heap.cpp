// glibc_heap.cpp — what glibc's malloc holds resident, which mallinfo2 does not
// say: its mappings are found in /proc/self/maps by their own headers (the
// main arena's [heap]; the other arenas' heaps, 64 MiB-aligned, each starting
// with a heap_info whose arena pointer leads to an arena that starts a heap;
// its mmapped chunks, whose header marks them mmapped and spans the mapping),
// and their resident pages counted with mincore. Fixed buffers only.
// The program's other threads may unmap a mapping between the read of the
// maps and the read of its header (a detached thread's stack, freed as the
// program exits): headers are read through process_vm_readv, which reports an
// address gone instead of faulting (read_word).
#include "glibc_heap.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <string.h>
#include <unistd.h>

namespace memprof::introspect {

namespace {

constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kHeapMax = uintptr_t(64) << 20;  // glibc's HEAP_MAX_SIZE on 64-bit
constexpr uintptr_t kMmappedBit = 2;                  // IS_MMAPPED in a chunk's size field
constexpr int kMaxCandidates = 512;

struct Range {
  uintptr_t start, end;
  uintptr_t arena;  // a heap's heap_info.ar_ptr; 0 otherwise
};

// One anonymous read-write private mapping of /proc/self/maps: [heap] or no path.
struct Mapping {
  uintptr_t start, end;
  bool brk_heap;
};

uintptr_t hex(const char*& p) {
  uintptr_t v = 0;
  for (;; ++p) {
    char c = *p;
    if (c >= '0' && c <= '9') v = v * 16 + uintptr_t(c - '0');
    else if (c >= 'a' && c <= 'f') v = v * 16 + uintptr_t(c - 'a' + 10);
    else return v;
  }
}

// "start-end rw-p offset dev inode [path]": the mapping, if it is one malloc can own.
bool parse(const char* line, const char* end, Mapping& m) {
  const char* p = line;
  m.start = hex(p);
  if (*p++ != '-') return false;
  m.end = hex(p);
  if (end - p < 5 || p[1] != 'r' || p[2] != 'w' || p[4] != 'p') return false;
  // The path is the sixth field: skip five fields and the spaces after them.
  int field = 1;
  for (; p < end && field < 6; ++p)
    if (*p == ' ') {
      ++field;
      while (p + 1 < end && p[1] == ' ') ++p;
    }
  const char* path = p;
  const long path_length = end - path;
  m.brk_heap = path_length == 6 && path[0] == '[' && path[1] == 'h' && path[5] == ']';
  return path_length <= 0 || m.brk_heap;
}

uint64_t resident(uintptr_t start, uintptr_t end) {
  static unsigned char vec[4096];
  uint64_t pages = 0;
  for (uintptr_t at = start; at < end;) {
    uintptr_t n = (end - at) / kPage;
    if (n > sizeof vec) n = sizeof vec;
    if (mincore(reinterpret_cast<void*>(at), n * kPage, vec) != 0) return pages * kPage;
    for (uintptr_t i = 0; i < n; ++i) pages += vec[i] & 1;
    at += n * kPage;
  }
  return pages * kPage;
}

}  // namespace

// Where process_vm_readv is refused (a seccomp filter), a pipe does the same:
// write() from an address gone fails with EFAULT.
static bool read_through_pipe(uintptr_t address, void* out, size_t n) {
  static int ends[2] = {-1, -1};
  if (ends[0] < 0 && pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  if (write(ends[1], reinterpret_cast<const void*>(address), n) != ssize_t(n)) return false;
  return read(ends[0], out, n) == ssize_t(n);
}

bool read_word(uintptr_t address, uintptr_t& value) {
  iovec local{&value, sizeof value};
  iovec remote{reinterpret_cast<void*>(address), sizeof value};
  const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got == ssize_t(sizeof value)) return true;
  if (got < 0 && (errno == ENOSYS || errno == EPERM)) return read_through_pipe(address, &value, sizeof value);
  return false;
}

namespace {

void add(HeapHeld& held, uintptr_t start, uintptr_t end) {
  held.mapped += end - start;
  held.resident += resident(start, end);
}

// Mmapped chunks laid end to end from `start` (the kernel merges adjacent
// anonymous mappings): each header's size, marked mmapped, must fit.
void add_mmapped_chunks(HeapHeld& held, uintptr_t start, uintptr_t end) {
  uintptr_t at = start;
  while (at + 2 * sizeof(uintptr_t) <= end) {
    uintptr_t header[2];
    if (!read_word(at, header[0]) || !read_word(at + sizeof(uintptr_t), header[1])) break;  // unmapped meanwhile
    const uintptr_t size = header[1] & ~uintptr_t(7);
    if (header[0] != 0 || !(header[1] & kMmappedBit) || size < kPage || size % kPage != 0 || size > end - at) break;
    add(held, at, at + size);
    at += size;
  }
}

}  // namespace

HeapHeld glibc_heap_held() {
  HeapHeld held{0, 0, false};
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return held;
  static Range candidates[kMaxCandidates];
  int heaps = 0;
  static char buf[65536];
  size_t used = 0;
  bool eof = false;
  while (!eof || used > 0) {
    if (!eof) {
      ssize_t got = read(fd, buf + used, sizeof buf - used);
      if (got <= 0) eof = true;
      else used += size_t(got);
    }
    size_t consumed = 0;
    for (;;) {
      char* line = buf + consumed;
      char* newline = static_cast<char*>(memchr(line, '\n', used - consumed));
      if (!newline) {
        if (eof && used > consumed) newline = buf + used;  // a last line without its end
        else break;
      }
      Mapping m;
      if (parse(line, newline, m)) {
        if (m.brk_heap) {
          add(held, m.start, m.end);
        } else if (m.start % kHeapMax == 0 && m.end - m.start <= kHeapMax) {
          // A heap of another arena: its heap_info comes first.
          uintptr_t arena = 0;
          if (read_word(m.start, arena) && heaps < kMaxCandidates) candidates[heaps++] = {m.start, m.end, arena};
        } else if (m.start % kPage == 0) {
          add_mmapped_chunks(held, m.start, m.end);
        }
      }
      consumed = size_t(newline - buf) + (newline < buf + used ? 1 : 0);
      if (consumed >= used) break;
    }
    memmove(buf, buf + consumed, used - consumed);
    used -= consumed;
    if (!eof && used == sizeof buf) used = 0;  // a line longer than the buffer: skip it
    if (eof && consumed == 0) break;
  }
  close(fd);
  // An arena's first heap holds the arena (its pointer points inside it); a
  // later heap of the arena points to the same arena.
  for (int i = 0; i < heaps; ++i) {
    bool ours = false;
    for (int j = 0; j < heaps && !ours; ++j)
      ours = candidates[i].arena != 0 && candidates[i].arena == candidates[j].arena &&
             candidates[j].arena - candidates[j].start < candidates[j].end - candidates[j].start;
    if (ours) add(held, candidates[i].start, candidates[i].end);
  }
  held.valid = true;
  return held;
}

}  // namespace memprof::introspect
