// selection.h — from names on the command line to registry entries, with the
// errors a user needs: unknown names (listing the valid ones), libraries not
// installed (naming the Debian package), workload binaries not built.
#pragma once
#include <filesystem>
#include <ostream>
#include <vector>

#include "model/catalog.h"
#include "model/options.h"

namespace allocstamp {

// The allocators to run: named ones must be installed; "all" keeps the ones
// that are not, to be recorded as skipped.
std::vector<Allocator> select_allocators(const Options& options, const Catalog& catalog);
std::vector<Workload> select_workloads(const Options& options, const Catalog& catalog, const Paths& paths);

void print_list(const Catalog& catalog, const Paths& paths, std::ostream& out);

}  // namespace allocstamp
