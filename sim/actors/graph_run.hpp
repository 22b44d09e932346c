#pragma once
/// The `flow` and `message` levels of a parallel layout, a client of the graph walker (graph_walker.hpp): every
/// rank runs its role's program once, one actor per stream it uses, each running its stream's tasks in program
/// order once their dependencies on the same rank have ended. Collectives run the rank's part of its group's
/// plan, so groups that share links (NICs, switches) slow each other down as they would on the platform.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/actors/failure_injector.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/actors/server_runs.hpp"
#include "sim/platform/platform_spec.hpp"
#include "sim/results/run_result.hpp"
#include "sim/results/timeline.hpp"
#include "sim/taskgraph/list_schedule.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::actors {

/// A rank's part in one communication task (a collective or a send).
struct RankPart {
  std::shared_ptr<const std::vector<RankStep>> steps;  ///< collectives: this rank's steps, in global ranks
  double launch_s = 0;  ///< waited before the transfers (the collective's launch, where its plan does not charge it)
  int instance = -1;    ///< collectives: the group instance's first rank (with the task: the flow level's barrier)
  int members = 1;      ///< collectives: ranks of the group instance
  int peer = -1;        ///< sends: the receiving rank
  int server = -1;      ///< pushes and pulls at parameter servers: the rank's index in GraphRanks::servers
};

/// A rank's part in its stage's exchange at the parameter servers.
struct ServerPart {
  std::shared_ptr<const ServerExchange> exchange;
  std::shared_ptr<const ServerRole> role;
};

/// What the layout's client needs to know about the ranks, as plain data.
struct GraphRanks {
  std::vector<int> role;                      ///< per rank: the program it runs
  std::vector<std::vector<int>> part_of;      ///< [role][task]: index into parts[rank] of a communication task, else -1
  std::vector<std::vector<RankPart>> parts;   ///< [rank][part]
  std::vector<std::pair<int, int>> pairs;     ///< the host pairs the parts use (their routes are built)
  std::vector<ServerPart> servers;            ///< of the ranks that push and pull (RankPart::server)
  std::int64_t helper_actors = 0;  ///< actors the parts start besides the walker's, at most at once (server_actors)
};

/// What the ranks did: spans[rank][task] of its role's program (end -1: it never ended, the job stopped before),
/// the bytes each sent and received, and what failed (Timeline's failures, out, stopped and stopped_at_s).
struct GraphRun {
  std::vector<std::vector<taskgraph::Span>> spans;
  std::vector<run::WorkerTraffic> traffic;
  run::Timeline outcome;
};

/// How simulate_graph runs the ranks.
struct GraphRunOptions {
  bool fuse = false;  ///< the flow level (else message)
  /// While a rank's collectives or sends run, its computation progresses at 1 / this of its speed.
  double overlap_slowdown = 1;
  /// Stragglers (null: nominal speed): rank r computes task t of role p at r's factor in iteration
  /// iteration_of[p][t] and at its speed profile.
  const run::ComputeSpeed* speed = nullptr;
  std::vector<std::vector<int>> iteration_of;
  /// Crashes and link failures at their times. Every group of a layout needs every one of its ranks (its
  /// collectives and pipeline sends have no spare), so a crash, or a transfer that breaks on a link that is down,
  /// stops the job then, as for a data-parallel all-reduce.
  std::vector<FailureEvent> failures;
};

/// Actors the walker keeps alive: one per rank and stream its role's program uses (walk_actors).
std::int64_t graph_actors(const taskgraph::TaskGraph& graph, const std::vector<int>& role);

/// Runs `graph` (check()ed) on `platform`, rank r on host r. Compute tasks sleep their duration; a collective
/// waits its launch, then runs the rank's steps (execute_steps) on its stream's channel, so that concurrent
/// collectives never match each other's messages; at the flow level (`options.fuse`) the group's members wait
/// for each other before and after the fused flows, as a collective's step dependencies keep them within a step.
/// A send puts its bytes on the mailbox of the matching receive, whose rank is its permanent receiver (the
/// transfer starts at once, as the analytic level assumes); the receive ends when the bytes are there. Pushes and
/// pulls run the rank's part at the servers (server_runs.hpp). Compute runs at
/// `options`' speeds, failures happen at their times (GraphRunOptions). Creates the process's one SimGrid engine:
/// call at most once per process.
GraphRun simulate_graph(const platform::PlatformSpec& platform, const taskgraph::TaskGraph& graph,
                        const GraphRanks& ranks, GraphRunOptions options);

}  // namespace dtsim::actors
