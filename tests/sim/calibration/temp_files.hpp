#pragma once
// Test helper: files written into a folder of this process (each test runs in its own process).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/error.hpp"

namespace dtsim::calibration::testing {

/// <temp>/dtsim-calibration-<pid>, created on first use and removed when the process ends.
inline const std::filesystem::path& folder() {
  struct Folder {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("dtsim-calibration-" + std::to_string(getpid()));
    Folder() { std::filesystem::create_directories(path); }
    ~Folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Folder f;
  return f.path;
}

/// Writes `text` to folder()/<name> and returns the path.
inline std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = (folder() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// The message of the core::InputError `f` throws, or "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace dtsim::calibration::testing
