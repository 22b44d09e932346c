#include "sim/collectives/grid_allreduce.hpp"

#include <string>

#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {

NodeGrid::NodeGrid(const Group& group, std::string_view algorithm) {
  DTSIM_CHECK(group.ranks >= 1 && group.ranks_per_node >= 1, "a group needs ranks");
  x = group.nodes() == 1 ? group.ranks : group.ranks_per_node;
  y = group.nodes();
  if (x * y != group.ranks)
    throw core::InputError(std::string(algorithm) + " all-reduce over " + std::to_string(group.ranks) + " ranks at " +
                               std::to_string(group.ranks_per_node) + " per node: the last node is partial",
                           "a number of ranks that is a multiple of the ranks per node");
}

MovePlan GridAllreduce::moves(const Group& group, std::int64_t bytes) const {
  const NodeGrid grid(group, name_);
  DTSIM_CHECK(bytes >= 0, "grid all-reduce needs a non-negative size");
  const std::vector<Block> shards = split({0, bytes}, grid.x);
  PlanBuilder b(grid.x * grid.y);
  std::vector<int> members;
  const auto row = [&](int node) {
    members.clear();
    for (int j = 0; j < grid.x; ++j) members.push_back(node * grid.x + j);
    return members;
  };
  for (int node = 0; node < grid.y; ++node) ring_reduce_scatter(b, 0, row(node), shards);
  const auto columns_start = static_cast<std::size_t>(grid.x - 1);
  std::size_t gather_start = columns_start;
  for (int j = 0; j < grid.x; ++j) {
    members.clear();
    for (int node = 0; node < grid.y; ++node) members.push_back(node * grid.x + j);
    const std::vector<Block> pieces = split(shards[static_cast<std::size_t>(j)], grid.y);
    gather_start = ring_all_gather(b, ring_reduce_scatter(b, columns_start, members, pieces), members, pieces);
  }
  for (int node = 0; node < grid.y; ++node) ring_all_gather(b, gather_start, row(node), shards);
  return std::move(b).finish();
}

double GridAllreduce::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  const NodeGrid grid(group, name_);
  const double x = grid.x;
  const double y = grid.y;
  const AlphaBeta column{costs.inter.alpha_s, x * costs.inter.beta_s_per_byte};
  return 2.0 * (x - 1) * message_s(costs.intra, bytes / x) + 2.0 * (y - 1) * message_s(column, bytes / (x * y));
}

}  // namespace dtsim::collectives
