#include "sim/run/comm_costs.hpp"

#include <algorithm>

#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/operations.hpp"
#include "sim/collectives/ring_halves.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/link_traffic.hpp"

namespace dtsim::run {
namespace {

/// The fabric seen from a group: group rank i is platform host members[i].
class GroupPaths final : public core::PathModel {
 public:
  GroupPaths(const platform::Fabric& fabric, const std::vector<int>& members) : fabric_(fabric), members_(members) {}
  core::Path path(int from, int to) const override {
    return fabric_.path(members_[static_cast<std::size_t>(from)], members_[static_cast<std::size_t>(to)]);
  }
  double link_bandwidth_Bps(int link) const override { return fabric_.link_bandwidth_Bps(link); }
  int link_count() const override { return fabric_.link_count(); }

 private:
  const platform::Fabric& fabric_;
  const std::vector<int>& members_;
};

/// The link costs the layout's groups are tuned for: the platform's, without its reducing switch (a group may sit
/// on any node, and the plans' switch endpoint is the one switch joining all GPUs; the scenario refuses
/// in_network and forced CollNet / NVLS with [parallel] groups).
collectives::LinkCosts group_costs(const platform::PlatformSpec& platform) {
  collectives::LinkCosts costs = platform::link_costs(platform);
  costs.to_switch.reset();
  return costs;
}

}  // namespace

using taskgraph::Op;
using taskgraph::Task;

CommCosts::CommCosts(const scenario::Scenario& s, const platform::Fabric& fabric, const parallel::Placement& placement)
    : s_(s), fabric_(fabric), placement_(placement),
      links_(group_costs(s.platform)), allreduce_(collectives::make_collective(s.collective, links_, s.nccl)),
      allgather_(collectives::make_allgatherv(allreduce_->allgather_name())),
      reduce_scatter_(collectives::make_reduce_scatter(allreduce_->reduce_scatter_name())),
      gtopk_(collectives::make_collective("binomial_tree", links_)), alltoall_(collectives::make_alltoall("nccl", links_)) {
  launch_s_ = s.gpu.collective_launch_s ? *s.gpu.collective_launch_s : models::kCollectiveLaunch_s;
}

double CommCosts::operator()(int role, const Task& t) {
  if (t.op == Op::compute) return t.duration_s;
  return entry(role, t).time_s;
}

std::vector<std::vector<actors::Flow>> CommCosts::group_flows(int role, const Task& t, bool fuse) const {
  const collectives::Group g = group_of(members(role, t));
  if (t.op == Op::send) return {{{{0, 1, t.bytes}, 1, 0}}};
  if (t.op == Op::allreduce) {
    if (fuse)
      if (auto fused = allreduce_->fused_plan(g, t.bytes)) return actors::flow_steps(*fused);
    return actors::flow_steps(allreduce_->plan(g, t.bytes), fuse);
  }
  if (t.op == Op::gtopk) return actors::flow_steps(gtopk_->plan(g, t.bytes), fuse);
  if (t.op == Op::alltoall) return actors::flow_steps(alltoall_->plan(g, t.bytes), fuse);
  if (const auto rings = allreduce_->phase_rings(g); !rings.empty()) {
    if (fuse) return actors::flow_steps(collectives::ring_phase_fused(rings, g.ranks, t.bytes));
    return actors::flow_steps(collectives::ring_phase_plan(rings, g.ranks, t.bytes), false);
  }
  const std::vector<std::int64_t> blocks = collectives::equal_blocks(g.ranks, t.bytes);
  if (fuse)
    if (auto fused = halves(t.op).fused_plan(g, blocks)) return actors::flow_steps(*fused);
  return actors::flow_steps(halves(t.op).plan(g, blocks), fuse);
}

double CommCosts::launch_s(int role, const Task& t) const {
  if (members(role, t).size() < 2) return 0.0;
  return t.op == Op::allreduce && allreduce_->charges_launch() ? 0.0 : launch_s_;
}

CommCosts::Key CommCosts::key(int role, const Task& t) const {
  return {role, t.op, t.op == Op::send ? std::string() : t.group, t.bytes, t.op == Op::send ? t.peer : -1};
}

void CommCosts::add_links(const taskgraph::TaskGraph& graph, std::vector<double>& link_bytes) {
  std::map<Key, int> uses;
  for (std::size_t r = 0; r < graph.programs.size(); ++r)
    for (const Task& t : graph.programs[r].tasks)
      if (t.op != Op::compute && t.op != Op::recv) ++uses[key(static_cast<int>(r), t)];
  for (const auto& [k, count] : uses) {
    const auto& [role, op, group, bytes, peer] = k;
    const Task probe{op, taskgraph::Stream::compute, "", "", 0, bytes, group, peer, -1, {}};
    const collectives::Schedule plan = group_plan(role, probe);
    for (int rank = 0; rank < s_.workers; ++rank) {
      if (placement_.stage(rank) != role) continue;
      std::vector<int> members;
      if (op == Op::send) members = {rank, placement_.stage_rank(rank, peer)};
      else if (placement_.leads(rank, group)) members = placement_.members(rank, group);
      else continue;
      collectives::Schedule mapped{s_.workers, {}};
      for (const collectives::Step& step : plan.steps) {
        collectives::Step& m = mapped.steps.emplace_back();
        for (const collectives::Transfer& x : step.transfers)
          m.transfers.push_back({members[static_cast<std::size_t>(x.from)], members[static_cast<std::size_t>(x.to)], x.bytes});
      }
      platform::add_link_bytes(mapped, count, fabric_, link_bytes);
    }
  }
}

std::vector<int> CommCosts::members(int role, const Task& t) const {
  const int rank = placement_.representative(role);
  if (t.op == Op::send) return {rank, placement_.stage_rank(rank, t.peer)};
  return placement_.members(rank, t.group);
}

collectives::Group CommCosts::group_of(const std::vector<int>& m) const {
  return {static_cast<int>(m.size()), parallel::ranks_per_node(m, s_.platform.gpus_per_node)};
}

collectives::Schedule CommCosts::group_plan(int role, const Task& t) const {
  return actors::as_schedule(group_flows(role, t, true), static_cast<int>(members(role, t).size()));
}

const collectives::BlockCollective& CommCosts::halves(Op op) const {
  return op == Op::allgather ? *allgather_ : *reduce_scatter_;
}

const CommCosts::Entry& CommCosts::entry(int role, const Task& t) {
  const Key k = key(role, t);
  if (auto at = cache_.find(k); at != cache_.end()) return at->second;
  Entry e;
  const std::vector<int> m = members(role, t);
  if (m.size() > 1) {
    const GroupPaths paths(fabric_, m);
    const collectives::Group g = group_of(m);
    std::optional<double> time_s;
    if (t.op == Op::allreduce) {
      time_s = allreduce_->plan_time_s(g, t.bytes, paths);
      if (!time_s) time_s = collectives::schedule_time_s(allreduce_->plan(g, t.bytes), paths);
    } else if (t.op == Op::send) {
      time_s = collectives::schedule_time_s(collectives::Schedule{2, {{{{0, 1, t.bytes}}, 0}}}, paths);
    } else if (t.op == Op::gtopk) {
      time_s = collectives::schedule_time_s(gtopk_->plan(g, t.bytes), paths);
    } else if (t.op == Op::alltoall) {
      time_s = collectives::schedule_time_s(alltoall_->plan(g, t.bytes), paths);
    } else if (const auto rings = allreduce_->phase_rings(g); !rings.empty()) {
      time_s = collectives::ring_phase_time_s(rings, g.ranks, t.bytes, paths);
    } else {
      const std::vector<std::int64_t> blocks = collectives::equal_blocks(g.ranks, t.bytes);
      time_s = halves(t.op).plan_time_s(g, blocks, paths);
      if (!time_s) time_s = collectives::schedule_time_s(halves(t.op).plan(g, blocks), paths);
    }
    e.time_s = *time_s + launch_s(role, t);
    const collectives::Schedule fused = group_plan(role, t);
    const int self = static_cast<int>(std::find(m.begin(), m.end(), placement_.representative(role)) - m.begin());
    e.traffic = collectives::traffic_by_rank(fused)[static_cast<std::size_t>(self)];
  }
  return cache_.emplace(k, e).first->second;
}

}  // namespace dtsim::run
