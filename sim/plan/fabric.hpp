#pragma once
/// What a cluster's network is built from: NICs per node and switch ports by speed, counted from the platform
/// (a fat tree's switches from its shape, so its oversubscription sets how many uplink ports it buys; a rail-optimised
/// two-level cluster's rail leaves and their spine uplinks from nodes_per_leaf).
#include <vector>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::plan {

/// `count` switch ports of `bandwidth_Bps` each.
struct PortGroup {
  double count = 0;
  double bandwidth_Bps = 0;
};

/// The NICs and switches of a cluster.
struct Fabric {
  int nics_per_node = 0;           ///< 0 with one node: it uses no network
  double nic_Bps = 0;              ///< bandwidth of one NIC
  std::vector<PortGroup> switch_ports;
  double switches = 0;
};

/// The fabric of `p` at `nodes` nodes. star: a port per host on one switch; two_level: a port per NIC on one
/// switch, or with `[platform.node] rails` per rail (one per NIC index) rail_leaves() = ceil(nodes /
/// nodes_per_leaf) leaves (1 without it), each with a port per node down and its `network` uplink up as
/// ceil(network / NIC bandwidth) ports of the NIC speed, and the spine a port at the top of each uplink port
/// (switches: the leaves and one spine); ring, full_mesh: a router per node with a host port and a port per neighbour link; fat_tree
/// (Zahavi's PGFT(h; m; w; p), SimGrid's down, up, parallel): N_l = m_(l+1)...m_h w_1...w_l switches at level l,
/// N_(l-1) w_l p_l links from level l-1 to l, a switch port at the upper end of every link and at both ends of the
/// links between switches. Torus, dragonfly and graph templates are not sized by plans (candidate.cpp).
Fabric fabric(const platform::PlatformSpec& p, int nodes);

}  // namespace dtsim::plan
