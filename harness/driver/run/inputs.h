// inputs.h — the inputs the project generates for someone else's program (a
// Lua script, an SQL script, a PDF): made once per generator, size and seed by
// the generator its workload entry names, before any run, and cached in the
// build folder under a name that holds a digest of the generator's text, so a
// changed generator makes a new file and an unchanged one is never made twice.
#pragma once
#include <string>
#include <vector>

#include "model/catalog.h"

namespace allocstamp {

// The file `workload`'s generator makes for `size` and `seed` (not made yet
// perhaps): <build>/inputs/<workload>-<size>-s<seed>-<digest><suffix>.
std::string input_path(const Workload& workload, const std::string& size, unsigned seed, const Paths& paths);

// Makes the input of each of `workloads` that has a generator at the size
// `size_of` gives it, where it is not made yet, and records the file in its
// `inputs`. Says what it makes on `progress`. UsageError when a generator is
// missing or fails (its output kept nowhere).
template <class SizeOf>
void prepare_inputs(std::vector<Workload>& workloads, const SizeOf& size_of, unsigned seed, const Paths& paths,
                    std::ostream& progress);

// The generator's command: python3 -s GENERATOR --size SIZE --seed SEED, writing the input to its standard
// output; it runs in an environment bench sets (inputs.cpp: generator_limits), at most 600 s.
std::vector<std::string> generator_command(const Workload& workload, const std::string& size, unsigned seed,
                                           const Paths& paths);

// Makes one input (the file input_path names) unless it is there.
void make_input(const Workload& workload, const std::string& size, unsigned seed, const Paths& paths,
                std::ostream& progress);

template <class SizeOf>
void prepare_inputs(std::vector<Workload>& workloads, const SizeOf& size_of, unsigned seed, const Paths& paths,
                    std::ostream& progress) {
  for (Workload& w : workloads) {
    if (w.input_generator.empty()) continue;
    const std::string size = size_of(w.name);
    make_input(w, size, seed, paths, progress);
    w.inputs[size] = input_path(w, size, seed, paths);
  }
}

}  // namespace allocstamp
