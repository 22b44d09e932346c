#pragma once
/// The platform as a SimGrid 3.32 XML file (`dtsim platform show --xml`), with the links and routes of Fabric.
#include <string>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// SimGrid platform XML (version 4.1) that Engine::load_platform reads. star and structured nodes: one Full
/// zone with every link and a route for every ordered host pair. Others: a Full root zone holding one Full zone per node (its GPUs, links and
/// routes, gateway node<n>_switch), a zone "switches" holding the network switches as routers (an XML zone
/// holds either zones or hosts and routers), the network links, and a zoneRoute for
/// every ordered pair of nodes. The file grows with hosts^2 (star, structured) or nodes^2 routes: meant for inspection and
/// other tools, not for dtsim's own runs (which declare only the routes they use).
std::string export_simgrid_xml(const PlatformSpec& spec);

}  // namespace dtsim::platform
