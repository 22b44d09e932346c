#pragma once
/// Builds a PlatformSpec in SimGrid: zones, hosts and split-duplex links named as in Fabric.
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// Applies the network model's settings, then creates the platform in the current engine.
/// Returns the hosts in rank order (host h = GPU h % G of node h / G). Call once per process.
std::vector<simgrid::s4u::Host*> build_simgrid_platform(const PlatformSpec& spec);

}  // namespace dtsim::platform
