// trace_compress.cpp — zstd frames of a trace (trace_compress.h).
#include "trace_compress.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "trace_reader.h"

namespace allocstamp::trace {

Compressed compress_trace(const std::string& raw_path, const std::string& out_path, int level) {
  constexpr std::size_t kFrameInput = 4u << 20;
  std::ifstream in(raw_path, std::ios::binary);
  if (!in) throw TraceError(raw_path + ": cannot be read — check the path");
  // A fresh file of its own beside `out_path` (mkstemp: O_CREAT | O_EXCL, no
  // link at any name is opened), renamed over it once whole: a link at
  // `out_path` is replaced, never written through, and an earlier trace there
  // stays until this one is complete.
  std::string temporary = out_path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) throw TraceError(out_path + ": cannot be written (" + std::strerror(errno) + ") — choose a writable folder");
  bool ok = true;
  auto write_all = [&](const char* data, std::size_t size) {
    while (ok && size > 0) {
      const ssize_t n = ::write(fd, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ok = false;
      else data += n, size -= std::size_t(n);
    }
  };
  std::vector<char> input(kFrameInput), output(ZSTD_compressBound(kFrameInput));
  Compressed sizes;
  std::string failure;
  while (in && ok) {
    in.read(input.data(), std::streamsize(input.size()));
    std::size_t got = std::size_t(in.gcount());
    if (got == 0) break;
    std::size_t n = ZSTD_compress(output.data(), output.size(), input.data(), got, level);
    if (ZSTD_isError(n)) {
      failure = raw_path + ": zstd failed (" + ZSTD_getErrorName(n) + ") — record it again";
      break;
    }
    write_all(output.data(), n);
    sizes.raw_bytes += got;
    sizes.compressed_bytes += n;
  }
  ok = ::fchmod(fd, 0644) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  std::error_code ec;
  if (failure.empty() && ok && (std::filesystem::rename(temporary, out_path, ec), !ec)) return sizes;
  std::filesystem::remove(temporary, ec);
  throw TraceError(!failure.empty() ? failure : out_path + ": a write failed — check the free space");
}

}  // namespace allocstamp::trace
