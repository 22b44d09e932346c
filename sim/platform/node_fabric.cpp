#include "sim/platform/node_fabric.hpp"


#include "sim/collectives/nvlink_rings.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/link_efficiency.hpp"

namespace dtsim::platform {

/// One structured node n (here 4 GPUs, 2 PCIe switches, 2 NICs, NVSwitch), its NICs on the network:
///
///              node<n>_nvswitch                     gpu<h>_nvlink: GPU h <-> NVSwitch (nvswitch)
///             /     |     |     \                   node<n>_nvlink<i>-<j>: GPUs i, j (nvlink_mesh; the
///         gpu0    gpu1   gpu2   gpu3                    pair's k links as one link of k x bandwidth)
///           \     /         \     /                 gpu<h>_pcie: GPU h <-> its PCIe switch
///      node<n>_pcie0      node<n>_pcie1             node<n>_pcie<s>_host: PCIe switch s <-> node<n>_host
///           |    \          /    |                      (CPU and host memory)
///           |   node<n>_host     |                  node<n>_nic<k>_pcie: NIC k <-> its PCIe switch
///     node<n>_nic0          node<n>_nic1            node<n>_nic<k>: NIC k <-> top_switch, or <-> rail<k>
///           |                    |                      with rails (rail<k>_spine: rail<k> <-> spine)
///        rail0 ---- spine ---- rail1   (or one top_switch for every NIC)
///
/// With rails, rail<k> stands for the rail's leaves, ceil(nodes / nodes_per_leaf) of them (one when
/// nodes_per_leaf is not set), and rail<k>_spine for their uplinks together: leaves x network_link. Traffic
/// between two leaves of one rail is not routed over the uplinks: only traffic across rails is. With leaves as
/// in a DGX SuperPOD (half the ports up: the uplinks carry all the leaf's NICs can send) that changes no bound.
///
/// Three tiers (units_per_pod set, a rail-optimised Clos as in DGX SuperPODs past one spine group and Llama 3's
/// 24K-GPU cluster): each scalable unit u of nodes_per_leaf nodes has one leaf per rail, su<u>_rail<k>, NIC k of its
/// nodes below it; the leaves of a pod of units_per_pod units uplink to the pod's spine, pod<p>_spine (all its spine
/// switches together), each leaf by one `network` link (its uplinks together: su<u>_rail<k>_spine); the pods'
/// spines link to one core (pod<p>_core: the pod's leaf uplinks together / core_oversubscription):
///
///                                    core
///                       pod0_core  /      \  pod1_core        (leaves' uplinks / core_oversubscription)
///                        pod0_spine        pod1_spine
///        su0_rail0_spine /   |   \  ...      /    \          (network_link each)
///               su0_rail0 su0_rail1 su1_rail0 ...   su2_rail0 ...
///                 |  |       |  |
///            nic0 of nodes 0 .. nodes_per_leaf - 1, nic1 of the same nodes, ...
///
/// Between leaves, routes go up to the pod's spine, through the core when the pods differ, and down: also between
/// two leaves of one rail, which the two-tier picture above does not route over its uplinks.
///
/// GPU g is on PCIe switch g S / G and uses NIC gpu_nic[g]; NIC k is on switch k S / K. Routes, i -> j in one
/// node: the NVSwitch (port up, port down), else the pair's NVLinks, else through the GPU k that has NVLinks to
/// both (i -> k -> j, as NCCL's P2P does over PATH_NVB; collectives::nvlink_relay picks k), else PCIe (GPU up,
/// [switch up to the host, host down to j's switch], GPU down). GPU i -> its NIC: GPU up, [host hop when GPUDirect is off or the NIC is
/// on another switch], switch -> NIC, NIC -> network switch; then rail k -> spine -> rail k' when the NICs are
/// on different rails; then the mirror image into the destination GPU.
NodeFabricRouter::NodeFabricRouter(const PlatformSpec& spec, FabricGraph& graph)
    : node_(spec.node), gpus_(spec.gpus_per_node) {
  DTSIM_CHECK(node_.structured && static_cast<int>(node_.gpu_nic.size()) == gpus_, "node structure not validated");
  // Every node adds as many vertices and links as node 0: room for them all (and a reduction unit) once node 0 is
  // in (1.1 million directed links at 100,000 GPUs: grown by doubling, the array peaked at three times their size).
  const auto add_nodes = [&](const auto& network_of) {
    const FabricGraph::Size before = graph.size();
    const NodeNames names(graph);
    for (int n = 0; n < spec.nodes; ++n) {
      add_node(spec, graph, names, n, network_of(n));
      if (n == 0) graph.reserve_repeats(before, static_cast<std::size_t>(spec.nodes), {1, 2, 0, 0});
    }
  };
  std::vector<int> network;
  if (node_.units_per_pod > 0) {
    add_three_tiers(spec, graph);
    add_nodes([&](int n) -> const std::vector<int>& { return leaf_[static_cast<std::size_t>(n / nodes_per_leaf_)]; });
    return;
  }
  if (node_.rails) {
    network = add_switches(graph, "rail#", node_.nics);
    const int spine = graph.add_vertex(VertexKind::network_switch, "spine");
    for (int k = 0; k < node_.nics; ++k)
      rail_spine_.push_back(
          graph.add_link("rail#_spine", {k}, network[static_cast<std::size_t>(k)], spine, spec.rail_spine()));
  } else {
    network.assign(static_cast<std::size_t>(node_.nics), graph.add_vertex(VertexKind::network_switch, "top_switch"));
  }
  add_nodes([&](int) -> const std::vector<int>& { return network; });
}

void NodeFabricRouter::add_three_tiers(const PlatformSpec& spec, FabricGraph& graph) {
  nodes_per_leaf_ = node_.nodes_per_leaf;
  units_per_pod_ = node_.units_per_pod;
  const int core = graph.add_vertex(VertexKind::network_switch, "core");
  std::vector<int> spines;
  for (int p = 0; p < spec.pods(); ++p) {
    spines.push_back(graph.add_vertex(VertexKind::network_switch, "pod#_spine", {p}));
    pod_core_.push_back(graph.add_link("pod#_core", {p}, spines.back(), core, spec.pod_core(p)));
  }
  const int leaf = graph.vertex_pattern("su#_rail#");
  const int uplink = graph.link_pattern("su#_rail#_spine");
  for (int u = 0; u < spec.rail_leaves(); ++u) {
    std::vector<int>& leaves = leaf_.emplace_back();
    std::vector<int>& uplinks = leaf_spine_.emplace_back();
    for (int k = 0; k < node_.nics; ++k) {
      leaves.push_back(graph.add_vertex(VertexKind::network_switch, leaf, {u, k}));
      uplinks.push_back(graph.add_link(uplink, {u, k}, leaves.back(),
                                       spines[static_cast<std::size_t>(u / node_.units_per_pod)], spec.network));
    }
  }
}

void NodeFabricRouter::across_leaves(int a, int k, int b, int l, std::vector<int>& links) const {
  const int u = a / nodes_per_leaf_;
  const int v = b / nodes_per_leaf_;
  if (u == v && k == l) return;
  links.push_back(leaf_spine_[static_cast<std::size_t>(u)][static_cast<std::size_t>(k)]);
  if (u / units_per_pod_ != v / units_per_pod_) {
    links.push_back(pod_core_[static_cast<std::size_t>(u / units_per_pod_)]);
    links.push_back(FabricGraph::direction(pod_core_[static_cast<std::size_t>(v / units_per_pod_)], false));
  }
  links.push_back(FabricGraph::direction(leaf_spine_[static_cast<std::size_t>(v)][static_cast<std::size_t>(l)], false));
}

NodeFabricRouter::NodeNames::NodeNames(FabricGraph& graph)
    : host(graph.vertex_pattern("node#_host")),
      pcie_switch(graph.vertex_pattern("node#_pcie#")),
      nvswitch(graph.vertex_pattern("node#_nvswitch")),
      nic(graph.vertex_pattern("node#_nic#")),
      switch_host(graph.link_pattern("node#_pcie#_host")),
      gpu_pcie(graph.link_pattern("gpu#_pcie")),
      gpu_nvlink(graph.link_pattern("gpu#_nvlink")),
      nvlink(graph.link_pattern("node#_nvlink#-#")),
      nic_pcie(graph.link_pattern("node#_nic#_pcie")),
      nic_net(graph.link_pattern("node#_nic#")) {}

void NodeFabricRouter::add_node(const PlatformSpec& spec, FabricGraph& graph, const NodeNames& names, int n,
                                const std::vector<int>& network) {
  // Payload rates, not line rates: every packet's header and CRC take their share of the wire.
  const LinkSpec pcie = payload_rate(node_.pcie, pcie_payload_efficiency(node_.pcie_max_payload_bytes));
  const LinkSpec nvlink = payload_rate(node_.nvlink, nvlink_payload_efficiency(node_.nvlink_payload_bytes));
  const int host = graph.add_vertex(VertexKind::node_switch, names.host, {n});
  std::vector<int> switches;
  for (int s = 0; s < node_.pcie_switches; ++s) {
    switches.push_back(graph.add_vertex(VertexKind::node_switch, names.pcie_switch, {n, s}));
    switch_host_.push_back(graph.add_link(names.switch_host, {n, s}, switches.back(), host, pcie));
  }
  for (int g = 0; g < gpus_; ++g)
    gpu_pcie_.push_back(graph.add_link(names.gpu_pcie, {n * gpus_ + g}, n * gpus_ + g,
                                      switches[static_cast<std::size_t>(node_.gpu_switch(g, gpus_))], pcie));
  std::vector<std::vector<int>>& bundles =
      nvlink_.emplace_back(static_cast<std::size_t>(gpus_), std::vector<int>(static_cast<std::size_t>(gpus_), -1));
  if (node_.fabric == NodeFabric::nvswitch) {
    const int nvswitch = graph.add_vertex(VertexKind::node_switch, names.nvswitch, {n});
    for (int g = 0; g < gpus_; ++g)
      gpu_nvswitch_.push_back(graph.add_link(names.gpu_nvlink, {n * gpus_ + g}, n * gpus_ + g, nvswitch, nvlink));
  } else if (node_.fabric == NodeFabric::nvlink_mesh) {
    for (int i = 0; i < gpus_; ++i)
      for (int j = i + 1; j < gpus_; ++j) {
        const int count = node_.nvlinks[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
        if (count == 0) continue;
        const LinkSpec bundle{count * nvlink.bandwidth_Bps, nvlink.latency_s};
        const int up = graph.add_link(names.nvlink, {n, i, j}, n * gpus_ + i, n * gpus_ + j, bundle);
        bundles[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = up;
        bundles[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = FabricGraph::direction(up, false);
      }
  }
  for (int k = 0; k < node_.nics; ++k) {
    const int nic = graph.add_vertex(VertexKind::node_switch, names.nic, {n, k});
    nic_pcie_.push_back(
        graph.add_link(names.nic_pcie, {n, k}, switches[static_cast<std::size_t>(node_.nic_switch(k))], nic, pcie));
    nic_net_.push_back(graph.add_link(names.nic_net, {n, k}, nic, network[static_cast<std::size_t>(k)], spec.inter));
  }
}

void NodeFabricRouter::route(int from, int to, std::vector<int>& links) const {
  const int a = from / gpus_;
  const int b = to / gpus_;
  const int i = from % gpus_;
  const int j = to % gpus_;
  if (a == b) return inside(a, i, j, links);
  gpu_nic(a, i, true, links);
  const int k = node_.gpu_nic[static_cast<std::size_t>(i)];
  const int l = node_.gpu_nic[static_cast<std::size_t>(j)];
  if (units_per_pod_ > 0) {
    across_leaves(a, k, b, l, links);
  } else if (node_.rails && k != l) {
    links.push_back(rail_spine_[static_cast<std::size_t>(k)]);
    links.push_back(FabricGraph::direction(rail_spine_[static_cast<std::size_t>(l)], false));
  }
  gpu_nic(b, j, false, links);
}

void NodeFabricRouter::inside(int node, int i, int j, std::vector<int>& links) const {
  const auto n = static_cast<std::size_t>(node);
  if (node_.fabric == NodeFabric::nvswitch) {
    links.push_back(of(gpu_nvswitch_, gpus_, node, i));
    links.push_back(FabricGraph::direction(of(gpu_nvswitch_, gpus_, node, j), false));
    return;
  }
  const auto& bundles = nvlink_[n];
  if (const int bundle = bundles[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; bundle >= 0) {
    links.push_back(bundle);
    return;
  }
  if (const int k = node_.fabric == NodeFabric::nvlink_mesh ? collectives::nvlink_relay(node_.nvlinks, i, j) : -1;
      k >= 0) {
    links.push_back(bundles[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)]);
    links.push_back(bundles[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)]);
    return;
  }
  links.push_back(of(gpu_pcie_, gpus_, node, i));
  through_host(node, node_.gpu_switch(i, gpus_), node_.gpu_switch(j, gpus_), links);
  links.push_back(FabricGraph::direction(of(gpu_pcie_, gpus_, node, j), false));
}

void NodeFabricRouter::through_host(int node, int s, int t, std::vector<int>& links) const {
  if (s == t) return;
  links.push_back(of(switch_host_, node_.pcie_switches, node, s));
  links.push_back(FabricGraph::direction(of(switch_host_, node_.pcie_switches, node, t), false));
}

void NodeFabricRouter::gpu_nic(int node, int i, bool out, std::vector<int>& links) const {
  const int k = node_.gpu_nic[static_cast<std::size_t>(i)];
  const int gpu_switch = node_.gpu_switch(i, gpus_);
  const int nic_switch = node_.nic_switch(k);
  const int gpu = of(gpu_pcie_, gpus_, node, i);
  const int nic = of(nic_pcie_, node_.nics, node, k);
  const int net = of(nic_net_, node_.nics, node, k);
  // Without GPUDirect the data is staged in host memory: up to the host and back down even on one switch.
  const auto host_hop = [&](int s, int t) {
    if (node_.gpudirect || s != t) return through_host(node, s, t, links);
    links.push_back(of(switch_host_, node_.pcie_switches, node, s));
    links.push_back(FabricGraph::direction(of(switch_host_, node_.pcie_switches, node, s), false));
  };
  if (out) {
    links.push_back(gpu);
    host_hop(gpu_switch, nic_switch);
    links.push_back(nic);
    links.push_back(net);
  } else {
    links.push_back(FabricGraph::direction(net, false));
    links.push_back(FabricGraph::direction(nic, false));
    host_hop(nic_switch, gpu_switch);
    links.push_back(FabricGraph::direction(gpu, false));
  }
}

}  // namespace dtsim::platform
