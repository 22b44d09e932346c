#include "sim/core/error.hpp"
#include "sim/platform/fabric_graph.hpp"

namespace dtsim::platform {
namespace {

/// torus (k-ary n-cube) with one router per node; a ring is the torus of one dimension. 2-D example, dims [3, 2]:
///
///   +------------------------------+
///   |                              |     dimension 0 (size 3) wraps round: router2 - router0
///   router0 --- router1 --- router2      router<i>: i = x0 + d0 * (x1 + d1 * x2 ...), with node i's NIC
///      |           |           |         dimension 1 (size 2): one link per pair, not two
///   router3 --- router4 --- router5
///   |                              |
///   +------------------------------+
///
/// Routing: dimension order (dimension 0 first), the shorter way round each ring; at exactly half-way, the
/// positive direction. Links "router<a>-router<b>" with UP in the positive direction (from a to its +1
/// neighbour, or from x = 0 to x = 1 in a dimension of size 2).
class TorusRouter final : public NicRouter {
 public:
  TorusRouter(const PlatformSpec& spec, const std::vector<int>& dims, FabricGraph& graph,
              const std::vector<int>& node_switches)
      : NicRouter(spec, graph, node_switches, add_switches(graph, "router#", static_cast<int>(node_switches.size())),
                  fill_switches(static_cast<int>(node_switches.size()), 1)),
        dims_(dims) {
    const int routers = static_cast<int>(node_switches.size());
    const std::size_t n = dims_.size();
    plus_.assign(static_cast<std::size_t>(routers) * n, -1);
    minus_.assign(static_cast<std::size_t>(routers) * n, -1);
    const int name = graph.link_pattern("router#-router#");
    for (int r = 0; r < routers; ++r)
      for (std::size_t i = 0; i < n; ++i) {
        const int d = dims_[i];
        const int x = coordinate(r, i);
        if (d < 2 || (d == 2 && x == 1)) continue;
        const int next = neighbour(r, i, 1);
        const int up = graph.add_link(name, {r, next}, switch_vertex(r),
                                      switch_vertex(next), spec.network);
        plus_[slot(r, i)] = up;
        minus_[slot(next, i)] = FabricGraph::direction(up, false);
        if (d == 2) {
          plus_[slot(next, i)] = FabricGraph::direction(up, false);
          minus_[slot(r, i)] = up;
        }
      }
  }

 private:
  std::size_t slot(int r, std::size_t i) const { return static_cast<std::size_t>(r) * dims_.size() + i; }
  int stride(std::size_t i) const {
    int s = 1;
    for (std::size_t k = 0; k < i; ++k) s *= dims_[k];
    return s;
  }
  int coordinate(int r, std::size_t i) const { return r / stride(i) % dims_[i]; }
  /// The router `step` (+1 or -1) along dimension i from r, wrapping around.
  int neighbour(int r, std::size_t i, int step) const {
    const int d = dims_[i];
    const int x = coordinate(r, i);
    return r + ((x + step + d) % d - x) * stride(i);
  }

  void switch_route(int s, int t, std::vector<int>& links) const override {
    int at = s;
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      const int d = dims_[i];
      const int ahead = ((coordinate(t, i) - coordinate(at, i)) % d + d) % d;
      if (ahead == 0) continue;
      const bool forward = ahead <= d - ahead;
      for (int hop = 0; hop < (forward ? ahead : d - ahead); ++hop) {
        links.push_back(forward ? plus_[slot(at, i)] : minus_[slot(at, i)]);
        at = neighbour(at, i, forward ? 1 : -1);
      }
    }
    DTSIM_CHECK(at == t, "dimension-order route missed its target");
  }

  std::vector<int> dims_;
  std::vector<int> plus_;   ///< directed link leaving router r in the + direction of dimension i
  std::vector<int> minus_;  ///< directed link leaving router r in the - direction of dimension i
};

}  // namespace

std::unique_ptr<NodeRouter> build_torus(const PlatformSpec& spec, const std::vector<int>& dims, FabricGraph& graph,
                                        const std::vector<int>& node_switches) {
  DTSIM_CHECK(torus_nodes(dims) == static_cast<long long>(node_switches.size()), "torus dims do not match the nodes");
  return std::make_unique<TorusRouter>(spec, dims, graph, node_switches);
}

}  // namespace dtsim::platform
