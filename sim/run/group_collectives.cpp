#include "sim/run/group_collectives.hpp"

#include "models/gpu_profile.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/operations.hpp"
#include "sim/collectives/ring_halves.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"

namespace dtsim::run {

using taskgraph::Op;

GroupCollectives::GroupCollectives(const scenario::Scenario& s, const collectives::LinkCosts& links)
    : allreduce_(collectives::make_collective(s.collective, links, s.nccl)),
      allgather_(collectives::make_allgatherv(allreduce_->allgather_name())),
      reduce_scatter_(collectives::make_reduce_scatter(allreduce_->reduce_scatter_name())),
      gtopk_(collectives::make_collective("binomial_tree", links)),
      alltoall_(collectives::make_alltoall("nccl", links)), launch_set_s_(s.gpu.collective_launch_s) {}

std::vector<std::vector<actors::Flow>> GroupCollectives::flows(Op op, const collectives::Group& g, std::int64_t bytes,
                                                               bool fuse) const {
  if (op == Op::send) return {{{{0, 1, bytes}, 1, 0}}};
  if (op == Op::allreduce) {
    if (fuse)
      if (auto fused = allreduce_->fused_plan(g, bytes)) return actors::flow_steps(*fused);
    return actors::flow_steps(allreduce_->plan(g, bytes), fuse);
  }
  if (op == Op::gtopk) return actors::flow_steps(gtopk_->plan(g, bytes), fuse);
  if (op == Op::alltoall) return actors::flow_steps(alltoall_->plan(g, bytes), fuse);
  DTSIM_CHECK(op == Op::allgather || op == Op::reduce_scatter, "a collective of a group");
  if (const auto rings = allreduce_->phase_rings(g); !rings.empty()) {
    if (fuse) return actors::flow_steps(collectives::ring_phase_fused(rings, g.ranks, bytes));
    return actors::flow_steps(collectives::ring_phase_plan(rings, g.ranks, bytes), false);
  }
  const std::vector<std::int64_t> blocks = collectives::equal_blocks(g.ranks, bytes);
  if (fuse)
    if (auto fused = halves(op).fused_plan(g, blocks)) return actors::flow_steps(*fused);
  return actors::flow_steps(halves(op).plan(g, blocks), fuse);
}

double GroupCollectives::time_s(Op op, const collectives::Group& g, std::int64_t bytes,
                                const core::PathModel& paths) const {
  std::optional<double> time_s;
  if (op == Op::allreduce) {
    time_s = allreduce_->plan_time_s(g, bytes, paths);
    if (!time_s) time_s = collectives::schedule_time_s(allreduce_->plan(g, bytes), paths);
  } else if (op == Op::send) {
    time_s = collectives::schedule_time_s(collectives::Schedule{2, {{{{0, 1, bytes}}, 0}}}, paths);
  } else if (op == Op::gtopk) {
    time_s = collectives::schedule_time_s(gtopk_->plan(g, bytes), paths);
  } else if (op == Op::alltoall) {
    time_s = collectives::schedule_time_s(alltoall_->plan(g, bytes), paths);
  } else if (const auto rings = allreduce_->phase_rings(g); !rings.empty()) {
    time_s = collectives::ring_phase_time_s(rings, g.ranks, bytes, paths);
  } else {
    const std::vector<std::int64_t> blocks = collectives::equal_blocks(g.ranks, bytes);
    time_s = halves(op).plan_time_s(g, blocks, paths);
    if (!time_s) time_s = collectives::schedule_time_s(halves(op).plan(g, blocks), paths);
  }
  return *time_s;
}

double GroupCollectives::launch_s(Op op, int ranks) const {
  if (ranks < 2) return 0.0;
  if (launch_set_s_) return *launch_set_s_;
  return op == Op::allreduce && allreduce_->charges_launch() ? 0.0 : models::kCollectiveLaunch_s;
}

const collectives::BlockCollective& GroupCollectives::halves(Op op) const {
  return op == Op::allgather ? *allgather_ : *reduce_scatter_;
}

std::vector<std::vector<actors::Flow>> on_members(std::vector<std::vector<actors::Flow>> flows,
                                                  const std::vector<int>& members) {
  const auto host = [&](int rank) { return rank < 0 ? rank : members[static_cast<std::size_t>(rank)]; };
  for (auto& step : flows)
    for (actors::Flow& f : step) {
      f.transfer.from = host(f.transfer.from);
      f.transfer.to = host(f.transfer.to);
    }
  return flows;
}

}  // namespace dtsim::run
