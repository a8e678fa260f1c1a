// input_file.h — opening a file bench reads (a results folder's CSVs and
// meta.json, a registry, a trace's listing): only a regular file is read, and
// what is not one — missing, a folder, a FIFO that would block, a device that
// never ends, a symbolic link loop, unreadable — is a UsageError (exit 2)
// naming the file, never a hang, a gigabyte read or "a bug in bench".
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

namespace allocstamp {

// Whether a link at the file's own name is followed. A file a user names (a
// registry, --csv) may be a link; a file inside a results folder that others
// can write into (callsites/) is read only as itself.
enum class Links { follow, refuse };

// A read-only descriptor of `file` (close it), opened without blocking on a
// FIFO; UsageError naming `file` and what it is when it is not a regular file
// (or, with Links::refuse, when it is a symbolic link).
int open_input_file(const std::filesystem::path& file, Links links = Links::follow);

// The whole of a small file (meta.json, a registry): at most `limit` bytes,
// else UsageError.
std::string read_input_file(const std::filesystem::path& file, std::size_t limit, Links links = Links::follow);

}  // namespace allocstamp
