#pragma once
/// Will a simulated run fit in this process? The SimGrid actors it keeps alive and the platform it builds,
/// estimated from its setup before SimGrid starts and checked against the process's limits (address space,
/// memory, mappings), so that a run too large for the machine is refused with the way out instead of aborting.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/actors/gossip_exchanger.hpp"
#include "sim/actors/ps_exchanger.hpp"
#include "sim/core/process_limits.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::run {

/// The most actors a run keeps alive at once, and where they come from (in words, for the refusal).
struct ActorCount {
  std::int64_t actors = 0;
  std::string why;
};

/// All-reduce: a compute and a communication actor per worker (FIFO); with a credit, a compute actor per worker
/// and one per worker and bucket in flight (as many buckets as fit under the credit, smallest first, plus one).
ActorCount allreduce_actors(const scheduling::IterationPlan& plan, int workers);
/// Parameter server: the workers' two actors, a server actor each, and per participant one task and one push
/// actor per piece of every bucket exchange until its pull returns.
ActorCount ps_actors(const actors::PsSetup& setup);
/// Gossip: the workers' two actors and, while a bucket is exchanged, one sender per neighbour.
ActorCount gossip_actors(const actors::GossipSetup& setup);

/// Parallel layouts: one actor per rank and stream its stage's program uses (actors::graph_actors), and `helpers`
/// more that their parts start (GraphRanks::helper_actors: pushes and pulls at parameter servers).
ActorCount layout_actors(const taskgraph::TaskGraph& graph, const std::vector<int>& role, std::int64_t helpers = 0);

/// Bytes a run with `count` actors on a platform of `hosts` hosts adds to the process (SimGrid's engine, the
/// actors' stacks and objects, its hosts, links and routes).
std::int64_t simulation_bytes(const ActorCount& count, int hosts);

/// Bytes of the route table of the platform's root zone (platform::build_simgrid_platform): structured nodes' FullZone
/// keeps a pointer for every ordered pair of its GPUs, whether a route is declared or not. Other platforms: none (a
/// StarZone, or a FabricZone holding the declared node pairs' routes only, counted in the hosts' bytes).
std::int64_t route_table_bytes(const platform::PlatformSpec& platform);

/// Bytes the message level keeps for `messages` messages of its plans: each rank step (one per message on
/// average) holds its flows, a send and a receive, in its own allocation.
std::int64_t message_plan_bytes(std::int64_t messages);

/// Refuses, as refuse_oversized, a message-level run whose plans (`messages` messages over its distinct bucket
/// sizes) would not fit, with its CPU time `cpu_s` when known.
void refuse_oversized_plans(const scenario::Scenario& s, std::int64_t messages, const core::ProcessLimits& limits,
                            std::optional<double> cpu_s = std::nullopt);

/// What an analytic all-reduce run takes: peak bytes and CPU seconds on the 2-core machine of bench/RESULTS.md.
struct AnalyticCost {
  std::int64_t bytes = 0;
  double cpu_s = 0;
};

/// The analytic level's cost for `workers` workers on `hosts` hosts exchanging `exchanges` all-reduces per
/// iteration over `distinct` distinct sizes: per host its fabric and, in the report, its links' loads; per worker
/// and exchange its traffic totals (bench/RESULTS.md, "Growth with cluster size"); and the largest plan it builds,
/// `plan_transfers` transfers (plans are built one distinct size at a time).
AnalyticCost analytic_cost(int workers, int hosts, std::int64_t exchanges, std::int64_t distinct,
                           std::int64_t plan_transfers);

/// The transfers of the largest plan an analytic run of `s` builds for the all-reduces of `work`: NCCL's tree's
/// (collective "nccl" or "auto"); its ring, as the ring and the grid all-reduces, is timed without a plan.
std::int64_t analytic_plan_transfers(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work);

/// The transfers of the largest plan NCCL's tree builds to time an all-reduce of each of `sizes` bytes (collective
/// "nccl" or "auto" where its tuner or NCCL_ALGO picks the tree; 0 otherwise).
std::int64_t tree_plan_transfers(const scenario::Scenario& s, const std::vector<std::int64_t>& sizes);

