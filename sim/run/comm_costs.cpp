#include "sim/run/comm_costs.hpp"

#include <algorithm>
#include <span>

#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/run/pair_bytes.hpp"
#include "sim/run/run_simulation.hpp"

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

using taskgraph::Op;
using taskgraph::Task;

/// Whether `op` meets at servers or neighbours (its cost is its bucket's in the stage's exchange).
bool meets_elsewhere(Op op) { return op == Op::push || op == Op::pull || op == Op::neighbours; }

}  // namespace

CommCosts::CommCosts(const scenario::Scenario& s, const platform::Fabric& fabric, const parallel::Placement& placement,
                     const std::vector<parallel::StagePlan>* stages)
    : s_(s), fabric_(fabric), placement_(placement),
      collectives_(s, group_costs(s.platform)), stages_(stages) {}

double CommCosts::operator()(int role, const Task& t) {
  if (t.op == Op::compute) return t.duration_s;
  return entry(role, t).time_s;
}

std::shared_ptr<const actors::ServerExchange> CommCosts::server_exchange(int role) {
  std::shared_ptr<const actors::ServerExchange>& at = servers_[role];
  if (at) return at;
  DTSIM_CHECK(stages_ != nullptr, "a layout's pushes are planned with its stages' plans");
  const scheduling::IterationPlan& plan = (*stages_)[static_cast<std::size_t>(role)].exchanges;
  std::optional<actors::ServerExchange> exchange = architecture_named(s_.architecture)
                                                       .layout_servers(s_, plan, bucket_work(plan),
                                                                       stage_data_groups(s_, placement_, role));
  DTSIM_CHECK(exchange.has_value(), "architecture " + s_.architecture + " places a layout's servers");
  at = std::make_shared<const actors::ServerExchange>(std::move(*exchange));
  return at;
}

std::vector<std::vector<actors::Flow>> CommCosts::group_flows(int role, const Task& t, bool fuse) const {
  DTSIM_CHECK(!at_servers(t), "pushes and pulls run at the servers (server_exchange), not as a plan among the group");
  if (meets_elsewhere(t.op)) {
    DTSIM_CHECK(stages_ != nullptr, "a layout's pushes and neighbour exchanges are planned with its stages' plans");
    const std::vector<scheduling::BucketWork> work = bucket_work((*stages_)[static_cast<std::size_t>(role)].exchanges);
    auto flows = architecture_named(s_.architecture)
                     .layout_flows(s_, work[static_cast<std::size_t>(t.item)], static_cast<int>(members(role, t).size()), fuse);
    DTSIM_CHECK(flows.has_value(), "architecture " + s_.architecture + " plans its exchange among a layout's group");
    return *flows;
  }
  return collectives_.flows(t.op, group_of(members(role, t)), t.bytes, fuse);
}

double CommCosts::launch_s(int role, const Task& t) const {
  if (t.op == Op::pull) return 0;
  // An exchange at servers or neighbours waits what plain data parallelism's does: an all-reduce's launch.
  return collectives_.launch_s(meets_elsewhere(t.op) ? Op::allreduce : t.op, static_cast<int>(members(role, t).size()));
}

CommCosts::Key CommCosts::key(int role, const Task& t) const {
  return {role, t.op, t.op == Op::send ? std::string() : t.group, t.bytes,
          t.op == Op::send ? t.peer : meets_elsewhere(t.op) ? t.item : -1};
}

const StageExchange& CommCosts::stage_exchange_of(int role) {
  if (auto at = exchanges_.find(role); at != exchanges_.end()) return at->second;
  DTSIM_CHECK(stages_ != nullptr, "a layout's pushes and neighbour exchanges are costed with its stages' plans");
  return exchanges_.emplace(role, stage_exchange(s_, placement_, fabric_, role,
                                                 (*stages_)[static_cast<std::size_t>(role)].exchanges)).first->second;
}

void CommCosts::add_links(const taskgraph::TaskGraph& graph, std::vector<double>& link_bytes) {
  std::map<Key, int> uses;
  for (std::size_t r = 0; r < graph.programs.size(); ++r)
    for (const Task& t : graph.programs[r].tasks)
      if (t.op != Op::compute && t.op != Op::recv) ++uses[key(static_cast<int>(r), t)];
  // Every communication on one kind of group (a role's group, or its pipeline peer) is summed per pair of group
  // ranks first (PairBytes); each instance of the group (the instances the timing shares links with) then walks its
  // pairs' paths once, not once per distinct message size. Every load is of whole bytes (transfers' and the stage
  // exchanges' whole bytes, whole times), so the sums are exact in any order.
  std::map<GroupKind, PairBytes> on_group;
  for (const auto& [k, count] : uses) {
    const auto& [role, op, group, bytes, peer] = k;
    if (meets_elsewhere(op)) {  // the stage's whole iteration, once per exchanging iteration (its first bucket's push)
      if (op == Op::pull || peer != 0) continue;
      const std::vector<double>& stage = stage_exchange_of(role).link_bytes;
      for (std::size_t l = 0; l < link_bytes.size(); ++l) link_bytes[l] += count * stage[l];
      continue;
    }
    const Task probe{op, taskgraph::Stream::compute, "", "", 0, bytes, group, peer, -1, {}};
    const std::vector<std::vector<actors::Flow>> flows = group_flows(role, probe, true);
    on_group[kind_of(role, probe)].add(actors::as_schedule(flows, s_.workers), count);
  }
  for (auto& [kind, pairs] : on_group) {
    const ConcurrentInstances& instances = instances_of(kind);
    for (std::size_t k = 0; k < instances.size(); ++k) pairs.add_to_links(fabric_, link_bytes, instances.hosts(k));
  }
}

