#include "sim/collectives/grid_allreduce.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/collectives/ring_steps.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"

namespace dtsim::collectives {
namespace {

/// A ring phase of `steps` steps over `places` places moving the chunks of `bytes` cut `places` ways.
RingSteps chunks_of(std::int64_t bytes, int places, int steps, int offset) {
  const std::int64_t small = bytes / places;
  return {steps, small, small + 1, static_cast<int>(bytes % places), offset};
}

}  // namespace

NodeGrid::NodeGrid(const Group& group, std::string_view algorithm) {
  DTSIM_CHECK(group.ranks >= 1 && group.ranks_per_node >= 1, "a group needs ranks");
  x = group.nodes() == 1 ? group.ranks : group.ranks_per_node;
  y = group.nodes();
  if (x * y != group.ranks)
    throw core::InputError(std::string(algorithm) + " all-reduce over " + std::to_string(group.ranks) + " ranks at " +
                               std::to_string(group.ranks_per_node) + " per node: the last node is partial",
                           "a number of ranks that is a multiple of the ranks per node: " +
                               core::nearest_multiples(group.ranks, group.ranks_per_node));
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

std::optional<std::vector<FusedStep>> GridAllreduce::fused_plan(const Group& group, std::int64_t bytes) const {
  const NodeGrid grid(group, name_);
  DTSIM_CHECK(bytes >= 0, "grid all-reduce needs a non-negative size");
  const int x = grid.x, y = grid.y;
  const auto shard = [&](int j) { return chunk_bytes(bytes, x, j % x); };
  std::vector<FusedStep> fused;
  // Over a ring reduce-scatter a rank sends every block but its own (i), over a ring all-gather every block
  // but the one it receives last (i + 1).
  const auto rows = [&](int steps, auto sent) {
    FusedStep& step = fused.emplace_back();
    step.steps = steps;
    for (int node = 0; node < y; ++node)
      for (int i = 0; i < x; ++i) step.transfers.push_back({node * x + i, node * x + (i + 1) % x, sent(i)});
  };
  if (x > 1 && y == 1) {
    rows(2 * (x - 1), [&](int i) { return 2 * bytes - shard(i) - shard(i + 1); });
    return fused;
  }
  if (x > 1) rows(x - 1, [&](int i) { return bytes - shard(i); });
  if (y > 1) {
    FusedStep& step = fused.emplace_back();
    step.steps = 2 * (y - 1);
    for (int j = 0; j < x; ++j)
      for (int k = 0; k < y; ++k)
        step.transfers.push_back({k * x + j, (k + 1) % y * x + j,
                                  2 * shard(j) - chunk_bytes(shard(j), y, k) - chunk_bytes(shard(j), y, (k + 1) % y)});
  }
  if (x > 1) rows(x - 1, [&](int i) { return bytes - shard(i + 1); });
  return fused;
}

std::optional<double> GridAllreduce::plan_time_s(const Group& group, std::int64_t bytes,
                                                 const core::PathModel& network) const {
  const NodeGrid grid(group, name_);
  DTSIM_CHECK(bytes >= 0, "grid all-reduce needs a non-negative size");
  const int x = grid.x, y = grid.y;
  if (group.ranks == 1) return 0.0;
  std::vector<std::pair<int, int>> hops;
  for (int node = 0; node < y && x > 1; ++node)
    for (int i = 0; i < x; ++i) hops.emplace_back(node * x + i, node * x + (i + 1) % x);
  const std::vector<TransferCost> row = pair_costs(hops, network);
  hops.clear();
  for (int j = 0; j < x && y > 1; ++j)
    for (int k = 0; k < y; ++k) hops.emplace_back(k * x + j, (k + 1) % y * x + j);
  const std::vector<TransferCost> column = pair_costs(hops, network);
  // Block i - 1 - s leaves place i in reduce-scatter step s: the larger blocks start one place on (offset 1),
  // and the all-gather that follows (block i - s) goes on from there.
  if (y == 1) return ring_steps_time_s(row, chunks_of(bytes, x, 2 * (x - 1), 1));
  if (x == 1) return ring_steps_time_s(column, chunks_of(bytes, y, 2 * (y - 1), 1));
  const std::vector<TransferCost> node(row.begin(), row.begin() + x);
  for (std::size_t h = 0; h < row.size(); ++h)
    if (row[h].latency_s != node[h % node.size()].latency_s || row[h].share_Bps != node[h % node.size()].share_Bps)
      return std::nullopt;
  std::vector<double> scattered(static_cast<std::size_t>(x), 0.0);
  ring_steps_replay(node, chunks_of(bytes, x, x - 1, 1), scattered);
  double last = 0;
  std::vector<double> gathered;
  for (int j = 0; j < x; ++j) {
    const auto first = column.begin() + static_cast<std::ptrdiff_t>(j) * y;
    const double across = ring_steps_time_s({first, first + y}, chunks_of(chunk_bytes(bytes, x, j), y, 2 * (y - 1), 1));
    // The longest all-gather from place j alone (max-plus: every other place never ready).
    gathered.assign(static_cast<std::size_t>(x), -INFINITY);
    gathered[static_cast<std::size_t>(j)] = 0.0;
    ring_steps_replay(node, chunks_of(bytes, x, x - 1, 0), gathered);
    last = std::max(last, scattered[static_cast<std::size_t>(j)] + across +
                              *std::max_element(gathered.begin(), gathered.end()));
  }
  return last;
}

double GridAllreduce::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  const NodeGrid grid(group, name_);
  const double x = grid.x;
  const double y = grid.y;
  const AlphaBeta column{costs.inter.alpha_s, x * costs.inter.beta_s_per_byte};
  return 2.0 * (x - 1) * message_s(costs.intra, bytes / x) + 2.0 * (y - 1) * message_s(column, bytes / (x * y));
}

}  // namespace dtsim::collectives
