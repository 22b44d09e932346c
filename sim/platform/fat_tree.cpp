#include <string>

#include "sim/core/error.hpp"
#include "sim/platform/fabric_graph.hpp"

namespace dtsim::platform {
namespace {

/// fat_tree: a parallel-ports generalized fat tree PGFT(h; m; w; p) (Zahavi, "D-Mod-K Routing Providing
/// Non-Blocking Traffic for Shift Permutations on Real Life Fat Trees", 2010), which is what SimGrid's
/// FatTreeParams{levels, down, up, count} describes. Nodes are level 0; a level-l switch has m_l = down[l-1]
/// children; a level-(l-1) element has w_l = up[l-1] parents and p_l = parallel[l-1] links to each. Nodes have
/// one NIC (w_1 = p_1 = 1), so the level-1 links are the NICs "nic<n>". Example down [4, 2], up [1, 2]
/// (leaves 4 down, 2 up: 2:1 oversubscribed when every link has one bandwidth):
///
///            sw2_0       sw2_1          level 2 (spines): w_1 * w_2 = 2 switches
///              |  \       /  |
///              |    \   /    |          each leaf has one link to each spine
///              |      X      |
///              |    /   \    |
///            sw1_0       sw1_1          level 1 (leaves), 4 nodes each
///           /|  |\       /|  |\         nic<n>: node<n>_switch <-> its leaf
///       node0 .. node3  node4 .. node7
///
/// Element labels: a level-l element is (A, B) with A = the subtree below it (node / (m_1 ... m_l)) and
/// B = its parent choices b_1 .. b_l (b_1 least significant); index B + (w_1 ... w_l) * A, vertex "sw<l>_<index>".
/// Links above level 1 are "sw<l-1>_<i>-sw<l>_<j>" (suffix "_p<k>" for parallel link k), UP towards the root.
///
/// D-mod-k routing to node d: go up to the lowest level whose subtree holds d, taking at level l the up port
/// q = floor(d / prod_{k<l} w_k p_k) mod (w_l p_l) (parent b_l = q mod w_l, parallel link q / w_l), then down the
/// unique way to d, taking the same parallel link index at each level. Routes depend on the destination only.
class FatTreeRouter final : public NodeRouter {
 public:
  FatTreeRouter(const PlatformSpec& spec, FabricGraph& graph, const std::vector<int>& node_switches)
      : m_(spec.fat_tree.down), w_(spec.fat_tree.up), p_(spec.fat_tree.parallel) {
    const std::size_t levels = m_.size();
    DTSIM_CHECK(levels >= 1 && w_.size() == levels && p_.size() == levels && w_[0] == 1 && p_[0] == 1,
                "invalid fat-tree shape");
    const long long nodes = static_cast<long long>(node_switches.size());
    subtree_.assign(levels + 1, 1);
    width_.assign(levels + 1, 1);
    ports_.assign(levels + 1, 1);
    for (std::size_t l = 1; l <= levels; ++l) {
      subtree_[l] = subtree_[l - 1] * m_[l - 1];
      width_[l] = width_[l - 1] * w_[l - 1];
      ports_[l] = ports_[l - 1] * w_[l - 1] * p_[l - 1];
    }
    DTSIM_CHECK(subtree_[levels] == nodes, "fat-tree shape does not match the nodes");
    std::vector<int> below = node_switches;
    link_base_.push_back(0);
    for (std::size_t l = 1; l <= levels; ++l) {
      const std::vector<int> above = add_switches(graph, "sw" + std::to_string(l) + "_#", static_cast<int>(count(l)));
      link_base_.push_back(static_cast<int>(graph.links().size()));
      // "nic<node>" into the first level, "sw<l-1>_<child>-sw<l>_<parent>[_p<k>]" above.
      const int name = graph.link_pattern(l == 1 ? "nic#"
                                                 : "sw" + std::to_string(l - 1) + "_#-sw" + std::to_string(l) + "_#" +
                                                       (p_[l - 1] > 1 ? "_p#" : ""));
      for (long long child = 0; child < count(l - 1); ++child)
        for (int b = 0; b < w_[l - 1]; ++b)
          for (int k = 0; k < p_[l - 1]; ++k) {
            const long long parent = parent_of(l, child, b);
            const int from = below[static_cast<std::size_t>(child)];
            const int to = above[static_cast<std::size_t>(parent)];
            const int c = static_cast<int>(child), up = static_cast<int>(parent);
            if (l == 1)
              graph.add_link(name, {c}, from, to, spec.inter);
            else if (p_[l - 1] > 1)
              graph.add_link(name, {c, up, k}, from, to, spec.network);
            else
              graph.add_link(name, {c, up}, from, to, spec.network);
          }
      below = above;
    }
  }

  void route(int a, int b, std::vector<int>& links) const override {
    std::size_t top = 1;
    while (a / subtree_[top] != b / subtree_[top]) ++top;
    long long at = a;  // index of the current element at level l - 1
    for (std::size_t l = 1; l <= top; ++l) {
      const long long q = port(l, b);
      const int parent_choice = static_cast<int>(q % w_[l - 1]);
      links.push_back(link(l, at, parent_choice, static_cast<int>(q / w_[l - 1])));
      at = parent_of(l, at, parent_choice);
    }
    for (std::size_t l = top; l >= 1; --l) {
      const long long choices = at % width_[l];
      const long long child = choices % width_[l - 1] + width_[l - 1] * (b / subtree_[l - 1]);
      const long long q = port(l, b);
      links.push_back(FabricGraph::direction(
          link(l, child, static_cast<int>(choices / width_[l - 1]), static_cast<int>(q / w_[l - 1])), false));
      at = child;
    }
  }

 private:
  /// Elements at level l: (w_1 ... w_l) * nodes / (m_1 ... m_l).
  long long count(std::size_t l) const { return width_[l] * (subtree_.back() / subtree_[l]); }
  /// Index at level l of parent `choice` of element `child` of level l - 1.
  long long parent_of(std::size_t l, long long child, int choice) const {
    const long long choices = child % width_[l - 1];
    const long long subtree = child / width_[l - 1];
    return choices + width_[l - 1] * choice + width_[l] * (subtree / m_[l - 1]);
  }
  /// D-mod-k up port at level l towards node d.
  long long port(std::size_t l, long long d) const { return d / ports_[l - 1] % (w_[l - 1] * p_[l - 1]); }
  /// UP id of parallel link k between element `child` of level l - 1 and its parent `choice`.
  int link(std::size_t l, long long child, int choice, int k) const {
    return link_base_[l] + 2 * static_cast<int>((child * w_[l - 1] + choice) * p_[l - 1] + k);
  }

  std::vector<int> m_, w_, p_;
  std::vector<long long> subtree_;  ///< nodes below a level-l switch: m_1 ... m_l
  std::vector<long long> width_;    ///< parent choices of a level-l element: w_1 ... w_l
  std::vector<long long> ports_;    ///< up ports below level l: prod w_k p_k, k <= l
  std::vector<int> link_base_;      ///< UP id of the first link between levels l - 1 and l
};

}  // namespace

std::unique_ptr<NodeRouter> build_fat_tree(const PlatformSpec& spec, FabricGraph& graph,
                                           const std::vector<int>& node_switches) {
  return std::make_unique<FatTreeRouter>(spec, graph, node_switches);
}

}  // namespace dtsim::platform
