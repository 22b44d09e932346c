#pragma once
// Small instances of every topology, shared by the platform tests.
#include <string>
#include <vector>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::testing {

/// A platform of `topology` with 2 GPUs per node (star: 1), distinct latencies per link class.
inline platform::PlatformSpec small_platform(platform::Topology topology) {
  using platform::Topology;
  platform::PlatformSpec s;
  s.name = "small-" + platform::topology_name(topology);
  s.topology = topology;
  s.gpus_per_node = topology == Topology::star ? 1 : 2;
  s.intra = {100e9, 1e-6};
  s.inter = {25e9, 2e-6};
  s.network = {25e9, 3e-6};
  switch (topology) {
    case Topology::star:
      s.nodes = 5;
      break;
    case Topology::two_level:
    case Topology::ring:
    case Topology::full_mesh:
      s.nodes = 5;
      break;
    case Topology::fat_tree:
      s.fat_tree = {{2, 2, 2}, {1, 2, 2}, {1, 1, 2}};  // 8 nodes, 3 levels, parallel top links
      s.nodes = 8;
      break;
    case Topology::torus:
      s.torus_dims = {3, 2, 2};  // wrap-around, a dimension of size 2
      s.nodes = 12;
      break;
    case Topology::dragonfly:
      s.dragonfly = {3, 2, 2, 1};  // groups > routers per chassis: the SimGrid 3.32 crash case
      s.nodes = 12;
      break;
    case Topology::graph:
      // node0 - a - b - node2 and node1 - a, node3 - b; a slow-latency shortcut node0 - b.
      s.nodes = 4;
      s.graph.switches = {"a", "b"};
      s.graph.edges = {{"e0", "node0", "a", {25e9, 1e-6}}, {"e1", "node1", "a", {25e9, 1e-6}},
                       {"e2", "a", "b", {50e9, 1e-6}},     {"e3", "node2", "b", {25e9, 1e-6}},
                       {"e4", "b", "node3", {25e9, 1e-6}}, {"e5", "node0", "b", {25e9, 5e-6}}};
      break;
  }
  return s;
}

/// Every topology, in registry order.
inline std::vector<platform::Topology> all_topologies() {
  std::vector<platform::Topology> all;
  for (const std::string& name : platform::topology_names()) all.push_back(platform::parse_topology(name));
  return all;
}

}  // namespace dtsim::testing
