#pragma once
/// Builds a PlatformSpec in SimGrid: zones, hosts, routers and split-duplex links named as in Fabric, routes
/// replayed from Fabric.
#include <simgrid/s4u/Host.hpp>
#include <utility>
#include <vector>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// Applies the network model's settings, then creates the platform in the current engine.
/// star: one StarZone (every route exists). Other topologies: a root FullZone holding one StarZone per node
/// (its GPUs and links; gateway "node<n>_switch"), the network switches as routers and the network links;
/// the root declares the Fabric route of each (node a, node b) that some pair in `pairs` needs, and no other,
/// so memory grows with the pairs used (and the root's (nodes + switches)^2 route table of pointers), never
/// with hosts squared. Structured nodes: one FullZone of all GPUs (hosts^2 pointers) and the route of each
/// GPU pair in `pairs`. Returns the hosts in rank order (host h = GPU h % G of node h / G). Once per process.
std::vector<simgrid::s4u::Host*> build_simgrid_platform(const PlatformSpec& spec,
                                                        const std::vector<std::pair<int, int>>& pairs);

}  // namespace dtsim::platform
