#include "viz/link_products.hpp"

#include <array>
#include <cmath>
#include <span>
#include <vector>

#include <fmt/format.h>

namespace dtsim::viz {
namespace {

struct Generation {
  const char* name;
  double bandwidth_Bps;  ///< per direction
};

// Network ports (NICs, switch ports), per direction: Ethernet (IEEE 802.3ae 10GbE, 802.3by 25GbE, 802.3cd 50GbE,
// 802.3ba/bm 100GbE, 802.3bs 200/400GbE, 802.3df 800GbE) and InfiniBand (EDR 100, HDR 200, NDR 400, XDR 800
// Gb/s per 4x port), with NVIDIA's adapters of each rate (ConnectX-4 Lx 25GbE, ConnectX-5 EDR, ConnectX-6 HDR,
// ConnectX-7 NDR, ConnectX-8 SuperNIC XDR: NVIDIA product briefs).
constexpr std::array<Generation, 7> kNetworkPorts{{
    {"10 Gb/s (10GbE)", 10e9 / 8},
    {"25 Gb/s (25GbE, ConnectX-4 Lx)", 25e9 / 8},
    {"50 Gb/s (50GbE)", 50e9 / 8},
    {"100 Gb/s (EDR InfiniBand / 100GbE, ConnectX-5)", 100e9 / 8},
    {"200 Gb/s (HDR InfiniBand / 200GbE, ConnectX-6)", 200e9 / 8},
    {"400 Gb/s (NDR InfiniBand / 400GbE, ConnectX-7)", 400e9 / 8},
    {"800 Gb/s (XDR InfiniBand / 800GbE, ConnectX-8)", 800e9 / 8},
}};

// NVLink per GPU through NVSwitch, per direction (half of the datasheets' both-ways figure): NVLink 2 on V100
// SXM2 (6 links, 300 GB/s both ways; V100 datasheet), NVLink 3 on A100 (12 links, 600 GB/s; A100 datasheet),
// NVLink 4 on H100 (18 links, 900 GB/s; H100 datasheet), NVLink 5 on B200 (18 links, 1.8 TB/s; DGX B200
// datasheet).
constexpr std::array<Generation, 4> kNvlinkPerGpu{{
    {"NVLink 2 (V100)", 150e9},
    {"NVLink 3 (A100)", 300e9},
    {"NVLink 4 (H100)", 450e9},
    {"NVLink 5 (B200)", 900e9},
}};

// PCIe x16 per direction after line coding (PCI Express Base Specifications 3.0 to 6.0: 8, 16, 32 and 64 GT/s
// per lane; 128b/130b up to 5.0, FLIT mode at 6.0).
constexpr std::array<Generation, 4> kPcieX16{{
    {"PCIe 3.0 x16", 15.75e9},
    {"PCIe 4.0 x16", 31.5e9},
    {"PCIe 5.0 x16", 63e9},
    {"PCIe 6.0 x16", 121e9},
}};

/// Where a link kind's bandwidth comes from: the ladder its key's links are bought from, and how many ports of
/// one product a link may stand for.
struct LinkKind {
  const char* key;
  std::span<const Generation> ladder;
  int max_ports;  ///< a node's NICs modelled as one (a100_8x8_200gbib: 8 x 200 Gb/s)
};

const std::array<LinkKind, 7> kKinds{{
    {"platform.inter_link", kNetworkPorts, 8},
    {"platform.link", kNetworkPorts, 1},
    {"platform.network_link", kNetworkPorts, 1},
    {"platform.node.nvlink", kNvlinkPerGpu, 1},
    {"platform.node.pcie", kPcieX16, 1},
    {"platform.intra_link", kPcieX16, 1},  // a GPU's link to its node's switch: PCIe or NVLink
    {"platform.intra_link", kNvlinkPerGpu, 1},
}};

/// The index of line rate `bandwidth_Bps` in `ladder`, to 1e-6 (a rate read back from a report is rounded).
std::optional<std::size_t> rung(std::span<const Generation> ladder, double bandwidth_Bps) {
  for (std::size_t i = 0; i < ladder.size(); ++i)
    if (std::abs(bandwidth_Bps - ladder[i].bandwidth_Bps) <= 1e-6 * ladder[i].bandwidth_Bps) return i;
  return std::nullopt;
}

}  // namespace

std::optional<LinkProduct> next_link_product(const std::string& key, double bandwidth_Bps) {
  for (const LinkKind& kind : kKinds) {
    if (key != kind.key) continue;
    // One port of a product first, then the most ports of one (8 x 200 Gb/s, not 2 x 800, for 1.6 Tb/s).
    std::vector<int> counts{1};
    for (int ports = kind.max_ports; ports > 1; ports /= 2) counts.push_back(ports);
    for (int ports : counts) {
      const auto i = rung(kind.ladder, bandwidth_Bps / ports);
      if (!i) continue;
      if (*i + 1 == kind.ladder.size()) return std::nullopt;  // already the newest
      const Generation& next = kind.ladder[*i + 1];
      return LinkProduct{ports == 1 ? next.name : fmt::format("{} x {}", ports, next.name), ports * next.bandwidth_Bps};
    }
  }
  return std::nullopt;
}

}  // namespace dtsim::viz
