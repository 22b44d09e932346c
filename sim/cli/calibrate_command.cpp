#include <fmt/format.h>

#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::cli {

int calibrate_command(const std::vector<std::string>& measurements, calibration::CalibrateOptions options,
                      const std::string& platform) {
  if (!platform.empty()) {
    const platform::PlatformSpec spec = scenario::load_platform_reference(platform);
    const bool nvswitch = spec.node.fabric == platform::NodeFabric::nvswitch;
    if (!spec.node.structured || (spec.node.fabric != platform::NodeFabric::nvlink_mesh && !nvswitch))
      throw core::InputError("--platform " + platform + ": its nodes are neither an NVLink mesh nor an NVSwitch node",
                             "a platform with [node] fabric = \"nvlink_mesh\" or \"nvswitch\", such as dgx1_v100 or "
                             "dgx_a100 (the fit needs the node's wiring); PCIe nodes are uniform: calibrate without "
                             "--platform");
    if (nvswitch) options.nvswitch_nvlinks = platform::nvswitch_nvlinks(spec.node);
    else options.nvlinks = spec.node.nvlinks;
    // A route inside an NVSwitch node crosses two GPU ports (alpha = 2 x a port's latency); one inside an NVLink mesh
    // one NVLink.
    const double latency_per_alpha = nvswitch ? 0.5 : 1.0;
    options.node_platform = [&, latency_per_alpha](const calibration::AlphaBetaFit& fit) {
      const collectives::AlphaBeta link = fit.intra->cost;
      std::vector<std::string> sets{fmt::format("name=\"{}\"", options.platform_name),
                                    fmt::format("node.nvlink.bandwidth=\"{:.6g}GBps\"", 1e-9 / link.beta_s_per_byte),
                                    fmt::format("node.nvlink.latency=\"{:.6g}us\"", link.alpha_s * latency_per_alpha * 1e6),
                                    fmt::format("call_latency=\"{:.6g}us\"", fit.intra->call_s * 1e6)};
      if (fit.intra->buffer_s_per_byte > 0)
        sets.push_back(fmt::format("buffer_bandwidth=\"{:.6g}GBps\"", 1e-9 / fit.intra->buffer_s_per_byte));
      return scenario::platform_toml_with(platform, sets);
    };
  }
  return calibration::calibrate_main(measurements, options, std::cout);
}

}  // namespace dtsim::cli
