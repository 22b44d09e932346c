#pragma once
/// The next product generation of a link: what a faster link of the same kind would be if bought today, so that a
/// what-if proposes a link that exists (NVLink 3 -> 4 -> 5, ConnectX-6 -> 7 -> 8, PCIe 4.0 -> 5.0 -> 6.0), never
/// an invented multiple of the one in the run.
#include <optional>
#include <string>

namespace dtsim::viz {

/// A link product: its name and its bandwidth per direction.
struct LinkProduct {
  std::string name;  ///< "NVLink 5 (B200)", "800 Gb/s (ConnectX-8, XDR / 800GbE)"
  double bandwidth_Bps = 0;
};

/// The generation after the one a link of platform key `key` (platform.inter_link, platform.node.nvlink, ...) of
/// line rate `bandwidth_Bps` (as configured, before packet overhead) is: `count` x the next product where the link
/// models `count` ports of one product (a node's rails as one NIC, 8 x 200 Gb/s), none where the rate is no
/// product of that kind's ladder (a calibrated bus bandwidth, a per-link NVLink of a hybrid cube mesh) or already
/// the newest.
std::optional<LinkProduct> next_link_product(const std::string& key, double bandwidth_Bps);

}  // namespace dtsim::viz
