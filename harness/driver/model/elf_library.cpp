// elf_library.cpp — reads .dynsym and the build-id note with libelf (elfutils)
// through its class-independent gelf_* calls.
#include "model/elf_library.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdio>

namespace allocstamp {

namespace {

void read_dynamic_functions(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, std::set<std::string>& into) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data || shdr.sh_entsize == 0) return;
  const size_t count = shdr.sh_size / shdr.sh_entsize;
  for (size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(data, int(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    if (const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name)) into.insert(name);
  }
}

std::string build_id_in(Elf_Scn* scn) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data) return "";
  GElf_Nhdr note;
  size_t offset = 0, name_at = 0, desc_at = 0;
  while ((offset = gelf_getnote(data, offset, &note, &name_at, &desc_at)) > 0) {
    const char* name = static_cast<const char*>(data->d_buf) + name_at;
    if (note.n_type != NT_GNU_BUILD_ID || note.n_namesz != 4 || std::string(name, 3) != "GNU") continue;
    const auto* desc = static_cast<const unsigned char*>(data->d_buf) + desc_at;
    std::string hex;
    char byte[3];
    for (size_t i = 0; i < note.n_descsz; ++i) {
      std::snprintf(byte, sizeof byte, "%02x", desc[i]);
      hex += byte;
    }
    return hex;
  }
  return "";
}

}  // namespace

ElfLibrary read_elf_library(const std::filesystem::path& file) {
  ElfLibrary library;
  if (elf_version(EV_CURRENT) == EV_NONE) return library;
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return library;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  GElf_Ehdr header;
  if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &header) && header.e_type == ET_DYN) {
    library.shared_library = true;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr shdr;
      if (!gelf_getshdr(scn, &shdr)) continue;
      if (shdr.sh_type == SHT_DYNSYM) read_dynamic_functions(elf, scn, shdr, library.functions);
      if (shdr.sh_type == SHT_NOTE && library.build_id.empty()) library.build_id = build_id_in(scn);
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return library;
}

}  // namespace allocstamp
