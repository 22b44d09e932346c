#pragma once
/// The cost preparer of a layout's task graph: every communication task (a collective on a rank group, a
/// pipeline send) timed, its traffic counted and its plan mapped onto the links, each distinct one planned once on
/// the representative rank's group.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "sim/actors/rank_steps.hpp"
#include "sim/collectives/rank_traffic.hpp"
#include "sim/parallel/layout.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/run/group_collectives.hpp"
#include "sim/run/link_shares.hpp"
#include "sim/run/stage_exchange.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::run {

/// Times, traffic and link loads of the graph's communication, each distinct (role, operation, group, bytes)
/// planned once on the representative rank's group by GroupCollectives (the algorithms both lines run), and timed
/// with the links it shares with the stage's other instances of the group, which run it at the same moment
/// (link_shares.hpp). Pushes, pulls and neighbour exchanges (parameter servers, gossip) are their bucket's (task
/// item) in the stage's exchange (stage_exchange.hpp), of the stages `stages` plans.
class CommCosts {
 public:
  CommCosts(const scenario::Scenario& s, const platform::Fabric& fabric, const parallel::Placement& placement,
            const std::vector<parallel::StagePlan>* stages = nullptr);

  /// A task's duration at the analytic level.
  double operator()(int role, const taskgraph::Task& t);

  /// The flows of collective `t` of `role` in group ranks: fused (the flow level) or every step (the message
  /// level). Planned on the representative's group: every instance of a role's group has its shape.
  std::vector<std::vector<actors::Flow>> group_flows(int role, const taskgraph::Task& t, bool fuse) const;

  /// The launch cost a communication task waits before its transfers (none where the plan charges it, where
  /// the group is one rank and nothing moves, or for a pull: its push launched the bucket's exchange).
  double launch_s(int role, const taskgraph::Task& t) const;

  /// Whether task `t` is a push or a pull at parameter servers (no plan among the group: server_exchange).
  static bool at_servers(const taskgraph::Task& t) { return t.op == taskgraph::Op::push || t.op == taskgraph::Op::pull; }

  /// The simulated levels' exchange of `role`'s buckets at the servers (architecture.hpp's layout_servers), made once.
  std::shared_ptr<const actors::ServerExchange> server_exchange(int role);

  /// The collectives it plans with.
  const GroupCollectives& collectives() const { return collectives_; }

  /// What makes two communication tasks cost the same: (role, operation, group, bytes, peer of a send or bucket of
  /// a push, pull or neighbour exchange).
  using Key = std::tuple<int, taskgraph::Op, std::string, std::int64_t, int>;
  Key key(int role, const taskgraph::Task& t) const;

  /// Bytes the representative of `role` sends and receives in task `t`.
  collectives::RankTraffic traffic(int role, const taskgraph::Task& t) { return entry(role, t).traffic; }

  /// Adds to `link_bytes` what every instance of the graph's communication carries, `times` times each.
  void add_links(const taskgraph::TaskGraph& graph, std::vector<double>& link_bytes);

 private:
  struct Entry {
    double time_s = 0;
    collectives::RankTraffic traffic;
  };

  /// A kind of group: (role, group of a collective or "", peer stage of a send or -1).
  using GroupKind = std::tuple<int, std::string, int>;
  static GroupKind kind_of(int role, const taskgraph::Task& t);

  std::vector<int> members(int role, const taskgraph::Task& t) const;
  /// The representative's instance of a kind of group, in group order.
  std::vector<int> members(const GroupKind& kind) const;
  collectives::Group group_of(const std::vector<int>& m) const;
  const Entry& entry(int role, const taskgraph::Task& t);
  /// Every instance of a kind of group among the ranks of its role's stage (one per group; a send: each rank and
  /// its peer), made once: what the timing shares links with and what the link loads walk.
  ConcurrentInstances& instances_of(const GroupKind& kind);
  /// The exchange of `role`'s buckets at servers or neighbours, made once.
  const StageExchange& stage_exchange_of(int role);

  const scenario::Scenario& s_;
  const platform::Fabric& fabric_;
  const parallel::Placement& placement_;
  GroupCollectives collectives_;
  std::map<Key, Entry> cache_;
  const std::vector<parallel::StagePlan>* stages_;
  std::map<int, StageExchange> exchanges_;  ///< by role
  std::map<int, std::shared_ptr<const actors::ServerExchange>> servers_;  ///< by role
  std::map<GroupKind, ConcurrentInstances> instances_;
  std::vector<std::vector<int>> stage_ranks_;  ///< by role: its ranks, in order (made on first use)
};

}  // namespace dtsim::run
