#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/plan/explain.hpp"

namespace dtsim::cli {

int explain_command(const std::string& run_dir, int jobs) {
  const plan::Explanation e = plan::explain_run(run_dir, {self_executable(), jobs, "analytic"}, std::cerr,
                                                isatty(STDERR_FILENO) == 1);
  std::ifstream in(std::filesystem::path(run_dir) / "report.json");
  plan::print_explanation(std::cout, nlohmann::json::parse(in), e);
  const std::string path = (std::filesystem::path(run_dir) / "explain" / "explain.json").string();
  core::write_atomically(path, [&](std::ostream& out) { out << plan::explanation_json(e).dump(2) << '\n'; });
  std::cout << "wrote " << path << "\n";
  return 0;
}

}  // namespace dtsim::cli
