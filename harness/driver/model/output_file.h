// output_file.h — writing a whole file bench makes (runs.csv rewritten,
// meta.json, summary.csv, a figure's data, a generated input): never through a
// link, never half-written.
#pragma once
#include <filesystem>
#include <string>

namespace allocstamp {

// Writes `text` to `file` through a temporary: a failed write keeps the old file.
void replace_file(const std::filesystem::path& file, const std::string& text);

}  // namespace allocstamp
