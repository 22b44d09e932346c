#include "viz/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace dtsim::viz {

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create folder '" + target.parent_path().string() + "': " + ec.message());
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + temporary + "'");
    write(out);
    out.flush();
    if (!out) throw std::runtime_error("error while writing '" + temporary + "'");
  }
  fs::rename(temporary, target, ec);
  if (ec) throw std::runtime_error("cannot rename '" + temporary + "' to '" + path + "': " + ec.message());
}

}  // namespace dtsim::viz
