#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/plan/explain.hpp"

namespace dtsim::cli {

int explain_command(const std::string& run_dir, int jobs, bool what_ifs_only) {
  const plan::Explanation e = plan::explain_run(run_dir, {self_executable(), jobs, "analytic"}, std::cerr,
                                                isatty(STDERR_FILENO) == 1);
  if (what_ifs_only) {
    std::cout << "what-ifs, simulated (one change each; `dtsim explain " << run_dir << "` says why):\n";
    plan::print_what_ifs(std::cout, e, 3);
  } else {
    plan::print_explanation(std::cout, e);
  }
  const std::string path = (std::filesystem::path(run_dir) / "explain" / "explain.json").string();
  core::write_atomically(path, [&](std::ostream& out) { out << plan::explanation_json(e).dump(2) << '\n'; });
  std::cout << "wrote " << path << "\n";
  return 0;
}

}  // namespace dtsim::cli
