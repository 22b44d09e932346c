// Constants from NVIDIA/nccl src/graph/tuning.cc at commit b6475625 (hwLat rows CollNetDirect, CollNetChain, NVLS
// of the NVLINK and NET tables; the bandwidth refinements and ratios of ncclTopoTuneModel).
#include "sim/collectives/nccl_in_network.hpp"

#include <algorithm>

namespace dtsim::collectives {
namespace {

constexpr double kNvlsNvlinkLat_us = 23;          // hwLat[NCCL_HW_NVLINK][NCCL_ALGO_NVLS][Simple]
constexpr double kCollnetDirectNvlinkLat_us = 3.7;  // hwLat[NCCL_HW_NVLINK][NCCL_ALGO_COLLNET_DIRECT][Simple]
constexpr double kCollnetDirectNetLat_us = 31;      // hwLat[NCCL_HW_NET][NCCL_ALGO_COLLNET_DIRECT][Simple]
constexpr double kCollnetArity_us = 0.4;            // "arity serialization latency" per extra GPU of a node
constexpr double kCollnetChainNvlinkLat_us = 2.8;   // hwLat[NCCL_HW_NVLINK][NCCL_ALGO_COLLNET_CHAIN][Simple]
constexpr double kCollnetChainNetLat_us = 30;       // hwLat[NCCL_HW_NET][NCCL_ALGO_COLLNET_CHAIN][Simple]
constexpr double kNvlsRatio = 5.0 / 6.0;            // bus to algorithm bandwidth, NVLS
constexpr double kCollnetRatio = 0.5;               // bus to algorithm bandwidth, CollNet

}  // namespace

bool nccl_in_network(NcclAlgorithm a) {
  return a == NcclAlgorithm::collnet_direct || a == NcclAlgorithm::collnet_chain || a == NcclAlgorithm::nvls;
}

bool nccl_in_network_enabled(NcclAlgorithm a, const Group& group, const LinkCosts& network) {
  if (!network.to_switch || group.ranks < 2) return false;
  switch (a) {
    case NcclAlgorithm::nvls:
      return network.switch_in_node && group.nodes() == 1;
    case NcclAlgorithm::collnet_chain:
      return !network.switch_in_node && group.nodes() > 1 && group.ranks_per_node == 1;
    case NcclAlgorithm::collnet_direct:
      return !network.switch_in_node && group.nodes() > 1 && group.ranks_per_node == 1 && network.nvswitch_nvlinks > 0;
    default:
      return false;
  }
}

double nccl_in_network_latency_s(NcclAlgorithm a, const Group& group) {
  const double extra = std::max(0, group.ranks_per_node - 1);  // ppn - 1
  double lat_us = 0;
  if (a == NcclAlgorithm::nvls) lat_us = kNvlsNvlinkLat_us;
  if (a == NcclAlgorithm::collnet_direct)
    lat_us = 2 * (std::min(1.0, extra) * kCollnetDirectNvlinkLat_us + extra * kCollnetArity_us) +
             kCollnetDirectNetLat_us;
  if (a == NcclAlgorithm::collnet_chain) lat_us = 2 * extra * kCollnetChainNvlinkLat_us + kCollnetChainNetLat_us;
  return lat_us * 1e-6;
}

double nccl_in_network_bandwidth_Bps(NcclAlgorithm a, const Group& group, double bus_Bps) {
  if (a == NcclAlgorithm::nvls) return bus_Bps * kNvlsRatio;
  if (a == NcclAlgorithm::collnet_direct) {
    const double per_nic = group.ranks_per_node;  // ppn / nChannels, one channel a NIC
    return bus_Bps / (per_nic - (per_nic - 1) / 2) * kCollnetRatio;
  }
  return bus_Bps * kCollnetRatio;
}

}  // namespace dtsim::collectives
