#pragma once
/// The graph every topology builds: vertices, split-duplex links, and the rule that routes between nodes.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// What a vertex is: a GPU (SimGrid host), a node switch (a node's gateway), a switch of the network, or the
/// reduction unit of a switch that sums in the network (a SimGrid host beside it: collectives::switch_endpoint).
enum class VertexKind { gpu, node_switch, network_switch, reduction };

/// One vertex of the fabric, named as in SimGrid.
struct Vertex {
  std::string name;
  VertexKind kind = VertexKind::gpu;
};

/// One direction of a split-duplex link.
struct DirectedLink {
  std::string name;  ///< SimGrid name: "<link>_UP" or "<link>_DOWN"
  double bandwidth_Bps = 0;
  double latency_s = 0;
  int from = 0;  ///< vertex the direction leaves
  int to = 0;    ///< vertex it enters
  double line_rate_Bps = 0;  ///< the product's line rate (LinkSpec::line_rate): bandwidth_Bps before packet overhead
};

/// Routes between the switches of two nodes, computed by dtsim (SimGrid only replays them).
class NodeRouter {
 public:
  virtual ~NodeRouter() = default;
  /// Appends the directed link ids from node a's switch to node b's switch (a != b).
  virtual void route(int a, int b, std::vector<int>& links) const = 0;
};

/// Vertices and links under construction. Link k has the directed ids 2k (UP: from its first vertex to its
/// second) and 2k + 1 (DOWN).
class FabricGraph {
 public:
  /// Adds a vertex; returns its id.
  int add_vertex(std::string name, VertexKind kind);
  /// Adds a split-duplex link named `name` between vertices a and b; returns the id of its UP direction.
  int add_link(const std::string& name, int a, int b, const LinkSpec& spec);
  /// The two direction ids of a link, the one given first: `up` for a -> b, else b -> a.
  static int direction(int up_id, bool up) { return up ? up_id : up_id + 1; }
  const std::vector<Vertex>& vertices() const { return vertices_; }
  const std::vector<DirectedLink>& links() const { return links_; }
  /// Room for `vertices` vertices and `links` directed links in all (no reallocation, whose peak holds the old
  /// and the doubled array together, while they are added).
  void reserve(std::size_t vertices, std::size_t links) {
    vertices_.reserve(vertices);
    links_.reserve(links);
  }
  /// Hands the vertices and links over to the fabric (a million links with their names at 100,000 GPUs: moved,
  /// not copied); the graph is empty after.
  std::vector<Vertex> take_vertices() { return std::move(vertices_); }
  std::vector<DirectedLink> take_links() { return std::move(links_); }

 private:
  std::vector<Vertex> vertices_;
  std::vector<DirectedLink> links_;
};

/// Routing of the topologies where node n's NIC "nic<n>" leads to one switch: NIC up, switch to switch, NIC down.
class NicRouter : public NodeRouter {
 public:
  void route(int a, int b, std::vector<int>& links) const final;

 protected:
  /// Adds node n's NIC from node_switches[n] to switches[attached[n]] (spec.inter), in node order.
  NicRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches,
            const std::vector<int>& switches, std::vector<int> attached);
  /// Appends the links from switch s to switch t (indices into the constructor's `switches`, s != t).
  virtual void switch_route(int s, int t, std::vector<int>& links) const = 0;
  /// Vertex id of switch s.
  int switch_vertex(int s) const { return switches_[static_cast<std::size_t>(s)]; }

 private:
  std::vector<int> switches_;
  std::vector<int> nic_up_;
  std::vector<int> attached_;
};

/// Switch of each node when nodes fill switches `per_switch` at a time, in order: n / per_switch.
std::vector<int> fill_switches(int nodes, int per_switch);

/// Adds `count` network switches named prefix<i>; returns their vertex ids.
std::vector<int> add_switches(FabricGraph& graph, const std::string& prefix, int count);

/// One link between every pair of k items (routers of a full mesh, of a dragonfly chassis...).
class MeshLinks {
 public:
  /// Adds the k(k-1)/2 links between vertices[i] and vertices[j], i < j, named "<name i>-<name j>".
  MeshLinks(FabricGraph& graph, const std::vector<int>& vertices, const LinkSpec& spec);
  /// Directed id of the link from item i to item j (i != j).
  int directed(int i, int j) const;

 private:
  int count_;
  std::vector<int> up_;  ///< UP ids in order (0,1), (0,2), ..., (1,2), ...
};

/// Topology builders. Each adds its network switches and links to `graph`, given the vertex of each node's
/// switch (already added), and returns its router. Pictures and routing rules are in the .cpp files.
std::unique_ptr<NodeRouter> build_two_level(const PlatformSpec& spec, FabricGraph& graph,
                                            const std::vector<int>& node_switches);
std::unique_ptr<NodeRouter> build_fat_tree(const PlatformSpec& spec, FabricGraph& graph,
                                           const std::vector<int>& node_switches);
/// Torus of spec.torus_dims; a ring is the torus of one dimension of spec.nodes routers.
std::unique_ptr<NodeRouter> build_torus(const PlatformSpec& spec, const std::vector<int>& dims, FabricGraph& graph,
                                        const std::vector<int>& node_switches);
std::unique_ptr<NodeRouter> build_dragonfly(const PlatformSpec& spec, FabricGraph& graph,
                                            const std::vector<int>& node_switches);
std::unique_ptr<NodeRouter> build_full_mesh(const PlatformSpec& spec, FabricGraph& graph,
                                            const std::vector<int>& node_switches);
/// Throws core::InputError (no location) when an edge names an unknown vertex or a node cannot reach another.
std::unique_ptr<NodeRouter> build_graph(const PlatformSpec& spec, FabricGraph& graph,
                                        const std::vector<int>& node_switches);

}  // namespace dtsim::platform
