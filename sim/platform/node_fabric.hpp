#pragma once
/// Structured nodes ([platform.node]): NVSwitch or NVLink mesh or PCIe inside, K NICs on PCIe switches,
/// GPUDirect on or off, and every NIC on one switch or on its rail. Routes are per GPU pair.
#include <vector>

#include "sim/platform/fabric_graph.hpp"
#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// The vertices and links of structured nodes and of the network between their NICs, and the route of every
/// GPU pair. The picture and the naming are in node_fabric.cpp.
class NodeFabricRouter {
 public:
  /// Adds every node's vertices and links, then the network switches and links, to `graph` (GPUs already
  /// added as vertices 0 .. H-1).
  NodeFabricRouter(const PlatformSpec& spec, FabricGraph& graph);
  /// Appends the directed links from GPU `from` to GPU `to` (from != to).
  void route(int from, int to, std::vector<int>& links) const;
  /// UP id (GPU -> NVSwitch) of local GPU g's NVSwitch port in node n (nvswitch nodes).
  int nvswitch_port(int n, int g) const { return of(gpu_nvswitch_, gpus_, n, g); }

 private:
  /// Three tiers: the leaves, pods' spines and core, and the UP ids of their links (leaf -> spine, spine -> core).
  void add_three_tiers(const PlatformSpec& spec, FabricGraph& graph);
  /// Appends the links between the leaves of NIC k of node a and NIC l of node b: none on one leaf, else up to
  /// the pod's spine, [to the core and down into the other pod's spine], down to the other leaf.
  void across_leaves(int a, int k, int b, int l, std::vector<int>& links) const;
  /// Pattern ids of the names of a node's vertices and links (the picture in node_fabric.cpp), looked up once.
  struct NodeNames {
    explicit NodeNames(FabricGraph& graph);
    int host, pcie_switch, nvswitch, nic;                                  ///< vertices
    int switch_host, gpu_pcie, gpu_nvlink, nvlink, nic_pcie, nic_net;     ///< links
  };
  /// Adds node n's host, PCIe switches, NVSwitch or NVLinks and NICs (NIC k on network[k]).
  void add_node(const PlatformSpec& spec, FabricGraph& graph, const NodeNames& names, int n,
                const std::vector<int>& network);
  /// Local GPU i of a node to local GPU j of the same node.
  void inside(int node, int i, int j, std::vector<int>& links) const;
  /// PCIe from switch s up to the host and down to switch t (nothing when s == t).
  void through_host(int node, int s, int t, std::vector<int>& links) const;
  /// GPU i of `node` to its NIC (`out`), or that NIC to GPU i (`!out`), including the NIC's network link.
  void gpu_nic(int node, int i, bool out, std::vector<int>& links) const;

  /// Entry i of node n in `ids`, which holds `per` entries of each node in a row.
  static int of(const std::vector<int>& ids, int per, int n, int i) {
    return ids[static_cast<std::size_t>(n) * static_cast<std::size_t>(per) + static_cast<std::size_t>(i)];
  }

  NodeSpec node_;
  int gpus_ = 1;
  /// Node after node (of(): a route looks up a few ids of each of its nodes in one array each, not behind a vector
  /// per node): UP id of each GPU's PCIe link (GPU -> switch), of each GPU's NVSwitch port (GPU -> NVSwitch), of
  /// each PCIe switch's host link (switch -> host), of each NIC's PCIe link (switch -> NIC) and of each NIC's
  /// network link (NIC -> network switch).
  std::vector<int> gpu_pcie_, gpu_nvswitch_, switch_host_, nic_pcie_, nic_net_;
  /// Per node, G x G: directed id of the NVLink bundle from local GPU i to j, -1 where there is none.
  std::vector<std::vector<std::vector<int>>> nvlink_;
  std::vector<int> rail_spine_;  ///< rails: UP id of rail k's link to the spine (rail -> spine)
  int nodes_per_leaf_ = 0;  ///< three tiers only (units_per_pod set): nodes of a scalable unit
  int units_per_pod_ = 0;
  std::vector<std::vector<int>> leaf_;        ///< three tiers: vertex of unit u's leaf of rail k
  std::vector<std::vector<int>> leaf_spine_;  ///< three tiers: UP id of unit u's rail-k leaf -> its pod's spine
  std::vector<int> pod_core_;                 ///< three tiers: UP id of pod p's spine -> the core
};

}  // namespace dtsim::platform
