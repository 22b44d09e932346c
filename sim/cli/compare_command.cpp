#include <filesystem>
#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/flat_settings.hpp"
#include "viz/run_comparison.hpp"
#include "viz/run_folder.hpp"

namespace dtsim::cli {

int compare_command(const std::vector<std::string>& run_dirs, bool json, const std::string& out_dir) {
  if (run_dirs.size() < 2)
    throw core::InputError("dtsim compare", "one run folder given", "give two or more run folders: dtsim compare A B");
  std::vector<viz::ComparedRun> runs;
  for (const std::string& dir : run_dirs) {
    nlohmann::json report = viz::read_run_report(dir);
    const std::string where = (std::filesystem::path(dir) / "report.json").string() + " (provenance.resolved_scenario)";
    const nlohmann::json& resolved = report["provenance"]["resolved_scenario"];
    if (!resolved.is_string())
      throw core::InputError(where, "no resolved scenario", "give the output folder of `dtsim run --out DIR`");
    runs.push_back({dir, std::move(report), scenario::flat_settings(resolved.get<std::string>(), where)});
  }
  const nlohmann::json comparison = viz::comparison_json(runs);
  if (comparison["versions_differ"].get<bool>())
    std::cerr << "dtsim: warning: the runs come from different dtsim versions (compare.json: runs[].dtsim_version)\n";
  if (json)
    std::cout << comparison.dump(2) << '\n';
  else
    viz::print_comparison(std::cout, comparison);
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec || !std::filesystem::is_directory(out_dir))
      throw core::InputError(out_dir, "cannot create the output folder", "give a writable folder (--out)");
    const std::string path = (std::filesystem::path(out_dir) / "compare.json").string();
    core::write_atomically(path, [&](std::ostream& out) { out << comparison.dump(2) << '\n'; });
    (json ? std::cerr : std::cout) << "wrote " << path << '\n';
  }
  return 0;
}

}  // namespace dtsim::cli