/// Refuses, before anything is built, a run whose all-reduce alpha-beta probe (the collective's closed form at
/// each of `probe_bytes`, for the scheduler) would not fit: NCCL's tree builds its plan to time itself (at every
/// fidelity level). Its estimate: the engine, the fabric's hosts and the probe's plan.
void refuse_oversized_probe(const scenario::Scenario& s, const std::vector<std::int64_t>& probe_bytes,
                            const core::ProcessLimits& limits);

/// analytic_cost of an analytic all-reduce run of `s` exchanging `work` every iteration.
AnalyticCost analytic_run_cost(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work);

/// Refuses, as refuse_oversized, an analytic run whose cost (analytic_cost of the exchanges of `work`) would not fit.
void refuse_oversized_analytic(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work,
                               const core::ProcessLimits& limits);

/// What a layout's run with `events` task events of its traced ranks (the timeline's and the report's) takes at the
/// analytic level: peak bytes and CPU seconds on the 2-core machine of bench/RESULTS.md, "A layout's task graph".
AnalyticCost workload_cost(std::int64_t events);

/// Refuses, as refuse_oversized and before it is built, a layout whose task graph of `tasks` tasks (all stages and
/// iterations; parallel::workload_tasks), `events` of them traced, would not fit (with the simulated levels' spans of
/// every rank, `rank_tasks` tasks), with its CPU time and the way out: fewer micro-batches (a larger
/// parallel.micro_batch, a smaller batch_size) or fewer iterations.
void refuse_oversized_workload(const scenario::Scenario& s, std::int64_t tasks, std::int64_t events,
                               std::int64_t rank_tasks, const core::ProcessLimits& limits);

/// The analytic level's schedule of a layout with stragglers, `run_tasks` tasks over every class of ranks
/// (rank_classes.hpp): refuses, as refuse_oversized, one that would not fit, and returns its CPU seconds.
double refuse_oversized_classes(const scenario::Scenario& s, std::int64_t run_tasks, const core::ProcessLimits& limits);

/// Throws core::InputError at the scenario, with the estimate (and the CPU time `cpu_s`, when known) and the ways out
/// (`way_out`, then a larger limit), when the run would exceed `limits`: the address space left under RLIMIT_AS or
/// the memory available.
void refuse_oversized(const scenario::Scenario& s, const ActorCount& count, const core::ProcessLimits& limits,
                      const std::string& way_out, std::optional<double> cpu_s = std::nullopt);

/// CPU seconds of a flow-level run with `rank_exchanges` exchanges (a worker's fused all-reduce of a bucket) in all,
/// on the 2-core machine of bench/RESULTS.md: a measured cost per exchange that grows with the workers from 1,024 to
/// 16,384 (caches) and stays flat beyond.
double flow_cpu_s(int workers, std::int64_t rank_exchanges);
/// CPU seconds of a message-level run sending `messages` messages in all, as flow_cpu_s (growing past 64 workers).
double message_cpu_s(int workers, std::int64_t messages);
/// CPU seconds of a simulated run of a parallel layout's task graphs on `workers` ranks with `rank_tasks` tasks over
/// all ranks and iterations and `flows` flows started by their communication (fused steps at the flow level, every
/// message at the message level), on the 2-core machine of bench/RESULTS.md: a measured cost per task and per flow,
/// growing as workers^0.35 from 64 workers on.
double graph_cpu_s(int workers, std::int64_t rank_tasks, std::int64_t flows);
/// The estimate above which a run prints long_run_note (a minute of CPU).
double long_run_s();
/// `cpu_s` in words: "45 s", "12 minutes", "3.0 hours".
std::string cpu_time_text(double cpu_s);
/// The note a run of `s` estimated at `cpu_s` CPU seconds prints before it starts when that exceeds long_run_s():
/// the estimate and the ways out (a lower fidelity level, fewer iterations or workers). Empty otherwise.
std::string long_run_note(const scenario::Scenario& s, double cpu_s);

}  // namespace dtsim::run
