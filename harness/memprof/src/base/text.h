// text.h — allocation-free text helpers for code that runs inside malloc or at
// exit: a fixed-buffer line builder that writes with one write() call.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

namespace memprof::text {

inline size_t length(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

inline bool iequal(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b)
    if ((*a | 0x20) != (*b | 0x20)) return false;
  return *a == *b;
}

// Equal in their first `n` characters (or up to the end of both).
inline bool equal_prefix(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
    if (!a[i]) return true;
  }
  return true;
}

inline bool starts_with(const char* s, const char* prefix) {
  for (; *prefix; ++s, ++prefix)
    if (*s != *prefix) return false;
  return true;
}

// Copies src into dst (capacity n); false when it does not fit.
inline bool copy(char* dst, size_t n, const char* src) {
  size_t i = 0;
  for (; src[i] && i + 1 < n; ++i) dst[i] = src[i];
  dst[i] = 0;
  return src[i] == 0;
}

// Parses an unsigned decimal prefix; *end points after it.
inline uint64_t parse_u64(const char* s, const char** end) {
  uint64_t v = 0;
  while (*s == ' ' || *s == '\t') ++s;
  for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + uint64_t(*s - '0');
  if (end) *end = s;
  return v;
}

// Writes all of buf to fd, retrying on short writes and EINTR.
bool write_all(int fd, const char* buf, size_t n);

// One line of output, built in a fixed buffer. Record lines stay below
// PIPE_BUF (4096) so that one write() is atomic on a pipe.
class Line {
 public:
  static constexpr size_t kCapacity = 4000;

  Line& add(const char* s) {
    while (*s && n_ < kCapacity) buf_[n_++] = *s++;
    return *this;
  }
  Line& add(char c) {
    if (n_ < kCapacity) buf_[n_++] = c;
    return *this;
  }
  Line& num(uint64_t v) {
    char tmp[24];
    int i = 0;
    do tmp[i++] = char('0' + v % 10); while (v /= 10);
    while (i && n_ < kCapacity) buf_[n_++] = tmp[--i];
    return *this;
  }
  Line& hex(uint64_t v) {
    char tmp[20];
    int i = 0;
    do tmp[i++] = "0123456789abcdef"[v & 15]; while (v >>= 4);
    add("0x");
    while (i && n_ < kCapacity) buf_[n_++] = tmp[--i];
    return *this;
  }
  Line& snum(int64_t v) {
    if (v < 0) {
      add('-');
      return num(uint64_t(-(v + 1)) + 1);
    }
    return num(uint64_t(v));
  }
  // Fixed-point with `decimals` digits after the point.
  Line& fixed(double v, int decimals) {
    if (v < 0) {
      add('-');
      v = -v;
    }
    uint64_t scale = 1;
    for (int i = 0; i < decimals; ++i) scale *= 10;
    uint64_t scaled = uint64_t(v * double(scale) + 0.5);
    num(scaled / scale);
    if (decimals) {
      add('.');
      uint64_t frac = scaled % scale;
      for (uint64_t d = scale / 10; d; d /= 10) {
        add(char('0' + frac / d));
        frac %= d;
      }
    }
    return *this;
  }
  // A non-negative whole number that may exceed 64 bits: digits as long as it
  // fits, else scientific notation with 13 significant digits
  // (1.234567890123e+20), which CSV readers parse.
  Line& whole(double v) {
    if (v < 0) v = 0;
    if (v < 1.8e19) return num(uint64_t(v));
    int exponent = 0;
    while (v >= 10) {
      v /= 10;
      ++exponent;
    }
    return fixed(v, 12).add("e+").num(uint64_t(exponent));
  }
  // " key=value" as in the record format.
  Line& kv(const char* key, uint64_t v) { return add(' ').add(key).add('=').num(v); }
  Line& kvs(const char* key, int64_t v) { return add(' ').add(key).add('=').snum(v); }
  Line& kvstr(const char* key, const char* v) { return add(' ').add(key).add('=').add(v); }
  Line& append(const Line& other) {
    for (size_t i = 0; i < other.n_ && n_ < kCapacity; ++i) buf_[n_++] = other.buf_[i];
    return *this;
  }
  // Appends `other` right-aligned in a field of `width` characters.
  Line& right(const Line& other, size_t width) {
    for (size_t i = other.n_; i < width; ++i) add(' ');
    return append(other);
  }
  // Pads with spaces up to column `col`.
  Line& pad(size_t col) {
    while (n_ < col && n_ < kCapacity) buf_[n_++] = ' ';
    return *this;
  }

  size_t size() const { return n_; }
  bool full() const { return n_ >= kCapacity; }
  const char* data() const { return buf_; }
  void clear() { n_ = 0; }
  bool write_to(int fd) const { return write_all(fd, buf_, n_); }

 private:
  char buf_[kCapacity + 2];
  size_t n_ = 0;
};

}  // namespace memprof::text
