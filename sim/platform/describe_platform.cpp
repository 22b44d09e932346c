#include "sim/platform/describe_platform.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cmath>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"

namespace dtsim::platform {
namespace {

constexpr int kMaxSketchVertices = 64;

/// Min cut between the first and second half of the GPUs (push-relabel max flow, Boost.Graph). Capacities
/// are whole bytes per second.
double bisection_Bps(const Fabric& fabric) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, long long,
                      boost::property<boost::edge_residual_capacity_t, long long,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const int hosts = fabric.spec().hosts();
  if (hosts < 2) return 0;
  const auto vertices = static_cast<std::size_t>(fabric.graph().vertex_count());
  Graph g(vertices + 2);
  const std::size_t source = vertices;
  const std::size_t sink = vertices + 1;
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  const auto arc = [&](std::size_t u, std::size_t v, long long c) {
    const auto forward = boost::add_edge(u, v, g).first;
    const auto backward = boost::add_edge(v, u, g).first;
    capacity[forward] = c;
    capacity[backward] = 0;
    reverse[forward] = backward;
    reverse[backward] = forward;
  };
  long long total = 1;
  for (const DirectedLink& l : fabric.links()) {
    const long long c = std::llround(l.bandwidth_Bps);
    arc(static_cast<std::size_t>(l.from), static_cast<std::size_t>(l.to), c);
    total += c;
  }
  for (int h = 0; h < hosts; ++h)
    if (h < hosts / 2)
      arc(source, static_cast<std::size_t>(h), total);
    else
      arc(static_cast<std::size_t>(h), sink, total);
  return static_cast<double>(boost::push_relabel_max_flow(g, source, sink));
}

std::vector<double> fat_tree_oversubscription(const PlatformSpec& spec) {
  const FatTreeShape& f = spec.fat_tree;
  std::vector<double> ratios;
  for (std::size_t l = 1; l < f.down.size(); ++l) {
    const double below = f.down[l - 1] * f.parallel[l - 1] * (l == 1 ? spec.inter : spec.network).bandwidth_Bps;
    ratios.push_back(below / (f.up[l] * f.parallel[l] * spec.network.bandwidth_Bps));
  }
  return ratios;
}

/// "name: neighbour neighbour ..." for every node switch and network switch; node switches list their GPUs.
std::string sketch(const Fabric& fabric) {
  const FabricGraph& graph = fabric.graph();
  const int shown = graph.vertex_count() - fabric.spec().hosts();
  if (shown > kMaxSketchVertices) return "";
  const auto vertices = static_cast<std::size_t>(graph.vertex_count());
  std::vector<std::vector<std::string>> gpus(vertices), neighbours(vertices);
  for (std::size_t l = 0; l < fabric.links().size(); l += 2) {
    const DirectedLink& up = fabric.links()[l];
    const auto a = static_cast<std::size_t>(up.from);
    const auto b = static_cast<std::size_t>(up.to);
    if (graph.vertex_kind(up.from) == VertexKind::gpu) {
      gpus[b].push_back(graph.vertex_name(up.from));
      continue;
    }
    neighbours[a].push_back(graph.vertex_name(up.to));
    neighbours[b].push_back(graph.vertex_name(up.from));
  }
  std::ostringstream out;
  for (int v = fabric.spec().hosts(); v < graph.vertex_count(); ++v) {
    const auto at = static_cast<std::size_t>(v);
    out << graph.vertex_name(v);
    if (!gpus[at].empty())
      out << " [" << gpus[at].front() << (gpus[at].size() > 1 ? " .. " + gpus[at].back() : "") << "]";
    if (!neighbours[at].empty()) out << " --";
    for (const std::string& n : neighbours[at]) out << ' ' << n;
    out << '\n';
  }
  return out.str();
}

/// "first .. last (count)" per name pattern, patterns in order of their first link.
std::vector<std::string> link_name_lines(const Fabric& fabric) {
  struct Family {
    std::string pattern, first, last;
    int count = 0;
  };
  std::vector<Family> families;
  for (int id = 0; id < fabric.link_count(); ++id) {
    const std::string name = fabric.link_name(id);
    const std::string pattern = name_kind(name);
    auto f = std::find_if(families.begin(), families.end(), [&](const Family& x) { return x.pattern == pattern; });
    if (f == families.end()) f = families.insert(families.end(), Family{pattern, name, name, 0});
    f->last = name;
    ++f->count;
  }
  std::vector<std::string> lines;
  for (const Family& f : families)
    lines.push_back(f.count == 1 ? f.first : f.first + " .. " + f.last + " (" + std::to_string(f.count) + ")");
  return lines;
}

std::string link_text(const LinkSpec& l) {
  return core::format_bytes(l.bandwidth_Bps) + "/s, " + core::format_duration(l.latency_s);
}

/// Where a structured node's NICs go: one switch, or rails whose leaves have uplinks to a spine.
std::string rail_network(const PlatformSpec& spec) {
  const NodeSpec& n = spec.node;
  if (!n.rails) return "every NIC on top_switch";
  const std::string head = "rail-optimised: nic<k> of every node on rail<k>, rails joined by spine";
  if (n.nodes_per_leaf == 0)
    return head + " (rail<k>_spine " + link_text(spec.network) + ": one leaf uplink per rail at any node count, " +
           "nodes_per_leaf not set)";
  const int leaves = spec.rail_leaves();
  if (n.units_per_pod > 0)
    return "rail-optimised, three tiers: " + std::to_string(leaves) + " scalable units of up to " +
           std::to_string(n.nodes_per_leaf) + " nodes, each with a leaf per rail (su<u>_rail<k>, uplink " +
           link_text(spec.network) + " to its pod's spine); " + std::to_string(spec.pods()) + " pods of up to " +
           std::to_string(n.units_per_pod) + " units, each spine linked to the core (pod0_core " +
           link_text(spec.pod_core(0)) + ", oversubscription " + fmt::format("{:g}", n.core_oversubscription) + ":1)";
  return head + " (rail<k>_spine " + link_text(spec.rail_spine()) + ": " + std::to_string(leaves) +
         (leaves == 1 ? " leaf" : " leaves") + " of up to " + std::to_string(n.nodes_per_leaf) +
         " nodes, each with an uplink of " + link_text(spec.network) + ")";
}

/// What one structured node holds and how its GPUs reach each other and the network.
std::string node_structure(const PlatformSpec& spec) {
  const NodeSpec& n = spec.node;
  const int g = spec.gpus_per_node;
  std::ostringstream out;
  out << "node fabric   " << node_fabric_name(n.fabric);
  if (n.fabric == NodeFabric::nvswitch) out << ": every GPU one port of " << link_text(n.nvlink) << " to node<n>_nvswitch";
  if (n.fabric == NodeFabric::nvlink_mesh) out << ": NVLinks per GPU pair, " << link_text(n.nvlink) << " each";
  if (n.fabric == NodeFabric::nvlink_mesh) out << "; pairs without NVLink go over PCIe";
  if (n.fabric == NodeFabric::pcie) out << ": GPUs meet in their PCIe switch, across switches in the host";
  out << "\n";
  if (n.fabric == NodeFabric::nvlink_mesh)
    for (int i = 0; i < g; ++i) {
      out << "  gpu" << i << " ->";
      for (int j = 0; j < g; ++j)
        if (const int k = n.nvlinks[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; k > 0)
          out << " gpu" << j << " x" << k;
      out << "\n";
    }
  out << "pcie          " << n.pcie_switches << " switches, links " << link_text(n.pcie) << ", each to node<n>_host:";
  for (int s = 0; s < n.pcie_switches; ++s) {
    out << " pcie" << s << " [";
    const char* separator = "";
    for (int i = 0; i < g; ++i)
      if (n.gpu_switch(i, g) == s) out << std::exchange(separator, " ") << "gpu" << i;
    for (int k = 0; k < n.nics; ++k)
      if (n.nic_switch(k) == s) out << std::exchange(separator, " ") << "nic" << k;
    out << "]";
  }
  out << "\nnics          " << n.nics << " per node, " << link_text(spec.inter) << "; GPUDirect RDMA "
      << (n.gpudirect ? "on" : "off (through host memory)") << ":";
  for (int i = 0; i < g; ++i) out << " gpu" << i << "->nic" << n.gpu_nic[static_cast<std::size_t>(i)];
  out << "\nnetwork       " << rail_network(spec)
      << "\nnode links    gpu<h>_pcie, node<n>_pcie<s>_host, node<n>_nic<k>_pcie, node<n>_nic<k>"
      << (n.fabric == NodeFabric::nvswitch ? ", gpu<h>_nvlink" : "")
      << (n.fabric == NodeFabric::nvlink_mesh ? ", node<n>_nvlink<i>-<j>" : "")
      << (n.units_per_pod > 0 ? ", su<u>_rail<k>_spine, pod<p>_core" : n.rails ? ", rail<k>_spine" : "")
      << "\n";
  return out.str();
}

/// Most hops and largest latency over routes; structured nodes are alike and so are their NICs' places in
/// the network, so the routes from node 0's GPUs to node 0 and node 1 cover every kind.
void structured_diameter(const Fabric& fabric, PlatformDescription& d) {
  const PlatformSpec& spec = fabric.spec();
  const int last = std::min(spec.hosts(), 2 * spec.gpus_per_node);
  for (int a = 0; a < spec.gpus_per_node; ++a)
    for (int b = 0; b < last; ++b) {
      if (a == b) continue;
      const core::Path p = fabric.path(a, b);
      d.diameter_hops = std::max(d.diameter_hops, static_cast<int>(p.links.size()));
      d.diameter_latency_s = std::max(d.diameter_latency_s, p.latency_s);
    }
}

}  // namespace

PlatformDescription describe_platform(const PlatformSpec& spec) {
  const Fabric fabric(spec);
  PlatformDescription d;
  d.name = spec.name;
  d.topology = topology_name(spec.topology);
  d.hosts = spec.hosts();
  d.nodes = spec.topology == Topology::star ? spec.hosts() : spec.nodes;
  const std::vector<VertexKind>& kinds = fabric.graph().vertex_kinds();
  d.switches = static_cast<int>(std::count(kinds.begin(), kinds.end(), VertexKind::network_switch));
  d.links = fabric.link_count() / 2;
  if (spec.node.structured) {
    structured_diameter(fabric, d);
    d.node = node_structure(spec);
  } else if (d.hosts >= 2) {
    d.diameter_hops = 2;
    d.diameter_latency_s = 2 * spec.intra.latency_s;
  }
  if (spec.topology != Topology::star && !spec.node.structured)
    for (int a = 0; a < spec.nodes; ++a)
      for (int b = 0; b < spec.nodes; ++b) {
        if (a == b) continue;
        const std::vector<int> route = fabric.node_route(a, b);
        double latency_s = 2 * spec.intra.latency_s;
        for (int l : route) latency_s += fabric.links()[static_cast<std::size_t>(l)].latency_s;
        d.diameter_hops = std::max(d.diameter_hops, 2 + static_cast<int>(route.size()));
        d.diameter_latency_s = std::max(d.diameter_latency_s, latency_s);
      }
  d.bisection_Bps = bisection_Bps(fabric);
  if (spec.topology == Topology::fat_tree) d.oversubscription = fat_tree_oversubscription(spec);
  d.link_names = link_name_lines(fabric);
  d.sketch = sketch(fabric);
  return d;
}

std::string format_description(const PlatformDescription& d) {
  std::ostringstream out;
  out << "platform      " << d.name << " (" << d.topology << ")\n"
      << "hosts         " << d.hosts << " GPUs on " << d.nodes << " nodes\n"
      << "switches      " << d.switches << " network switches\n"
      << "links         " << d.links << " split-duplex links\n"
      << "diameter      " << d.diameter_hops << " hops, " << core::format_duration(d.diameter_latency_s) << "\n"
      << "bisection     " << core::format_bytes(d.bisection_Bps) << "/s (GPUs 0.." << d.hosts / 2 - 1
      << " to the rest)\n";
  if (!d.oversubscription.empty()) {
    out << "oversubscribed";
    for (std::size_t l = 0; l < d.oversubscription.size(); ++l)
      out << (l ? ", " : " ") << "level " << l + 1 << " " << d.oversubscription[l] << ":1";
    out << "\n";
  }
  out << d.node;
  out << "link names    directed, as slow_links, [[failures]] link and the report's links name them:\n";
  for (const std::string& line : d.link_names) out << "  " << line << "\n";
  if (!d.sketch.empty()) out << "\n" << d.sketch;
  return out.str();
}

}  // namespace dtsim::platform
