#pragma once
/// The links and routes of a platform, computed by dtsim without SimGrid. The SimGrid builder creates exactly
/// these links and replays these routes, so the `analytic` level and the simulated levels see one network.
#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/core/path_model.hpp"
#include "sim/platform/fabric_graph.hpp"
#include "sim/platform/node_fabric.hpp"
#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// Every topology as a graph. Vertex ids: GPUs 0 .. H-1 ("gpu<h>"), then the node switches
/// ("node<n>_switch"; star: the one "switch"), then the network switches. Link ids: GPU h's link is link h
/// (directed ids 2h UP GPU -> switch, 2h + 1 DOWN; star: "link<h>", else "gpu<h>"), then the topology's links.
///
///   star:       gpu0  gpu1 ... gpuN-1        others:   gpu0 .. gpuG-1     (intra links)
///                  \   |     /                              node0_switch
///                    switch                                      | nic0 (inter; graph: the edges)
///                                                           network (see each topology's .cpp)
///
/// A reducing switch (spec.sharp: the star's switch, two_level's top_switch, a one-level fat tree's sw1_0;
/// node.nvls on one node: node0_nvswitch) has its reduction unit beside it, vertex "<switch>_reduce" on link
/// "<switch>_reduce" (UP: unit -> switch, the sums going out at the ports' summed rate; DOWN: switch -> unit, the
/// inputs, at switch_reduce_bandwidth or the ports' summed rate): collectives::switch_endpoint(0). Route GPU ->
/// unit: the GPU's way up to the switch (star: link UP; two_level, fat tree: gpu UP, nic UP; NVSwitch: port UP),
/// then the unit's link DOWN; unit -> GPU the mirror image.
///
/// Host h is GPU h % G of node h / G. Routes: star gpu_i -> gpu_j = link_i_UP, link_j_DOWN; otherwise
/// gpu_i_UP, [node route between the two nodes' switches, when they differ], gpu_j_DOWN. Structured nodes
/// (spec.node.structured) have no GPU link or node switch: after the GPUs come their own vertices and links
/// and a route per GPU pair (node_fabric.hpp).
class Fabric final : public core::PathModel {
 public:
  /// Builds the graph and the router; throws core::InputError for a graph that names unknown vertices or
  /// does not connect every node.
  explicit Fabric(const PlatformSpec& spec);
  /// Also between a GPU and a switch endpoint (collectives::switch_endpoint, negative ids).
  core::Path path(int from, int to) const override;
  /// Appends path(from, to)'s links to `links`: for walks over many paths that need only their links (one
  /// scratch vector, not a Path each).
  void route(int from, int to, std::vector<int>& links) const;
  double link_bandwidth_Bps(int link) const override;
  int link_count() const override { return static_cast<int>(links().size()); }
  /// All directed links, indexed by id.
  const std::vector<DirectedLink>& links() const { return graph_.links(); }
  /// The vertices and links with their names.
  const FabricGraph& graph() const { return graph_; }
  /// Name of directed link `id` ("gpu3_UP") and of vertex v ("gpu3").
  std::string link_name(int id) const { return graph_.link_name(id); }
  std::string vertex_name(int v) const { return graph_.vertex_name(v); }
  /// The platform this fabric was built from.
  const PlatformSpec& spec() const { return spec_; }
  /// Id of the UP direction of host h's own link (its DOWN direction is id + 1); not for structured nodes.
  int host_link(int host) const { return 2 * host; }
  /// Vertex id of node n's switch (star: the switch); not for structured nodes.
  int node_switch(int node) const { return spec_.hosts() + (spec_.topology == Topology::star ? 0 : node); }
  /// Directed links from node a's switch to node b's switch; empty when a == b (and on a star); not for
  /// structured nodes.
  std::vector<int> node_route(int a, int b) const;
  /// Number of switch endpoints (reduction units): 1 where a switch joining every GPU reduces, else 0.
  int switch_endpoints() const { return static_cast<int>(reduce_link_.size()); }
  /// Vertex id of switch endpoint j's reduction unit (its SimGrid host).
  int endpoint_vertex(int j) const {
    return links()[static_cast<std::size_t>(reduce_link_[static_cast<std::size_t>(j)])].from;
  }
  /// Appends the links from GPU h up to the reducing switch (not its unit's link).
  void up_to_switch(int h, std::vector<int>& links) const;
  /// UP id (unit -> switch) of switch endpoint j's link.
  int endpoint_link(int j) const { return reduce_link_[static_cast<std::size_t>(j)]; }

 private:
  PlatformSpec spec_;
  FabricGraph graph_;
  std::shared_ptr<const NodeRouter> router_;  ///< null for star and structured nodes
  std::shared_ptr<const NodeFabricRouter> structured_;  ///< structured nodes only
  std::vector<int> reduce_link_;  ///< per switch endpoint: UP id of its reduction unit's link

  /// Adds the reduction unit of the reducing switch (see the class comment).
  void add_reduction_units();
};

/// Alpha-beta cost of one message between two GPUs of one node and between GPUs of different nodes
/// (route latency, bottleneck bandwidth), as the closed forms and MG-WFBP use them. Between nodes it is the
/// route of nodes 0 and 1 (the neighbours a collective's plan uses most), exact for star and two_level.
/// Structured nodes: the routes GPU 0 -> GPU 1 and GPU 0 of node 0 -> GPU 0 of node 1.
collectives::LinkCosts link_costs(const PlatformSpec& spec);
/// Why `spec` cannot have the reducing switches it asks for (sharp, node.nvls), or "" when it can: sharp needs one
/// switch joining every node (star, two_level, a fat tree of one switch level) and nodes without structure; nvls an
/// NVSwitch node (the NVLink SHARP of third-generation NVSwitch) and a GPU profile of the Hopper generation or later.
std::string reduction_refusal(const PlatformSpec& spec);
/// NVLinks from each GPU of an NVSwitch node to its switches: the GPU's port bandwidth over an NVLink's 25 GB/s.
int nvswitch_nvlinks(const NodeSpec& node);

}  // namespace dtsim::platform
