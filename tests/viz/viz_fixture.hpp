#pragma once
// What the tests of `dtsim plot` and `dtsim report` share: a fresh folder, matplotlib's presence, counting.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/shell_command.hpp"

namespace dtsim::testing {

/// Plots and reports need Debian's python3-matplotlib; tests skip without it.
inline bool have_matplotlib() { return shell("/usr/bin/python3 -c 'import matplotlib'").code == 0; }

/// An empty folder of this test process under the temporary directory.
inline std::filesystem::path fresh_folder(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dtsim-viz-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Occurrences of `what` in `text`.
inline int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace dtsim::testing
