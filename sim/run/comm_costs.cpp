#include "sim/run/comm_costs.hpp"

#include <algorithm>

#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/link_traffic.hpp"

namespace dtsim::run {
namespace {

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
      collectives_(s, group_costs(s.platform)) {}

double CommCosts::operator()(int role, const Task& t) {
  if (t.op == Op::compute) return t.duration_s;
  return entry(role, t).time_s;
}

std::vector<std::vector<actors::Flow>> CommCosts::group_flows(int role, const Task& t, bool fuse) const {
  return collectives_.flows(t.op, group_of(members(role, t)), t.bytes, fuse);
}

double CommCosts::launch_s(int role, const Task& t) const {
  return collectives_.launch_s(t.op, static_cast<int>(members(role, t).size()));
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
    const std::vector<std::vector<actors::Flow>> flows = group_flows(role, probe, true);
    for (int rank = 0; rank < s_.workers; ++rank) {
      if (placement_.stage(rank) != role) continue;
      std::vector<int> members;
      if (op == Op::send) members = {rank, placement_.stage_rank(rank, peer)};
      else if (placement_.leads(rank, group)) members = placement_.members(rank, group);
      else continue;
      platform::add_link_bytes(actors::as_schedule(on_members(flows, members), s_.workers), count, fabric_, link_bytes);
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

const CommCosts::Entry& CommCosts::entry(int role, const Task& t) {
  const Key k = key(role, t);
  if (auto at = cache_.find(k); at != cache_.end()) return at->second;
  Entry e;
  const std::vector<int> m = members(role, t);
  if (m.size() > 1) {
    const GroupPaths paths(fabric_, m);
    e.time_s = collectives_.time_s(t.op, group_of(m), t.bytes, paths) + launch_s(role, t);
    const collectives::Schedule fused = group_plan(role, t);
    const int self = static_cast<int>(std::find(m.begin(), m.end(), placement_.representative(role)) - m.begin());
    e.traffic = collectives::traffic_by_rank(fused)[static_cast<std::size_t>(self)];
  }
  return cache_.emplace(k, e).first->second;
}

}  // namespace dtsim::run
