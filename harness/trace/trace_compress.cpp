// trace_compress.cpp — zstd frames of a trace (trace_compress.h).
#include "trace_compress.h"

#include <zstd.h>

#include <fstream>
#include <vector>

#include "trace_reader.h"

namespace allocstamp::trace {

Compressed compress_trace(const std::string& raw_path, const std::string& out_path, int level) {
  constexpr std::size_t kFrameInput = 4u << 20;
  std::ifstream in(raw_path, std::ios::binary);
  if (!in) throw TraceError(raw_path + ": cannot be read — check the path");
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out) throw TraceError(out_path + ": cannot be written — choose a writable folder");
  std::vector<char> input(kFrameInput), output(ZSTD_compressBound(kFrameInput));
  Compressed sizes;
  while (in) {
    in.read(input.data(), std::streamsize(input.size()));
    std::size_t got = std::size_t(in.gcount());
    if (got == 0) break;
    std::size_t n = ZSTD_compress(output.data(), output.size(), input.data(), got, level);
    if (ZSTD_isError(n)) throw TraceError(raw_path + ": zstd failed (" + ZSTD_getErrorName(n) + ") — record it again");
    out.write(output.data(), std::streamsize(n));
    sizes.raw_bytes += got;
    sizes.compressed_bytes += n;
  }
  if (!out) throw TraceError(out_path + ": a write failed — check the free space");
  return sizes;
}

}  // namespace allocstamp::trace
