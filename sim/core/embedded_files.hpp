#pragma once
/// Files from the source tree compiled into the binary (built-in platforms, the default scenario, the plot
/// script), so dtsim works from any directory. The list is in cmake/embedded.cmake.
#include <optional>
#include <string_view>
#include <vector>

namespace dtsim::core {

/// One file from the source tree: its path relative to the repository root and its contents.
struct EmbeddedFile {
  std::string_view path;
  std::string_view contents;
};

/// Every embedded file.
const std::vector<EmbeddedFile>& embedded_files();
/// The contents of the embedded file `path` (relative to the repository root), if there is one.
std::optional<std::string_view> embedded_file(std::string_view path);

}  // namespace dtsim::core
