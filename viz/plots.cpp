#include "viz/plots.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sim/core/embedded_files.hpp"
#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"

namespace dtsim::viz {
namespace fs = std::filesystem;
namespace {

/// Debian's interpreter (python3-matplotlib installs for it), unless DTSIM_PYTHON names another.
std::string python() {
  const char* chosen = std::getenv("DTSIM_PYTHON");
  return chosen ? chosen : "/usr/bin/python3";
}

}  // namespace

std::vector<std::string> draw_plots(const std::string& results, const std::string& out, const std::string& formats) {
  const auto script = core::embedded_file("viz/plot.py");
  DTSIM_CHECK(script.has_value(), "viz/plot.py is not embedded");
  char path[] = "/tmp/dtsim-plot-XXXXXX.py";
  const int fd = mkstemps(path, 3);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the plot script");
  close(fd);
  std::ofstream(path) << *script;
  const std::string command = core::shell_quote(python()) + " " + core::shell_quote(path) + " " +
                              core::shell_quote(results) + " " + core::shell_quote(out) + " " +
                              core::shell_quote(formats) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[1024];
  while (pipe && fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pipe ? pclose(pipe) : -1;
  fs::remove(path);
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (output.find("No module named 'matplotlib'") != std::string::npos || output.find("not found") != std::string::npos)
      throw std::runtime_error("plots need Debian's python3-matplotlib for " + python() +
                               " (apt-get install python3-matplotlib): " + output);
    throw std::runtime_error("the plot script failed: " + output);
  }
  std::vector<std::string> files;
  std::size_t begin = 0;
  while (begin < output.size()) {
    const std::size_t end = output.find('\n', begin);
    const std::string line = output.substr(begin, end - begin);
    if (!line.empty()) files.push_back(line);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return files;
}

}  // namespace dtsim::viz
