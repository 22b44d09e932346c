#include "sim/core/error.hpp"
#include "sim/platform/fabric_graph.hpp"

namespace dtsim::platform {
namespace {

/// two_level: every node's NIC on one top switch.
///
///   gpu0 .. gpuG-1     gpuG .. gpu2G-1        gpu<h>: GPU h <-> node<h/G>_switch (intra)
///       node0_switch       node1_switch  ...
///              \ nic0       / nic1            nic<n>: node switch <-> top_switch (inter)
///                top_switch
///
/// Route between nodes a and b: nic<a>_UP, nic<b>_DOWN.
class TwoLevelRouter final : public NicRouter {
 public:
  TwoLevelRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches)
      : NicRouter(spec, graph, node_switches, {graph.add_vertex(VertexKind::network_switch, "top_switch")},
                  fill_switches(static_cast<int>(node_switches.size()), static_cast<int>(node_switches.size()))) {}

 private:
  void switch_route(int, int, std::vector<int>&) const override { DTSIM_CHECK(false, "two_level has one switch"); }
};

}  // namespace

std::unique_ptr<NodeRouter> build_two_level(const PlatformSpec& spec, FabricGraph& graph,
                                            const std::vector<int>& node_switches) {
  return std::make_unique<TwoLevelRouter>(spec, graph, node_switches);
}

}  // namespace dtsim::platform
