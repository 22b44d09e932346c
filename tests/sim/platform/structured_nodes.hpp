#pragma once
/// Small structured-node platforms for the node-fabric tests: round numbers so every time has a closed form.
#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform::testing {

constexpr double kNvlinkBps = 25e9;  ///< one NVLink (or an NVSwitch port), per direction
constexpr double kPcieBps = 16e9;    ///< every PCIe link
constexpr double kNicBps = 12.5e9;   ///< every NIC
constexpr double kNvlinkS = 2e-6;    ///< latency of an NVLink bundle or an NVSwitch port
constexpr double kPcieS = 1e-6;      ///< latency of every PCIe link
constexpr double kNicS = 1.5e-6;     ///< latency of a NIC's network link
constexpr double kSpineS = 0.5e-6;   ///< latency of a rail's spine link

/// `nodes` two_level nodes of `gpus` GPUs joined by `fabric`, `switches` PCIe switches, `nics` NICs.
inline PlatformSpec structured(NodeFabric fabric, int nodes, int gpus, int switches, int nics) {
  PlatformSpec s;
  s.name = "structured";
  s.topology = Topology::two_level;
  s.nodes = nodes;
  s.gpus_per_node = gpus;
  s.inter = {kNicBps, kNicS};
  s.network = {4 * kNicBps, kSpineS};
  NodeSpec& n = s.node;
  n.structured = true;
  n.fabric = fabric;
  n.nvlink = {kNvlinkBps, kNvlinkS};
  n.pcie = {kPcieBps, kPcieS};
  n.pcie_switches = switches;
  n.nics = nics;
  for (int g = 0; g < gpus; ++g) n.gpu_nic.push_back(g * nics / gpus);
  if (fabric == NodeFabric::nvlink_mesh) n.nvlinks = hybrid_cube_mesh();
  return s;
}

/// DGX-1-like: 8 GPUs on a hybrid cube-mesh, 4 PCIe switches, 4 NICs.
inline PlatformSpec cube_mesh(int nodes) { return structured(NodeFabric::nvlink_mesh, nodes, 8, 4, 4); }

}  // namespace dtsim::platform::testing
