// planted_files.h — what a hostile test plants in a results folder, in place
// of whatever stands at the name: a symbolic link, a FIFO; and the victim a
// link points at, whose text must come out unchanged.
#pragma once
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace allocstamp::testing {

inline constexpr const char* kVictimText = "untouched\n";

// A file holding kVictimText (again) at `file`.
inline std::filesystem::path victim_file(const std::filesystem::path& file) {
  std::ofstream(file, std::ios::trunc) << kVictimText;
  return file;
}

// `link` made a symbolic link to `target`, whatever stood there before.
inline void plant_link(const std::filesystem::path& target, const std::filesystem::path& link) {
  std::filesystem::remove_all(link);
  std::filesystem::create_symlink(target, link);
}

// `path` made a FIFO, whatever stood there before: a reader or writer that
// opens it blocks until the other side comes.
inline void plant_fifo(const std::filesystem::path& path) {
  std::filesystem::remove_all(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << path;
}

// What stands at `path`, without following a link: "link", "fifo", "file", "folder", "none".
inline std::string kind_at(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
  switch (st.type()) {
    case std::filesystem::file_type::symlink: return "link";
    case std::filesystem::file_type::fifo: return "fifo";
    case std::filesystem::file_type::regular: return "file";
    case std::filesystem::file_type::directory: return "folder";
    case std::filesystem::file_type::not_found: return "none";
    default: return "other";
  }
}

}  // namespace allocstamp::testing
