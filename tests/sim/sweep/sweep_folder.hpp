#pragma once
// A sweep as a user runs it: a folder with a sweep file over tests/sim/scenario/good/minimal.toml (a star of 8
// hosts), and `dtsim sweep` run in that folder.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/read_file.hpp"
#include "tests/shell_command.hpp"

namespace dtsim::testing {

/// A fresh folder holding sweep.toml: `base = minimal.toml` then `body`.
inline std::filesystem::path sweep_folder(const std::string& name, const std::string& body) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("dtsim-sweep-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << body;
  return dir;
}

/// `dtsim sweep ARGUMENTS` run in `dir`, as a user in that folder: the results land in dir/sweep-out.
inline Outcome sweep_in(const std::filesystem::path& dir, const std::string& arguments) {
  return shell("cd " + dir.string() + " && " + DTSIM_BINARY + " sweep " + arguments);
}

inline int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace dtsim::testing
