#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <cmath>
#include <limits>
#include <map>

#include "sim/core/error.hpp"
#include "sim/platform/fabric_graph.hpp"

namespace dtsim::platform {
namespace {

/// graph: switches and edges from the platform file; nodes are "node<i>" (their node switch).
///
///   node0 --e0-- leaf0 --e2-- core --e3-- leaf1 --e5-- node2      any shape: each [[edges]] entry is one
///   node1 --e1--/                           \--e4-- node3          split-duplex link (UP = from -> to)
///
/// Routes: least total latency (Dijkstra, Boost.Graph), computed once per source node over the network
/// vertices (node switches and switches). Ties are broken exactly: latencies are compared in whole
/// picoseconds; among equal latencies the route with fewer hops wins; among those, each vertex is entered by
/// the tight link declared first (lowest link id), which makes the routes a deterministic shortest-path tree.
class GraphRouter final : public NodeRouter {
 public:
  GraphRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches)
      : node_switches_(node_switches) {
    std::map<std::string, int> by_name;
    for (std::size_t n = 0; n < node_switches.size(); ++n) by_name["node" + std::to_string(n)] = node_switches[n];
    for (const std::string& s : spec.graph.switches)
      by_name[s] = graph.add_vertex_literal(VertexKind::network_switch, s);
    const int first_link = static_cast<int>(graph.links().size());
    for (const GraphEdge& e : spec.graph.edges) {
      const auto from = by_name.find(e.from);
      const auto to = by_name.find(e.to);
      if (from == by_name.end() || to == by_name.end())
        throw core::InputError(
            "edge '" + e.name + "' names an unknown vertex '" + (from == by_name.end() ? e.from : e.to) + "'",
            "vertices are node0 .. node" + std::to_string(node_switches.size() - 1) + " and the switches");
      graph.add_link_literal(e.name, from->second, to->second, e.link);
    }
    shortest_paths(graph, first_link);
  }

  void route(int a, int b, std::vector<int>& links) const override {
    const std::vector<int>& pred = enter_[static_cast<std::size_t>(a)];
    const std::size_t first = links.size();
    for (int v = node_switches_[static_cast<std::size_t>(b)]; v != node_switches_[static_cast<std::size_t>(a)];) {
      const int l = pred[static_cast<std::size_t>(v - base_)];
      links.push_back(l);
      v = from_[static_cast<std::size_t>(l - first_link_)];
    }
    std::reverse(links.begin() + static_cast<std::ptrdiff_t>(first), links.end());
  }

 private:
  using Weight = long long;
  struct Arc {
    Weight weight = 0;
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, Arc>;

  void shortest_paths(const FabricGraph& graph, int first_link) {
    first_link_ = first_link;
    base_ = node_switches_.front();
    const auto vertices = static_cast<std::size_t>(graph.vertex_count() - base_);
    const auto local = [&](int v) { return static_cast<std::size_t>(v - base_); };
    Graph g(vertices);
    std::vector<Weight> weight;
    const Weight hop = 1;
    const auto scale = static_cast<Weight>(vertices + 1);  // a picosecond outweighs any number of hops
    for (std::size_t l = static_cast<std::size_t>(first_link); l < graph.links().size(); ++l) {
      const DirectedLink& d = graph.links()[l];
      weight.push_back(std::llround(d.latency_s * 1e12) * scale + hop);
      from_.push_back(d.from);
      boost::add_edge(local(d.from), local(d.to), Arc{weight.back()}, g);
    }
    for (std::size_t n = 0; n < node_switches_.size(); ++n) {
      std::vector<Weight> dist(vertices);
      boost::dijkstra_shortest_paths(
          g, local(node_switches_[n]),
          boost::weight_map(boost::get(&Arc::weight, g))
              .distance_map(boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g))));
      std::vector<int>& enter = enter_.emplace_back(vertices, -1);
      const Weight unreachable = std::numeric_limits<Weight>::max();
      for (std::size_t i = 0; i < weight.size(); ++i) {
        const DirectedLink& d = graph.links()[static_cast<std::size_t>(first_link) + i];
        const std::size_t to = local(d.to);
        if (enter[to] < 0 && dist[local(d.from)] != unreachable && dist[local(d.from)] + weight[i] == dist[to])
          enter[to] = first_link + static_cast<int>(i);
      }
      for (std::size_t m = 0; m < node_switches_.size(); ++m)
        if (dist[local(node_switches_[m])] == unreachable)
          throw core::InputError("node" + std::to_string(m) + " cannot be reached from node" + std::to_string(n),
                                 "the edges must connect every node to every other");
    }
  }

  std::vector<int> node_switches_;
  int base_ = 0;  ///< first network vertex (GPUs come before it and never carry routes)
  int first_link_ = 0;
  std::vector<int> from_;                ///< vertex each network link direction leaves, by id - first_link_
  std::vector<std::vector<int>> enter_;  ///< per source node: the link entering each network vertex
};

}  // namespace

std::unique_ptr<NodeRouter> build_graph(const PlatformSpec& spec, FabricGraph& graph,
                                        const std::vector<int>& node_switches) {
  return std::make_unique<GraphRouter>(spec, graph, node_switches);
}

}  // namespace dtsim::platform
