// trace_compress.h — a recorded trace, compressed with zstd in independent
// frames (one per 4 MiB of trace), so that a reader can decompress it as it
// streams; the reader (trace_reader.h) takes either form.
#pragma once
#include <cstdint>
#include <string>

namespace allocstamp::trace {

struct Compressed {
  uint64_t raw_bytes = 0, compressed_bytes = 0;
};

// Writes `raw_path` compressed to `out_path` (they may not be the same file).
// Throws TraceError when either cannot be read or written.
Compressed compress_trace(const std::string& raw_path, const std::string& out_path, int level = 3);

}  // namespace allocstamp::trace