CommCosts::GroupKind CommCosts::kind_of(int role, const Task& t) {
  const bool send = t.op == Op::send;
  return {role, send ? std::string() : t.group, send ? t.peer : -1};
}

std::vector<int> CommCosts::members(int role, const Task& t) const { return members(kind_of(role, t)); }

std::vector<int> CommCosts::members(const GroupKind& kind) const {
  const auto& [role, group, peer] = kind;
  const int rank = placement_.representative(role);
  if (peer >= 0) return {rank, placement_.stage_rank(rank, peer)};
  return placement_.members(rank, group);
}

collectives::Group CommCosts::group_of(const std::vector<int>& m) const {
  return {static_cast<int>(m.size()), parallel::ranks_per_node(m, s_.platform.gpus_per_node)};
}

ConcurrentInstances& CommCosts::instances_of(const GroupKind& kind) {
  if (auto at = instances_.find(kind); at != instances_.end()) return at->second;
  const auto& [role, group, peer] = kind;
  if (stage_ranks_.empty()) {
    stage_ranks_.resize(static_cast<std::size_t>(placement_.layout().pipeline));
    for (int rank = 0; rank < s_.workers; ++rank)
      stage_ranks_[static_cast<std::size_t>(placement_.stage(rank))].push_back(rank);
  }
  const int representative = placement_.representative(role);
  const std::vector<int> own = members(kind);
  std::vector<int> hosts;
  std::size_t instances = 0, mine = 0;
  for (const int rank : stage_ranks_[static_cast<std::size_t>(role)]) {
    std::vector<int> instance;
    if (peer >= 0) instance = {rank, placement_.stage_rank(rank, peer)};
    else if (placement_.leads(rank, group)) instance = placement_.members(rank, group);
    else continue;
    // The representative's instance in the order its plan is timed in.
    if (std::find(instance.begin(), instance.end(), representative) != instance.end()) instance = own, mine = instances;
    DTSIM_CHECK(instance.size() == own.size(), "the instances of a group are of one size");
    hosts.insert(hosts.end(), instance.begin(), instance.end());
    ++instances;
  }
  return instances_.try_emplace(kind, fabric_, static_cast<int>(own.size()), std::move(hosts), mine).first->second;
}

const CommCosts::Entry& CommCosts::entry(int role, const Task& t) {
  const Key k = key(role, t);
  if (auto at = cache_.find(k); at != cache_.end()) return at->second;
  Entry e;
  const std::vector<int> m = members(role, t);
  if (meets_elsewhere(t.op) && m.size() > 1) {
    // The bucket's push (its exchanges with their local work, the launch of plain data parallelism's exchange)
    // carries the whole bucket's traffic; the pull its own time only.
    const BucketCost& c = stage_exchange_of(role).exchange.costs[static_cast<std::size_t>(t.item)];
    if (t.op == Op::pull) {
      e.time_s = c.pull_s;
    } else {
      e.time_s = c.time_s + launch_s(role, t);
      const auto self = static_cast<std::size_t>(placement_.representative(role));
      if (self < c.traffic.size()) e.traffic = {c.traffic[self].sent, c.traffic[self].received};
    }
  } else if (m.size() > 1) {
    const GroupPaths paths(fabric_, m);
    const std::vector<std::vector<actors::Flow>> flows = group_flows(role, t, true);
    const LinkDivisors divisors = instances_of(kind_of(role, t)).divisors(flows);
    const SharedLinks shared(paths, divisors);
    const core::PathModel& network = divisors.empty() ? static_cast<const core::PathModel&>(paths) : shared;
    e.time_s = collectives_.time_s(t.op, group_of(m), t.bytes, network) + launch_s(role, t);
    const collectives::Schedule fused = actors::as_schedule(flows, static_cast<int>(m.size()));
    const int self = static_cast<int>(std::find(m.begin(), m.end(), placement_.representative(role)) - m.begin());
    e.traffic = collectives::traffic_by_rank(fused)[static_cast<std::size_t>(self)];
  }
  return cache_.emplace(k, e).first->second;
}

}  // namespace dtsim::run
