#pragma once
/// `dtsim calibrate`: measured collective times in, a platform file and a summary out.
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
};

/// Measurements, the fit and the platform file.
struct Calibration {
  std::vector<Measurement> measurements;
  AlphaBetaFit fit;
  std::string platform_toml;
};

/// Reads every file (read_measurements), fits them together (fit_alpha_beta) and writes the platform file.
Calibration calibrate(const std::vector<std::string>& files, const CalibrateOptions& options);

/// `dtsim calibrate MEASUREMENTS... [--out platform.toml]`: with options.out_path, writes the platform file
/// there (temporary file + rename) and a summary to `out`; without, prints the platform file to `out` (its
/// comments are the summary). Returns the exit code, 0; bad input throws core::InputError (exit code 2).
int calibrate_main(const std::vector<std::string>& files, const CalibrateOptions& options, std::ostream& out);

}  // namespace dtsim::calibration
