#include <fmt/format.h>

#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::cli {

int calibrate_command(const std::vector<std::string>& measurements, calibration::CalibrateOptions options,
                      const std::string& platform) {
  if (!platform.empty()) {
    const platform::PlatformSpec spec = scenario::load_platform_reference(platform);
    if (spec.node.fabric != platform::NodeFabric::nvlink_mesh)
      throw core::InputError("--platform " + platform + ": its nodes are not an NVLink mesh",
                             "an NVLink-mesh platform such as dgx1_v100 (the fit needs its wiring); NVSwitch and PCIe "
                             "nodes are uniform: calibrate without --platform");
    options.nvlinks = spec.node.nvlinks;
    options.node_platform = [&](const calibration::AlphaBetaFit& fit) {
      const collectives::AlphaBeta link = fit.intra->cost;
      return scenario::platform_toml_with(
          platform, {fmt::format("name=\"{}\"", options.platform_name),
                     fmt::format("node.nvlink.bandwidth=\"{:.6g}GBps\"", 1e-9 / link.beta_s_per_byte),
                     fmt::format("node.nvlink.latency=\"{:.6g}us\"", link.alpha_s * 1e6),
                     fmt::format("call_latency=\"{:.6g}us\"", fit.intra->call_s * 1e6)});
    };
  }
  return calibration::calibrate_main(measurements, options, std::cout);
}

}  // namespace dtsim::cli
