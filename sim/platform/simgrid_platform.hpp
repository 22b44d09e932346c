#pragma once
/// Builds a PlatformSpec in SimGrid: zones, hosts and split-duplex links named as in Fabric.
#include <utility>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// Applies the network model's settings, then creates the platform in the current engine.
/// `pairs` are the (from, to) hosts that will exchange messages: topologies whose routes are computed by
/// dtsim declare only those routes, so memory grows with the pairs used rather than with hosts squared.
/// Returns the hosts in rank order (host h = GPU h % G of node h / G). Call once per process.
std::vector<simgrid::s4u::Host*> build_simgrid_platform(const PlatformSpec& spec,
                                                        const std::vector<std::pair<int, int>>& pairs);

}  // namespace dtsim::platform
