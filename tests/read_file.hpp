#pragma once
// The whole of a file as bytes, for tests that compare what dtsim wrote.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dtsim::testing {

/// The bytes of `path` (empty when it cannot be read).
inline std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace dtsim::testing
