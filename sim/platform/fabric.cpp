#include "sim/platform/fabric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/platform/link_efficiency.hpp"

namespace dtsim::platform {
namespace {

std::unique_ptr<NodeRouter> build_network(const PlatformSpec& spec, FabricGraph& graph,
                                          const std::vector<int>& node_switches) {
  switch (spec.topology) {
    case Topology::star:
      return nullptr;
    case Topology::two_level:
      return build_two_level(spec, graph, node_switches);
    case Topology::fat_tree:
      return build_fat_tree(spec, graph, node_switches);
    case Topology::torus:
      return build_torus(spec, spec.torus_dims, graph, node_switches);
    case Topology::ring:
      return build_torus(spec, {spec.nodes}, graph, node_switches);
    case Topology::dragonfly:
      return build_dragonfly(spec, graph, node_switches);
    case Topology::full_mesh:
      return build_full_mesh(spec, graph, node_switches);
    case Topology::graph:
      return build_graph(spec, graph, node_switches);
  }
  DTSIM_CHECK(false, "unknown topology");
}

}  // namespace

Fabric::Fabric(const PlatformSpec& spec) : spec_(spec) {
  DTSIM_CHECK(spec.nodes >= 1 && spec.gpus_per_node >= 1, "a platform needs GPUs");
  const bool star = spec.topology == Topology::star;
  const int gpu = graph_.vertex_pattern("gpu#");
  for (int h = 0; h < spec.hosts(); ++h) graph_.add_vertex(VertexKind::gpu, gpu, {h});
  if (spec.node.structured) {
    structured_ = std::make_shared<const NodeFabricRouter>(spec, graph_);
  } else {
    std::vector<int> node_switches;
    if (star) {
      graph_.add_vertex(VertexKind::network_switch, "switch");
    } else {
      const int node_switch = graph_.vertex_pattern("node#_switch");
      for (int n = 0; n < spec.nodes; ++n)
        node_switches.push_back(graph_.add_vertex(VertexKind::node_switch, node_switch, {n}));
    }
    const int gpu_link = graph_.link_pattern(star ? "link#" : "gpu#");
    for (int h = 0; h < spec.hosts(); ++h)
      graph_.add_link(gpu_link, {h}, h, node_switch(h / spec.gpus_per_node), spec.intra);
    router_ = build_network(spec, graph_, node_switches);
  }
  add_reduction_units();
  std::vector<DirectedLink>& links = graph_.links();
  // A reduction unit sums its inputs (its link's DOWN direction) at most at the switch's aggregation rate.
  for (int up : reduce_link_)
    if (spec.switch_reduce_bandwidth_Bps > 0)
      links[static_cast<std::size_t>(up + 1)].bandwidth_Bps = spec.switch_reduce_bandwidth_Bps;
  for (const auto& [name, factor] : spec.link_slowdown)
    if (const int id = graph_.find_link(name); id >= 0) links[static_cast<std::size_t>(id)].bandwidth_Bps /= factor;
}

std::vector<int> Fabric::node_route(int a, int b) const {
  std::vector<int> links;
  if (router_ && a != b) router_->route(a, b, links);
  return links;
}

void Fabric::add_reduction_units() {
  if (!reduction_refusal(spec_).empty() || !spec_.reduces_in_network()) return;
  // The switch every GPU's way up ends at, and the ports bringing the inputs (every GPU's, or every node's NIC).
  std::vector<int> up;
  up_to_switch(0, up);
  const int reducing = links()[static_cast<std::size_t>(up.back())].to;
  const LinkSpec port =
      spec_.node.structured
          ? payload_rate(spec_.node.nvlink, nvlink_payload_efficiency(spec_.node.nvlink_payload_bytes))
          : spec_.topology == Topology::star ? spec_.intra : spec_.inter;
  const int ports = spec_.node.structured ? spec_.gpus_per_node : spec_.topology == Topology::star ? spec_.hosts()
                                                                                                   : spec_.nodes;
  const int unit = graph_.add_vertex_suffixed(VertexKind::reduction, reducing, "_reduce");
  const double line_rate_Bps = ports * port.bandwidth_Bps;
  reduce_link_.push_back(graph_.add_link_suffixed(reducing, "_reduce", unit, reducing, {line_rate_Bps, 0.0}));
}

void Fabric::up_to_switch(int h, std::vector<int>& links) const {
  const int node = h / spec_.gpus_per_node;
  if (structured_) {
    DTSIM_CHECK(node == 0, "an NVSwitch reduces for the GPUs of its own node (node 0)");
    links.push_back(structured_->nvswitch_port(node, h % spec_.gpus_per_node));
    return;
  }
  links.push_back(host_link(h));
  if (spec_.topology != Topology::star) links.push_back(2 * spec_.hosts() + 2 * node);  // nic<node> UP
}

void Fabric::route(int from, int to, std::vector<int>& links) const {
  using collectives::is_switch;
  DTSIM_CHECK(from != to && from < spec_.hosts() && to < spec_.hosts() && !(is_switch(from) && is_switch(to)) &&
                  (from >= 0 || -1 - from < switch_endpoints()) && (to >= 0 || -1 - to < switch_endpoints()),
              "path between invalid hosts");
  if (is_switch(to)) {
    up_to_switch(from, links);
    links.push_back(FabricGraph::direction(endpoint_link(-1 - to), false));
  } else if (is_switch(from)) {
    links.push_back(endpoint_link(-1 - from));
    std::vector<int> up;
    up_to_switch(to, up);
    for (auto it = up.rbegin(); it != up.rend(); ++it) links.push_back(FabricGraph::direction(*it, false));
  } else if (structured_) {
    structured_->route(from, to, links);
  } else {
    links.push_back(host_link(from));
    const int node_from = from / spec_.gpus_per_node;
    const int node_to = to / spec_.gpus_per_node;
    if (router_ && node_from != node_to) router_->route(node_from, node_to, links);
    links.push_back(host_link(to) + 1);
  }
}

core::Path Fabric::path(int from, int to) const {
  core::Path p;
  route(from, to, p.links);
  for (int l : p.links) p.latency_s += links()[static_cast<std::size_t>(l)].latency_s;
  p.rate_cap_Bps = spec_.transfer_cap_Bps(from, to);
  return p;
}

double Fabric::link_bandwidth_Bps(int link) const { return links()[static_cast<std::size_t>(link)].bandwidth_Bps; }

namespace {

/// Latency and bottleneck of the route from `from` to `to`.
collectives::AlphaBeta route_cost(const Fabric& fabric, int from, int to) {
  const core::Path p = fabric.path(from, to);
  double bandwidth_Bps = p.rate_cap_Bps;
  for (int l : p.links) bandwidth_Bps = std::min(bandwidth_Bps, fabric.link_bandwidth_Bps(l));
  return {p.latency_s, 1.0 / bandwidth_Bps};
}

}  // namespace

namespace {

/// NCCL's default for LL128 on structured nodes (src/graph/tuning.cc: typeIntra <= PATH_NVB, typeInter <=
/// PATH_PXB): inside a node, NVLink or NVSwitch between its GPUs (or one GPU a node); across nodes also
/// GPUDirect RDMA with every GPU's NIC on the GPU's own PCIe switch.
collectives::LinkCosts::Ll128 ll128_by_default(const PlatformSpec& spec) {
  const NodeSpec& node = spec.node;
  collectives::LinkCosts::Ll128 ll128;
  ll128.inside = node.fabric != NodeFabric::pcie || spec.gpus_per_node == 1;
  ll128.across = ll128.inside && node.gpudirect;
  for (int g = 0; g < spec.gpus_per_node; ++g)
    if (node.gpu_switch(g, spec.gpus_per_node) != node.nic_switch(node.gpu_nic[static_cast<std::size_t>(g)]))
      ll128.across = false;
  return ll128;
}

/// An NVLink's line rate per direction, NVLink 2, 3 and 4 alike: 25 GB/s (V100, A100 and H100 datasheets: 6 x 25 =
/// 150, 12 x 25 = 300 and 18 x 25 = 450 GB/s per direction per GPU).
constexpr double kNvlinkLine_Bps = 25e9;

/// Buffer time per byte of a platform: 1 / buffer_bandwidth, 0 where not set.
double buffer_s_per_byte(const PlatformSpec& spec) {
  return spec.buffer_bandwidth_Bps > 0 ? 1 / spec.buffer_bandwidth_Bps : 0.0;
}

/// The smallest platform holding nodes 0 and 1 and the route between them as `spec` has it: two nodes of a
/// two-level cluster, two top-level subtrees of a fat tree (the route climbs no higher than it must); other
/// topologies whole. A million-GPU cluster's link costs then take microseconds, not a million hosts' fabric.
PlatformSpec first_two_nodes(const PlatformSpec& spec) {
  PlatformSpec sample = spec;
  if (spec.topology == Topology::two_level) sample.nodes = std::min(spec.nodes, 2);
  if (spec.topology == Topology::fat_tree && !spec.fat_tree.down.empty()) {
    sample.fat_tree.down.back() = std::min(spec.fat_tree.down.back(), 2);
    sample.nodes = static_cast<int>(fat_tree_nodes(sample.fat_tree));
  }
  return sample;
}

/// The way to the fabric's reducing switch, if it has one, into `costs` (LinkCosts::to_switch and its fields).
void add_switch_costs(const Fabric& fabric, collectives::LinkCosts& costs) {
  if (fabric.switch_endpoints() == 0) return;
  std::vector<int> up;
  fabric.up_to_switch(0, up);
  collectives::AlphaBeta ab{0, 0};
  for (int l : up) {
    ab.alpha_s += fabric.links()[static_cast<std::size_t>(l)].latency_s;
    ab.beta_s_per_byte = std::max(ab.beta_s_per_byte, 1 / fabric.link_bandwidth_Bps(l));
  }
  ab.alpha_s += fabric.links()[static_cast<std::size_t>(fabric.endpoint_link(0))].latency_s;
  costs.to_switch = ab;
  costs.switch_in_node = fabric.spec().node.structured;
  const double reduce_Bps = fabric.spec().switch_reduce_bandwidth_Bps;
  costs.switch_reduce_s_per_byte = reduce_Bps > 0 ? 1 / reduce_Bps : 0.0;
}

}  // namespace

std::string reduction_refusal(const PlatformSpec& spec) {
  if (spec.sharp) {
    if (spec.node.structured)
      return "sharp = true on structured nodes ([platform.node]): the aggregation tree over their NICs is not "
             "modelled; use nodes without [platform.node] (intra_link, inter_link)";
    const bool one_switch = spec.topology == Topology::star || spec.topology == Topology::two_level ||
                            (spec.topology == Topology::fat_tree && spec.fat_tree.down.size() == 1);
    if (!one_switch)
      return "sharp = true on a " + topology_name(spec.topology) +
             ": in-network reduction is modelled where one switch joins all nodes (star, two_level, fat_tree with "
             "one switch level)";
  }
  if (spec.node.nvls) {
    if (!spec.node.structured || spec.node.fabric != NodeFabric::nvswitch)
      return "nvls = true without an NVSwitch: NVLink SHARP is a function of the NVSwitch (fabric = \"nvswitch\")";
    if (const std::vector<std::string> sharp = {"h100", "h200", "h800", "b200", "gb200"};
        std::find(sharp.begin(), sharp.end(), spec.gpu) == sharp.end())
      return "nvls = true with gpu = \"" + spec.gpu +
             "\": NVLink SHARP needs third-generation NVSwitch and Hopper GPUs (DGX H100 and later; DGX A100's "
             "second-generation and DGX-1's NVLinks do not reduce); set gpu = \"h100\", \"h200\", \"h800\", "
             "\"b200\" or \"gb200\"";
  }
  return "";
}

int nvswitch_nvlinks(const NodeSpec& node) {
  return std::max(1, static_cast<int>(std::lround(node.nvlink.bandwidth_Bps / kNvlinkLine_Bps)));
}

collectives::LinkCosts link_costs(const PlatformSpec& whole) {
  const PlatformSpec spec = first_two_nodes(whole);
  if (spec.node.structured) {
    if (spec.hosts() < 2) return {};
    const Fabric fabric(spec);
    const int g = spec.gpus_per_node;  // one GPU a node: intra is the inter route; one node: inter is intra
    collectives::LinkCosts costs{route_cost(fabric, 0, g > 1 ? 1 : g), route_cost(fabric, 0, spec.nodes > 1 ? g : 1),
                                 {}, spec.node.gpu_nic, ll128_by_default(spec)};
    if (spec.node.fabric == NodeFabric::nvlink_mesh) costs.nvlinks = spec.node.nvlinks;
    if (spec.node.fabric == NodeFabric::nvswitch) costs.nvswitch_nvlinks = nvswitch_nvlinks(spec.node);
    costs.call_s = spec.call_latency_s;
    costs.buffer_s_per_byte = buffer_s_per_byte(spec);
    add_switch_costs(fabric, costs);
    return costs;
  }
  const LinkSpec& gpu = spec.intra;
  const collectives::AlphaBeta intra{2 * gpu.latency_s, 1.0 / gpu.bandwidth_Bps};
  collectives::LinkCosts costs = collectives::LinkCosts::uniform(intra);
  if (spec.topology != Topology::star && spec.nodes >= 2) costs.inter = route_cost(Fabric(spec), 0, spec.gpus_per_node);
  costs.call_s = spec.call_latency_s;
  costs.buffer_s_per_byte = buffer_s_per_byte(spec);
  if (spec.reduces_in_network()) add_switch_costs(Fabric(spec), costs);
  return costs;
}

}  // namespace dtsim::platform
