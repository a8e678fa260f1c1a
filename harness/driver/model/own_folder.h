// own_folder.h — a folder bench makes inside a results folder for files others
// write and bench reads back (callsites/, where memprof writes): made with
// mkdir(2), which never follows a link at its name, then checked with lstat(2)
// — a link, or anything but a folder, standing at the name is never followed.
#pragma once
#include <filesystem>
#include <string>

namespace allocstamp {

// What stands at `dir` if it is not a folder of its own: "" for a folder, else
// a sentence naming `dir` (a symbolic link, a file, ...). Nothing is made.
std::string own_folder_problem(const std::filesystem::path& dir);

// Makes `dir` (its parent must exist) unless it is there; "" when it is now a
// folder of its own, else the problem, as own_folder_problem says it.
std::string make_own_folder(const std::filesystem::path& dir);

}  // namespace allocstamp
