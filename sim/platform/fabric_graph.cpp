#include "sim/platform/fabric_graph.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::platform {

int FabricGraph::add_vertex(VertexKind kind, int pattern, std::initializer_list<int> numbers) {
  vertex_names_.add(pattern, numbers);
  kinds_.push_back(kind);
  return vertex_count() - 1;
}

int FabricGraph::add_vertex_literal(VertexKind kind, std::string_view name) {
  return add_vertex(kind, vertex_names_.literal(name));
}

int FabricGraph::add_vertex_suffixed(VertexKind kind, int v, std::string_view suffix) {
  vertex_names_.add_suffixed(vertex_names_, v, suffix);
  kinds_.push_back(kind);
  return vertex_count() - 1;
}

int FabricGraph::add_link(int pattern, std::initializer_list<int> numbers, int a, int b, const LinkSpec& spec) {
  return connect(link_names_.add(pattern, numbers), a, b, spec);
}

int FabricGraph::add_link_literal(std::string_view name, int a, int b, const LinkSpec& spec) {
  return connect(link_names_.add(link_names_.literal(name), {}), a, b, spec);
}

int FabricGraph::add_link_between(int a, std::string_view separator, int b, const LinkSpec& spec) {
  return connect(link_names_.add_joined(vertex_names_, a, separator, vertex_names_, b), a, b, spec);
}

int FabricGraph::add_link_suffixed(int named, std::string_view suffix, int a, int b, const LinkSpec& spec) {
  return connect(link_names_.add_suffixed(vertex_names_, named, suffix), a, b, spec);
}

int FabricGraph::connect(int name, int a, int b, const LinkSpec& spec) {
  DTSIM_CHECK(a != b && a >= 0 && b >= 0 && a < vertex_count() && b < vertex_count(), "link between invalid vertices");
  DTSIM_CHECK(2 * static_cast<std::size_t>(name) == links_.size(), "link names are added in link order");
  links_.push_back({spec.bandwidth_Bps, spec.latency_s, spec.line_rate(), a, b});
  links_.push_back({spec.bandwidth_Bps, spec.latency_s, spec.line_rate(), b, a});
  return static_cast<int>(links_.size()) - 2;
}

int FabricGraph::find_link(std::string_view name) const {
  const bool up = name.ends_with("_UP");
  if (!up && !name.ends_with("_DOWN")) return -1;
  const std::string_view duplex = name.substr(0, name.size() - (up ? 3 : 5));
  // Only links of the name's kind are written out: a few of a million.
  const std::string kind = name_kind(duplex);
  for (int k = 0; k < link_names_.size(); ++k)
    if (link_names_.kind(k) == kind && link_names_.str(k) == duplex) return direction(2 * k, up);
  return -1;
}

FabricGraph::Size FabricGraph::size() const {
  return {kinds_.size(), links_.size(), vertex_names_.numbers(), link_names_.numbers()};
}

void FabricGraph::reserve_repeats(const Size& before, std::size_t repeats, const Size& extra) {
  const Size now = size();
  const auto total = [&](std::size_t Size::*part) {
    return before.*part + (now.*part - before.*part) * repeats + extra.*part;
  };
  kinds_.reserve(total(&Size::vertices));
  links_.reserve(total(&Size::links));
  vertex_names_.reserve(total(&Size::vertices), total(&Size::vertex_numbers));
  link_names_.reserve(total(&Size::links) / 2, total(&Size::link_numbers));
}

NicRouter::NicRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches,
                     const std::vector<int>& switches, std::vector<int> attached)
    : switches_(switches), attached_(std::move(attached)) {
  const int nic = graph.link_pattern("nic#");
  for (std::size_t n = 0; n < node_switches.size(); ++n)
    nic_up_.push_back(graph.add_link(nic, {static_cast<int>(n)}, node_switches[n],
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

std::vector<int> add_switches(FabricGraph& graph, std::string_view pattern, int count) {
  std::vector<int> ids;
  const int id = graph.vertex_pattern(pattern);
  for (int i = 0; i < count; ++i) ids.push_back(graph.add_vertex(VertexKind::network_switch, id, {i}));
  return ids;
}

MeshLinks::MeshLinks(FabricGraph& graph, const std::vector<int>& vertices, const LinkSpec& spec)
    : count_(static_cast<int>(vertices.size())) {
  for (std::size_t i = 0; i < vertices.size(); ++i)
    for (std::size_t j = i + 1; j < vertices.size(); ++j)
      up_.push_back(graph.add_link_between(vertices[i], "-", vertices[j], spec));
}

int MeshLinks::directed(int i, int j) const {
  DTSIM_CHECK(i != j, "no link from an item to itself");
  const int lo = std::min(i, j);
  const int hi = std::max(i, j);
  const int index = lo * count_ - lo * (lo + 1) / 2 + (hi - lo - 1);
  return FabricGraph::direction(up_[static_cast<std::size_t>(index)], i < j);
}

}  // namespace dtsim::platform
