#pragma once
/// Results are written atomically: to a uniquely named temporary file in the same folder, synced to disk, then
/// renamed over the target; a failure removes the temporary, so no partial file is ever left behind.
#include <functional>
#include <ostream>
#include <string>

namespace dtsim::core {

/// Creates `path`'s folder if needed, renders `write` in memory, writes it to "<path>.XXXXXX" (mkstemp), fsyncs
/// it, renames it to `path` and fsyncs the folder. Throws core::InputError naming the path and the system's
/// reason (read-only folder, disk full) with the way out; an exception from `write` propagates untouched.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace dtsim::core
