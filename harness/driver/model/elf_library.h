// elf_library.h — what an ELF shared library says of itself (libelf): the
// functions its dynamic symbol table defines and its GNU build-id. bench asks
// it whether a library given by path is an allocator (it defines malloc and
// free), and which build of a library a run preloaded.
#pragma once
#include <filesystem>
#include <set>
#include <string>

namespace allocstamp {

struct ElfLibrary {
  bool shared_library = false;      // an ELF shared object (ET_DYN) libelf could read
  std::set<std::string> functions;  // defined in .dynsym (st_shndx != SHN_UNDEF), FUNC or IFUNC
  std::string build_id;             // NT_GNU_BUILD_ID in hex; "" when it has none
};

// Never throws: a file that is missing, unreadable or not ELF gives
// shared_library false.
ElfLibrary read_elf_library(const std::filesystem::path& file);

}  // namespace allocstamp
