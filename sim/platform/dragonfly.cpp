#include <algorithm>

#include "sim/platform/fabric_graph.hpp"

namespace dtsim::platform {
namespace {

/// dragonfly (Kim et al., ISCA'08), with the group / chassis / router hierarchy of Cray Cascade and SimGrid's
/// DragonflyZone: groups of `chassis` chassis of `routers` routers, `nodes_per_router` nodes per router.
///
///   group 0                               group 1
///   chassis 0: r0_0_0 = r0_0_1            chassis 0: r1_0_0 = r1_0_1       "=" chassis links: all router
///                 |        |                            |        |             pairs of a chassis
///   chassis 1: r0_1_0 = r0_1_1            chassis 1: r1_1_0 = r1_1_1       "|" group links: routers of one
///                  \___________ global link ___________/                       position across the chassis
///
/// Router (g, c, r) is "router<g>_<c>_<r>"; nodes fill routers in that order. One global link joins each
/// pair of groups: in group g, the link to group h sits on the router whose index c * routers + r is
/// (h < g ? h : h - 1) modulo the routers of a group, so any number of groups is valid (dtsim routes the
/// dragonfly itself; SimGrid 3.32's DragonflyZone, which crashes unless groups <= routers, is not used).
///
/// Minimal routing: within a group, first the chassis link to the target's router position, then the group
/// link to the target chassis; between groups, to the router holding the global link, across it, then to
/// the target as within a group. At most 5 network hops.
class DragonflyRouter final : public NicRouter {
 public:
  DragonflyRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches,
                  const std::vector<int>& routers)
      : NicRouter(spec, graph, node_switches, routers,
                  fill_switches(static_cast<int>(node_switches.size()), spec.dragonfly.nodes_per_router)),
        shape_(spec.dragonfly) {
    const int per_group = shape_.chassis * shape_.routers;
    for (int g = 0; g < shape_.groups; ++g)
      for (int c = 0; c < shape_.chassis; ++c) {
        std::vector<int> chassis;
        for (int r = 0; r < shape_.routers; ++r) chassis.push_back(routers[static_cast<std::size_t>(index(g, c, r))]);
        chassis_.emplace_back(graph, chassis, spec.network);
      }
    for (int g = 0; g < shape_.groups; ++g)
      for (int r = 0; r < shape_.routers; ++r) {
        std::vector<int> column;
        for (int c = 0; c < shape_.chassis; ++c) column.push_back(routers[static_cast<std::size_t>(index(g, c, r))]);
        columns_.emplace_back(graph, column, spec.network);
      }
    for (int g = 0; g < shape_.groups; ++g)
      for (int h = g + 1; h < shape_.groups; ++h) {
        const int a = routers[static_cast<std::size_t>(g * per_group + gateway(g, h))];
        const int b = routers[static_cast<std::size_t>(h * per_group + gateway(h, g))];
        global_.push_back(graph.add_link_between(a, "-", b, spec.network));
      }
  }

 private:
  int index(int g, int c, int r) const { return (g * shape_.chassis + c) * shape_.routers + r; }
  /// Index inside group g of the router that holds the global link to group h.
  int gateway(int g, int h) const { return (h < g ? h : h - 1) % (shape_.chassis * shape_.routers); }

  void within_group(int g, int from, int to, std::vector<int>& links) const {
    const int c_from = from / shape_.routers;
    const int r_from = from % shape_.routers;
    const int c_to = to / shape_.routers;
    const int r_to = to % shape_.routers;
    if (r_from != r_to)
      links.push_back(chassis_[static_cast<std::size_t>(g * shape_.chassis + c_from)].directed(r_from, r_to));
    if (c_from != c_to)
      links.push_back(columns_[static_cast<std::size_t>(g * shape_.routers + r_to)].directed(c_from, c_to));
  }

  void switch_route(int s, int t, std::vector<int>& links) const override {
    const int per_group = shape_.chassis * shape_.routers;
    const int gs = s / per_group;
    const int gt = t / per_group;
    if (gs == gt) return within_group(gs, s % per_group, t % per_group, links);
    within_group(gs, s % per_group, gateway(gs, gt), links);
    const int lo = std::min(gs, gt);
    const int hi = std::max(gs, gt);
    const int pair = lo * shape_.groups - lo * (lo + 1) / 2 + (hi - lo - 1);
    links.push_back(FabricGraph::direction(global_[static_cast<std::size_t>(pair)], gs < gt));
    within_group(gt, gateway(gt, gs), t % per_group, links);
  }

  DragonflyShape shape_;
  std::vector<MeshLinks> chassis_;  ///< per (group, chassis): links between its routers
  std::vector<MeshLinks> columns_;  ///< per (group, router position): links between its chassis
  std::vector<int> global_;         ///< UP ids of the global links, pairs (0,1), (0,2), ..., (1,2), ...
};

}  // namespace

std::unique_ptr<NodeRouter> build_dragonfly(const PlatformSpec& spec, FabricGraph& graph,
                                            const std::vector<int>& node_switches) {
  const DragonflyShape& d = spec.dragonfly;
  std::vector<int> routers;
  for (int g = 0; g < d.groups; ++g)
    for (int c = 0; c < d.chassis; ++c)
      for (int r = 0; r < d.routers; ++r)
        routers.push_back(graph.add_vertex(VertexKind::network_switch, "router#_#_#", {g, c, r}));
  return std::make_unique<DragonflyRouter>(spec, graph, node_switches, routers);
}

}  // namespace dtsim::platform
