#include "sim/calibration/calibrate.hpp"

#include <filesystem>
#include <fstream>

#include "sim/calibration/platform_toml.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"

namespace dtsim::calibration {

Calibration calibrate(const std::vector<std::string>& files, const CalibrateOptions& options) {
  if (files.empty()) throw core::InputError("no measurement file", "one or more measurement files");
  if (options.collective == "nccl" || options.collective == "auto" || options.collective == "mpich_auto")
    throw core::InputError("--collective " + options.collective + ": it picks its algorithm (and protocol) by size "
                                                                   "and by the very costs being fitted, so its time "
                                                                   "is not one line in alpha and beta",
                           "fit a fixed algorithm, e.g. ring (NCCL's choice for large messages); nccl and auto then "
                           "run on the fitted links");
  Calibration c;
  for (const std::string& file : files) {
    std::vector<Measurement> m = read_measurements(file);
    c.measurements.insert(c.measurements.end(), m.begin(), m.end());
  }
  c.fit = fit_alpha_beta(c.measurements, options.collective, options.nvlinks, options.nvswitch_nvlinks);
  if (options.nvlinks.empty() && options.nvswitch_nvlinks == 0) {
    c.platform_toml = platform_toml(c.fit, options.platform_name, files, options.nodes);
    return c;
  }
  DTSIM_CHECK(static_cast<bool>(options.node_platform), "a node calibration without its platform writer");
  if (options.nodes > 0)
    throw core::InputError("--nodes " + std::to_string(options.nodes) + " with --platform",
                           "the nodes are the platform's; change them with --set platform.nodes=N when running");
  std::string header = options.nvlinks.empty()
                           ? "# dtsim calibrate: the GPU's NVSwitch port fitted to " +
                                 std::to_string(c.measurements.size()) + " measurements through NCCL's ring channels\n"
                           : "# dtsim calibrate: one NVLink fitted to " + std::to_string(c.measurements.size()) +
                                 " measurements through NCCL's rings over this node's NVLinks\n";
  for (const std::string& file : files) header += "#   " + file + '\n';
  for (const std::string& line : describe_fit(c.fit)) header += "# " + line + '\n';
  c.platform_toml = header + options.node_platform(c.fit);
  return c;
}

int calibrate_main(const std::vector<std::string>& files, const CalibrateOptions& options, std::ostream& out) {
  const Calibration c = calibrate(files, options);
  if (options.out_path.empty()) {
    out << c.platform_toml;
    return 0;
  }
  core::write_atomically(options.out_path, [&](std::ostream& file) { file << c.platform_toml; });
  out << "dtsim calibrate: " << c.measurements.size() << " measurements from " << files.size() << " file"
      << (files.size() == 1 ? "" : "s") << '\n';
  for (const std::string& line : describe_fit(c.fit)) out << "  " << line << '\n';
  out << "wrote " << options.out_path << " (use it as: platform = \"" << options.out_path << "\")\n";
  return 0;
}

}  // namespace dtsim::calibration
