#include "sim/calibration/calibrate.hpp"

#include <filesystem>
#include <fstream>

#include "models/gpu_profile.hpp"
#include "sim/calibration/kineto_trace.hpp"
#include "sim/calibration/platform_toml.hpp"
#include "sim/calibration/profile_fit.hpp"
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

int calibrate_trace_main(const std::string& trace_path, const CalibrateOptions& options, std::ostream& out) {
  if (options.gpu.empty())
    throw core::InputError(trace_path + ": a profiler trace without --gpu",
                           "--gpu NAME: the built-in profile whose kernel constants are fitted (" +
                               core::join_names(models::gpu_names()) + ")");
  if (options.nodes > 0 || !options.nvlinks.empty() || options.nvswitch_nvlinks > 0 || options.node_platform)
    throw core::InputError(trace_path + ": --nodes or --platform with a profiler trace",
                           "they describe a collective measurement's cluster; a trace fits one GPU's constants");
  const models::GpuProfile base = models::gpu_profile(options.gpu);
  const KinetoTrace trace = read_kineto_trace(trace_path);
  const ProfileFit fit = fit_profile(trace, base, models::parse_precision(options.precision));
  if (!options.layers_out.empty()) {
    const std::string csv = layer_times_csv(trace);
    core::write_atomically(options.layers_out, [&](std::ostream& file) { file << csv; });
  }
  const std::string toml = calibration_toml(fit);
  if (options.out_path.empty()) {
    out << toml;
  } else {
    core::write_atomically(options.out_path, [&](std::ostream& file) { file << toml; });
    out << "dtsim calibrate: the " << base.name << " profile's kernel constants\n";
    for (const std::string& line : describe_profile_fit(fit)) out << "  " << line << '\n';
    out << "wrote " << options.out_path << " (use it as: [gpu] calibration = \"" << options.out_path << "\")\n";
  }
  if (!options.layers_out.empty())
    out << "wrote " << options.layers_out << " (use it as: [gpu] measured_layers = \"" << options.layers_out
        << "\")\n";
  return 0;
}

int calibrate_main(const std::vector<std::string>& files, const CalibrateOptions& options, std::ostream& out) {
  for (const std::string& file : files)
    if (looks_like_json(file)) {
      if (files.size() > 1)
        throw core::InputError(file + ": a profiler trace among " + std::to_string(files.size()) + " files",
                               "one trace alone, or collective measurements (nccl-tests, CSV) alone");
      return calibrate_trace_main(file, options, out);
    }
  if (!options.gpu.empty() || !options.layers_out.empty())
    throw core::InputError("--gpu or --layers with collective measurements",
                           "--gpu and --layers go with a PyTorch profiler trace (a .json file)");
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
