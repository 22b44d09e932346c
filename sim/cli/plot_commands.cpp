#include <filesystem>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "viz/html_report.hpp"
#include "viz/plots.hpp"

namespace dtsim::cli {
namespace {

/// A run folder holds report.json, a sweep folder results.csv, a plan folder plan.json.
void require_results(const std::string& folder) {
  namespace fs = std::filesystem;
  if (!fs::exists(fs::path(folder) / "report.json") && !fs::exists(fs::path(folder) / "results.csv") &&
      !fs::exists(fs::path(folder) / "plan.json"))
    throw core::InputError(folder, "no report.json, results.csv or plan.json in this folder",
                           "give the output folder of `dtsim run`, `dtsim sweep` or `dtsim plan`");
}

}  // namespace

int plot_command(const std::string& results, const std::string& out_dir) {
  require_results(results);
  for (const std::string& file : viz::draw_plots(results, out_dir.empty() ? results + "/plots" : out_dir))
    std::cout << "wrote " << file << '\n';
  return 0;
}

int report_command(const std::string& folder) {
  require_results(folder);
  std::cout << "wrote " << viz::write_html_report(folder) << '\n';
  return 0;
}

}  // namespace dtsim::cli
