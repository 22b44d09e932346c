#include "sim/platform/fabric_graph.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::platform {

int FabricGraph::add_vertex(std::string name, VertexKind kind) {
  vertices_.push_back({std::move(name), kind});
  return static_cast<int>(vertices_.size()) - 1;
}

int FabricGraph::add_link(const std::string& name, int a, int b, const LinkSpec& spec) {
  DTSIM_CHECK(
      a != b && a >= 0 && b >= 0 && a < static_cast<int>(vertices_.size()) && b < static_cast<int>(vertices_.size()),
      "link between invalid vertices");
  links_.push_back({name + "_UP", spec.bandwidth_Bps, spec.latency_s, a, b, spec.line_rate()});
  links_.push_back({name + "_DOWN", spec.bandwidth_Bps, spec.latency_s, b, a, spec.line_rate()});
  return static_cast<int>(links_.size()) - 2;
}

NicRouter::NicRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches,
                     const std::vector<int>& switches, std::vector<int> attached)
    : switches_(switches), attached_(std::move(attached)) {
  for (std::size_t n = 0; n < node_switches.size(); ++n)
    nic_up_.push_back(graph.add_link("nic" + std::to_string(n), node_switches[n],
                                     switches[static_cast<std::size_t>(attached_[n])], spec.inter));
}

void NicRouter::route(int a, int b, std::vector<int>& links) const {
  const auto ua = static_cast<std::size_t>(a);
  const auto ub = static_cast<std::size_t>(b);
  links.push_back(nic_up_[ua]);
  if (attached_[ua] != attached_[ub]) switch_route(attached_[ua], attached_[ub], links);
  links.push_back(FabricGraph::direction(nic_up_[ub], false));
}

std::vector<int> fill_switches(int nodes, int per_switch) {
  std::vector<int> attached;
  for (int n = 0; n < nodes; ++n) attached.push_back(n / per_switch);
  return attached;
}

std::vector<int> add_switches(FabricGraph& graph, const std::string& prefix, int count) {
  std::vector<int> ids;
  for (int i = 0; i < count; ++i)
    ids.push_back(graph.add_vertex(prefix + std::to_string(i), VertexKind::network_switch));
  return ids;
}

MeshLinks::MeshLinks(FabricGraph& graph, const std::vector<int>& vertices, const LinkSpec& spec)
    : count_(static_cast<int>(vertices.size())) {
  for (std::size_t i = 0; i < vertices.size(); ++i)
    for (std::size_t j = i + 1; j < vertices.size(); ++j)
      up_.push_back(graph.add_link(graph.vertices()[static_cast<std::size_t>(vertices[i])].name + "-" +
                                       graph.vertices()[static_cast<std::size_t>(vertices[j])].name,
                                   vertices[i], vertices[j], spec));
}

int MeshLinks::directed(int i, int j) const {
  DTSIM_CHECK(i != j, "no link from an item to itself");
  const int lo = std::min(i, j);
  const int hi = std::max(i, j);
  const int index = lo * count_ - lo * (lo + 1) / 2 + (hi - lo - 1);
  return FabricGraph::direction(up_[static_cast<std::size_t>(index)], i < j);
}

}  // namespace dtsim::platform
