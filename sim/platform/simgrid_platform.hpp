#pragma once
/// Builds a PlatformSpec in SimGrid: zones, hosts, routers and split-duplex links named as in Fabric, routes
/// replayed from Fabric.
#include <simgrid/s4u/Host.hpp>
#include <utility>
#include <vector>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// Applies the network model's settings, then creates the platform in the current engine.
/// star: one StarZone (every route exists). Other topologies: one FabricZone of all GPUs and reduction units
/// (fabric_zone.hpp) with the network links and the Fabric route of each (node a, node b) that some pair in `pairs`
/// needs, and no other, so memory grows with the pairs used, never with hosts or nodes squared. Structured nodes:
/// one FullZone of all GPUs (hosts^2 pointers) and the route of each GPU pair in `pairs`. Under a network model
/// with cross-traffic (routes_both_ways: CM02, LV08) each pair's reverse is routed too. Returns the hosts in rank
/// order (host h = GPU h % G of node h / G). Once per process.
std::vector<simgrid::s4u::Host*> build_simgrid_platform(const PlatformSpec& spec,
                                                        const std::vector<std::pair<int, int>>& pairs);

}  // namespace dtsim::platform
