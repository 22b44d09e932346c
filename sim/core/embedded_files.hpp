#pragma once
/// Platform and scenario files compiled into the binary, so `dtsim run` works from any directory.
#include <string_view>
#include <vector>

namespace dtsim::scenario {

/// One file from the source tree: its path relative to the repository root and its contents.
struct EmbeddedFile {
  std::string_view path;
  std::string_view contents;
};

/// Every embedded file (platforms/*.toml listed in sim/scenario/CMakeLists.txt, scenarios/default.toml).
const std::vector<EmbeddedFile>& embedded_files();

}  // namespace dtsim::scenario
