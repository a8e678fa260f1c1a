// catalog.cpp — what the catalog's types say of themselves (catalog.h).
#include "model/catalog.h"

namespace allocstamp {

std::string install_hint(const Allocator& a) {
  if (!a.package.empty()) return "apt-get install " + a.package + " (or run scripts/install-deps)";
  return "put its library at " + (a.candidates.empty() ? std::string("the path its registry entry names")
                                                       : a.candidates.front());
}

}  // namespace allocstamp
