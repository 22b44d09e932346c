#include "sim/platform/fabric_graph.hpp"

namespace dtsim::platform {
namespace {

/// full_mesh: one router per node, a direct link between every pair of routers.
///
///   router0 ----- router1        router<i> has node i's NIC nic<i>
///      |  \     /   |            links "router<a>-router<b>" (a < b), UP from a to b
///      |    \ /     |
///      |    / \     |            Route: the direct link (one network hop).
///   router2 ----- router3
class FullMeshRouter final : public NicRouter {
 public:
  FullMeshRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches,
                 const std::vector<int>& routers)
      : NicRouter(spec, graph, node_switches, routers, fill_switches(static_cast<int>(routers.size()), 1)),
        mesh_(graph, routers, spec.network) {}

 private:
  void switch_route(int s, int t, std::vector<int>& links) const override { links.push_back(mesh_.directed(s, t)); }

  MeshLinks mesh_;
};

}  // namespace

std::unique_ptr<NodeRouter> build_full_mesh(const PlatformSpec& spec, FabricGraph& graph,
                                            const std::vector<int>& node_switches) {
  const std::vector<int> routers = add_switches(graph, "router#", static_cast<int>(node_switches.size()));
  return std::make_unique<FullMeshRouter>(spec, graph, node_switches, routers);
}

}  // namespace dtsim::platform
