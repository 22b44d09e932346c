#pragma once
/// Results are written atomically: to a temporary file in the same folder, then renamed.
#include <functional>
#include <ostream>
#include <string>

namespace dtsim::viz {

/// Creates `path`'s folder if needed, writes through `write` into "<path>.tmp", then renames it to `path`.
/// Throws std::runtime_error naming the path when the file cannot be written.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace dtsim::viz
