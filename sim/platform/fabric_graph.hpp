#pragma once
/// The graph every topology builds: vertices, split-duplex links, and the rule that routes between nodes.
#include <memory>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "sim/platform/name_table.hpp"
#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// What a vertex is: a GPU (SimGrid host), a node switch (a node's gateway), a switch of the network, or the
/// reduction unit of a switch that sums in the network (a SimGrid host beside it: collectives::switch_endpoint).
enum class VertexKind { gpu, node_switch, network_switch, reduction };

/// One direction of a split-duplex link; its name is the graph's (FabricGraph::link_name).
struct DirectedLink {
  double bandwidth_Bps = 0;
  double latency_s = 0;
  double line_rate_Bps = 0;  ///< the product's line rate (LinkSpec::line_rate): bandwidth_Bps before packet overhead
  int from = 0;  ///< vertex the direction leaves
  int to = 0;    ///< vertex it enters
};

/// Routes between the switches of two nodes, computed by dtsim (SimGrid only replays them).
class NodeRouter {
 public:
  virtual ~NodeRouter() = default;
  /// Appends the directed link ids from node a's switch to node b's switch (a != b).
  virtual void route(int a, int b, std::vector<int>& links) const = 0;
};

/// Vertices and links, named as in SimGrid. Link k has the directed ids 2k (UP: from its first vertex to its
/// second, "<link>_UP") and 2k + 1 (DOWN, "<link>_DOWN"). Names are given as a pattern and its numbers (NameTable):
/// a pattern id from vertex_pattern() or link_pattern() where a name is added per GPU or per node, else its text.
class FabricGraph {
 public:
  /// Adds a vertex named `pattern` with `numbers`; returns its id.
  int add_vertex(VertexKind kind, int pattern, std::initializer_list<int> numbers = {});
  int add_vertex(VertexKind kind, std::string_view pattern, std::initializer_list<int> numbers = {}) {
    return add_vertex(kind, vertex_names_.pattern(pattern), numbers);
  }
  /// Adds a vertex named verbatim (a name from the user's file); returns its id.
  int add_vertex_literal(VertexKind kind, std::string_view name);
  /// Adds a vertex named after vertex v with `suffix`; returns its id.
  int add_vertex_suffixed(VertexKind kind, int v, std::string_view suffix);
  /// Adds a split-duplex link named `pattern` with `numbers` between vertices a and b; returns the id of its UP
  /// direction.
  int add_link(int pattern, std::initializer_list<int> numbers, int a, int b, const LinkSpec& spec);
  int add_link(std::string_view pattern, std::initializer_list<int> numbers, int a, int b, const LinkSpec& spec) {
    return add_link(link_names_.pattern(pattern), numbers, a, b, spec);
  }
  /// Adds a link named verbatim (a name from the user's file); returns its UP id.
  int add_link_literal(std::string_view name, int a, int b, const LinkSpec& spec);
  /// Adds a link between vertices a and b named after them, "<a's name><separator><b's name>"; returns its UP id.
  int add_link_between(int a, std::string_view separator, int b, const LinkSpec& spec);
  /// Adds a link between vertices a and b named after vertex `named` with `suffix`; returns its UP id.
  int add_link_suffixed(int named, std::string_view suffix, int a, int b, const LinkSpec& spec);
  /// Pattern ids of vertex and link names (NameTable::pattern), to add names per GPU without looking them up.
  int vertex_pattern(std::string_view text) { return vertex_names_.pattern(text); }
  int link_pattern(std::string_view text) { return link_names_.pattern(text); }
  /// The two direction ids of a link, the one given first: `up` for a -> b, else b -> a.
  static int direction(int up_id, bool up) { return up ? up_id : up_id + 1; }
  int vertex_count() const { return static_cast<int>(kinds_.size()); }
  VertexKind vertex_kind(int v) const { return kinds_[static_cast<std::size_t>(v)]; }
  const std::vector<VertexKind>& vertex_kinds() const { return kinds_; }
  std::string vertex_name(int v) const { return vertex_names_.str(v); }
  const std::vector<DirectedLink>& links() const { return links_; }
  std::vector<DirectedLink>& links() { return links_; }
  /// Name of directed link `id`: "<link>_UP" or "<link>_DOWN".
  std::string link_name(int id) const { return duplex_name(id) + (id % 2 == 0 ? "_UP" : "_DOWN"); }
  /// Name of the split-duplex link that direction `id` belongs to (SimGrid's link: no direction).
  std::string duplex_name(int id) const { return link_names_.str(id / 2); }
  /// Kind of that split-duplex link's name (NameTable::kind): its name with each run of digits as '#'.
  const std::string& duplex_kind(int id) const { return link_names_.kind(id / 2); }
  /// Id of the directed link named `name`, -1 when there is none (a walk over every link: for input checks).
  int find_link(std::string_view name) const;
  /// How much the graph holds, names' numbers included.
  struct Size {
    std::size_t vertices = 0, links = 0, vertex_numbers = 0, link_numbers = 0;
  };
  Size size() const;
  /// Room for what was added since the graph had size `before`, `repeats` times in all, and `extra` more (no
  /// reallocation, whose peak holds the old and the doubled array together, while they are added).
  void reserve_repeats(const Size& before, std::size_t repeats, const Size& extra);

 private:
  std::vector<VertexKind> kinds_;
  NameTable vertex_names_;
  NameTable link_names_;  ///< per split-duplex link k (directed ids 2k, 2k + 1)
  std::vector<DirectedLink> links_;

  /// Adds the two directions of link `name` (its index in link_names_) between a and b; returns the UP id.
  int connect(int name, int a, int b, const LinkSpec& spec);
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

/// Adds `count` network switches named `pattern` with i for its one '#' ("router#"); returns their vertex ids.
std::vector<int> add_switches(FabricGraph& graph, std::string_view pattern, int count);

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
