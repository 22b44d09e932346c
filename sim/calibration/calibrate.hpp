#pragma once
/// `dtsim calibrate`: measured collective times in, a platform file and a summary out; or a PyTorch profiler trace
/// in, a GPU calibration file (profile_fit.hpp) and a summary out.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/calibration/alpha_beta_fit.hpp"
#include "sim/calibration/measurement.hpp"

namespace dtsim::calibration {

/// What `dtsim calibrate` fits and writes.
struct CalibrateOptions {
  std::string collective = "ring";           ///< the all-reduce whose closed form is fitted
  std::string platform_name = "calibrated";  ///< `name` in the platform file
  std::string out_path;                      ///< platform file to write; empty: print it
  int nodes = 0;                             ///< nodes in the platform written; 0: as many as measured
  /// The NVLink mesh of the node measured (`--platform` of an NVLink-mesh platform): fit one NVLink through
  /// NCCL's rings (fit_alpha_beta); empty: a uniform node.
  collectives::NvlinkCounts nvlinks;
  /// NVLinks from each GPU to the switches of the NVSwitch node measured (`--platform` of an NVSwitch platform):
  /// fit the GPU's port through NCCL's channels there (fit_alpha_beta); 0: not an NVSwitch node.
  int nvswitch_nvlinks = 0;
  /// With `nvlinks` or `nvswitch_nvlinks`: the platform file for the fit (that platform with its NVLink set to the
  /// fitted one).
  std::function<std::string(const AlphaBetaFit&)> node_platform;
  // ---- a profiler trace ----
  std::string gpu;                 ///< the built-in profile whose kernel constants are fitted to the trace
  std::string precision = "bf16";  ///< of operators whose input types were not recorded
  std::string layers_out;          ///< where to write the per-layer times (gpu.measured_layers); empty: not written
};

/// Measurements, the fit and the platform file.
struct Calibration {
  std::vector<Measurement> measurements;
  AlphaBetaFit fit;
  std::string platform_toml;
};

/// Reads every file (read_measurements), fits them together (fit_alpha_beta) and writes the platform file.
Calibration calibrate(const std::vector<std::string>& files, const CalibrateOptions& options);

/// `dtsim calibrate --gpu NAME TRACE.json [--out calibration.toml] [--layers layers.csv]`: fits the profile's kernel
/// constants to the trace (fit_profile), writes the calibration file (or prints it) and the summary.
int calibrate_trace_main(const std::string& trace, const CalibrateOptions& options, std::ostream& out);

/// `dtsim calibrate MEASUREMENTS... [--out platform.toml]`: with options.out_path, writes the platform file
/// there (temporary file + rename) and a summary to `out`; without, prints the platform file to `out` (its
/// comments are the summary). Returns the exit code, 0; bad input throws core::InputError (exit code 2).
int calibrate_main(const std::vector<std::string>& files, const CalibrateOptions& options, std::ostream& out);

}  // namespace dtsim::calibration
