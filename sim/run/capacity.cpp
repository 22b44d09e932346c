#include "sim/run/capacity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "sim/actors/actor_contexts.hpp"
#include "sim/actors/graph_run.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/core/error.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::run {
namespace {

/// SimGrid's objects per host of the platform (host, its links, netpoint, routes to its peers), measured: a
/// flow-level ResNet-50 ring of 1,024 workers on a star of 16,384 hosts takes 40 MB more address space than on
/// one of 2,048 hosts, 2.9 KB per host.
constexpr std::int64_t kHostBytes = 4 * 1024;

/// SimGrid's engine (its kernel, models, maestro) and the rest of a run's start: a flow-level run of 1,024
/// AlexNet workers on 8,192 hosts adds 92 MB of address space once its actors run, 24 MB of it its hosts.
constexpr std::int64_t kEngineBytes = 64 * 1024 * 1024;

/// The analytic level's two phases. Its report lists every loaded link with its bytes and utilisation (a JSON
/// object each): measured on fat trees of 8-GPU nodes with one bucket (mlp, ddp), 545 MiB peak at 100,000
/// GPUs and 4.36 GiB at 1,000,000, 4.47 KiB a host. While it simulates, per host its fabric (massif: 270 bytes
/// at 100,000 hosts), the links' loads and paths.
constexpr std::int64_t kReportHostBytes = 4608;
constexpr std::int64_t kFabricHostBytes = 512;

/// Per worker and all-reduce of an iteration (and per distinct size), its bytes sent and received (16 bytes).
constexpr std::int64_t kRankTrafficBytes = 16;

/// Per transfer of a plan the analytic level builds (NCCL's tree), while it is timed: the transfer on the wire
/// (24 bytes), fused into a flow (40) and back into a transfer (24), and its step's share of the vectors
/// (estimated from the types; NCCL's tree of 16.8 million transfers forced at 4,096 GPUs took 800 MiB more than
/// the ring, 50 bytes a transfer, its move plan and plan alive at once). CPU: that run took 1.6 s more.
constexpr std::int64_t kPlanTransferBytes = 128;
constexpr double kPlanTransfer_s = 100e-9;

/// Per transfer of the plan NCCL's tree builds for the alpha-beta probe, timed where it is built (the move plan and
/// the plan on the wire, nothing fused): measured with the tree and LL forced at 4,096 GPUs (16.8 million
/// transfers at 1 GiB), 855 MiB peak RSS against 57 MiB with the ring, and it ran under `ulimit -v 1000000`, not
/// under 900000: about 54 bytes of address space a transfer.
constexpr std::int64_t kProbeTransferBytes = 64;

/// The analytic level's CPU time per host (its fabric, its links' loads, the report) and per worker and
/// exchange (traffic totals, the time line): measured at 1,000,000 GPUs, 12.9 s user with one bucket (mlp,
/// ddp), 21.0 s with 161 (ResNet-50, WFBP).
constexpr double kAnalyticHost_s = 13e-6;
constexpr double kAnalyticExchange_s = 50e-9;

/// The flow level's CPU time per worker and exchange (a fused all-reduce of one bucket), measured on the 2-core
/// machine (bench/RESULTS.md, ResNet-50, WFBP, ring, one iteration, 161 all-reduces, fat tree): 1.36 s user at 1,024
/// GPUs (8.3 us each), 13.7 s at 4,096 (20.7 us), 104 s at 16,384 (39.5 us; "The analytic level linear on fat
/// trees"), then with 16 KiB stacks 94.6 s at 16,384 (35.9 us) and 370.5 s at 65,536 (35.1 us; "SimGrid's platform in
/// one zone"). From 1,024 workers on it grows as workers^0.57 while the actors' stacks and objects outgrow the
/// caches (every context switch touches another of 2 x workers), and is flat from 16,384 on, where every switch
/// misses; below 1,024, about 5 to 8 us (0.2 s at 256 GPUs, 4.9 us). Within 15 % of those runs.
constexpr double kFlowExchange_s = 8.3e-6;
constexpr double kFlowFrom = 1024;
constexpr double kFlowGrowth = 0.57;
constexpr double kFlowFlatFrom = 16384;

/// The message level's CPU time per message (a step of a rank), measured the same way ("The analytic level linear
/// on fat trees", message level, ResNet-50, WFBP, ring, fat tree): 2.50 s user at 64 GPUs for 1.30 million messages
/// (1.93 us each), 65.6 s at 256 for 21.0 million (3.12 us): growing as workers^0.35 from 64 on.
constexpr double kMessage_s = 1.93e-6;
constexpr double kMessageFrom = 64;
constexpr double kMessageGrowth = 0.35;

/// The simulated levels' CPU time on a parallel layout's task graphs (sim/actors graph walker): per task of every
/// rank (its actor's wake-up and bookkeeping) and per flow the communication tasks start (a SimGrid comm each),
/// growing as workers^0.35 from 64 on (the ranks' actors outgrow the caches, as at the flow level), fitted to the
/// user CPU time of five runs on the 2-core machine (bench/RESULTS.md, "The layouts' CPU time"; Llama 2 7B TP8 x DP8
/// at the flow and message levels, Llama 2 70B TP8 x PP4 at 128 and 256 GPUs): within 6.5 % of each.
constexpr double kGraphRankTask_s = 3.02e-6;
constexpr double kGraphFlow_s = 4.14e-6;
constexpr double kGraphFrom = 64;
constexpr double kGraphGrowth = 0.35;

/// A layout's run per task event of a traced rank (the timeline records every task of the first trace_workers ranks
/// and of every stage's first rank, and the report writes each): peak RSS and user CPU of the shipped Llama 2 7B TP8
/// scenario (64 ranks, 17 traced, 328 tasks a micro-batch) at the analytic level, measured with
/// `/usr/bin/time -f "%M %U" dtsim run scenarios/llama2_7b_tp8_vs_fsdp.toml --set batch_size=B`: 3.34 GB and 10.9 s
/// at 256 micro-batches, 6.62 GB and 22.9 s at 512, 13.2 GB and 42.6 s at 1,024 (bench/RESULTS.md): 12.8 MB and
/// 41 ms a micro-batch, about 2.3 KB and 7.4 us an event.
constexpr std::int64_t kWorkloadEventBytes = 2400;
constexpr double kWorkloadEvent_s = 7.5e-6;

/// The analytic level's runs of classes of ranks at different speeds (rank_classes.hpp), per task scheduled: peak RSS
/// and wall time of scenarios/llama_stragglers_1024.toml with `/usr/bin/time -f "%e %M"`, 105,352 tasks (one slow
/// GPU: 1.0 s, 77 MB) against 6,742,528 (lognormal noise on all 1,024 GPUs, one iteration: 13.0 s, 338 MB),
/// measured 2026-11-28: about 40 bytes and 1.8 us a task.
constexpr std::int64_t kClassTaskBytes = 40;
constexpr double kClassTask_s = 1.8e-6;

/// Above this estimate a run says, before it starts, how long it will take and the ways out: a minute of CPU is
/// several minutes of waiting on a shared machine (bench/RESULTS.md's runs at load 14: 3 to 10 times as long).
constexpr double kLongRun_s = 60;

/// " (about ... of CPU)" when the CPU time is known.
std::string cpu_clause(std::optional<double> cpu_s) {
  return cpu_s ? fmt::format(" (about {} of CPU)", cpu_time_text(*cpu_s)) : "";
}

}  // namespace

ActorCount allreduce_actors(const scheduling::IterationPlan& plan, int workers) {
  const auto w = static_cast<std::int64_t>(workers);
  if (plan.credit_bytes <= 0) return {2 * w, fmt::format("{} workers x 2 (compute, communication)", workers)};
  std::vector<std::int64_t> sizes;
  for (const scheduling::Bucket& b : plan.buckets) sizes.push_back(b.bytes);
  std::sort(sizes.begin(), sizes.end());
  std::int64_t in_flight = 0, bytes = 0;
  for (std::size_t k = 0; k < sizes.size() && bytes < plan.credit_bytes; ++k, ++in_flight) bytes += sizes[k];
  return {w * (1 + in_flight), fmt::format("{} workers x (1 compute + {} buckets in flight under the credit)",
                                           workers, in_flight)};
}

ActorCount ps_actors(const actors::PsSetup& setup) {
  std::int64_t per_participant = 0;
  for (const auto& bucket : actors::ps_pieces(setup))
    for (const auto& exchange : bucket) per_participant += 1 + static_cast<std::int64_t>(exchange.size());
  const std::int64_t participants =
      setup.hierarchical ? (setup.workers + setup.gpus_per_node - 1) / setup.gpus_per_node : setup.workers;
  const auto servers = static_cast<std::int64_t>(setup.server_hosts.size());
  return {2 * setup.workers + servers + participants * per_participant,
          fmt::format("{} workers x 2, {} servers, {} pushing participants x {} tasks and pieces per iteration",
                      setup.workers, servers, participants, per_participant)};
}

ActorCount gossip_actors(const actors::GossipSetup& setup) {
  std::int64_t senders = 0;
  for (const auto& neighbours : setup.graph.neighbours) senders += static_cast<std::int64_t>(neighbours.size());
  const int workers = setup.graph.size();
  if (setup.push_sum) senders = 0;  // SGP sends from the communication actor itself
  return {2 * workers + senders, fmt::format("{} workers x 2 and {} senders to neighbours", workers, senders)};
}

ActorCount layout_actors(const taskgraph::TaskGraph& graph, const std::vector<int>& role, std::int64_t helpers) {
  return {actors::graph_actors(graph, role) + helpers,
          fmt::format("{} ranks x the streams of their stage's program (compute, tensor, data, gather, pipeline){}",
                      role.size(), helpers > 0 ? fmt::format(", {} pushing and pulling pieces", helpers) : "")};
}

std::int64_t simulation_bytes(const ActorCount& count, int hosts) {
  return kEngineBytes + actors::actor_bytes(count.actors) + static_cast<std::int64_t>(hosts) * kHostBytes;
}

std::int64_t route_table_bytes(const platform::PlatformSpec& platform) {
  if (platform.topology == platform::Topology::star || !platform.node.structured) return 0;
  const auto netpoints = static_cast<std::int64_t>(platform.hosts());
  return netpoints * netpoints * static_cast<std::int64_t>(sizeof(void*));
}

double flow_cpu_s(int workers, std::int64_t rank_exchanges) {
  const double scale = std::clamp(workers / kFlowFrom, 1.0, kFlowFlatFrom / kFlowFrom);
  return static_cast<double>(rank_exchanges) * kFlowExchange_s * std::pow(scale, kFlowGrowth);
}

double message_cpu_s(int workers, std::int64_t messages) {
  return static_cast<double>(messages) * kMessage_s * std::pow(std::max(1.0, workers / kMessageFrom), kMessageGrowth);
}

double graph_cpu_s(int workers, std::int64_t rank_tasks, std::int64_t flows) {
  return (static_cast<double>(rank_tasks) * kGraphRankTask_s + static_cast<double>(flows) * kGraphFlow_s) *
         std::pow(std::max(1.0, workers / kGraphFrom), kGraphGrowth);
}

double long_run_s() { return kLongRun_s; }

std::string cpu_time_text(double cpu_s) {
  if (cpu_s < 120) return fmt::format("{:.0f} s", cpu_s);
  if (cpu_s < 7200) return fmt::format("{:.0f} minutes", cpu_s / 60);
  return fmt::format("{:.1f} hours", cpu_s / 3600);
}

std::string long_run_note(const scenario::Scenario& s, double cpu_s) {
  if (cpu_s <= kLongRun_s) return "";
  constexpr std::array<std::pair<scenario::Fidelity, const char*>, 2> kLower{
      {{scenario::Fidelity::message, "strategy.fidelity = \"flow\" or \"analytic\", or "},
       {scenario::Fidelity::flow, "strategy.fidelity = \"analytic\" answers in seconds, or "}}};
  const char* lower = "";  // the analytic level has none
  for (const auto& [fidelity, words] : kLower)
    if (fidelity == s.fidelity) lower = words;
  return fmt::format("this {} run will take about {} of CPU (estimated from bench/RESULTS.md); {}fewer iterations "
                     "(iterations = {}) or workers",
                     scenario::fidelity_name(s.fidelity), cpu_time_text(cpu_s), lower, s.iterations);
}

namespace {

/// Throws when `needed` more bytes exceed the address space left or the memory available.
void refuse_beyond(const scenario::Scenario& s, std::int64_t needed, const std::string& what,
                   const core::ProcessLimits& limits, const std::string& way_out) {
  const std::string estimate = fmt::format("this {} run needs about {} more for {}", scenario::fidelity_name(s.fidelity),
                                           core::format_bytes(static_cast<double>(needed)), what);
  if (limits.address_space_bytes) {
    const std::int64_t left = *limits.address_space_bytes - limits.address_space_used_bytes;
    if (needed > left)
      throw core::InputError(s.source,
                             fmt::format("{}, more than the {} of address space this process has left (RLIMIT_AS, "
                                         "ulimit -v: {})",
                                         estimate, core::format_bytes(static_cast<double>(std::max<std::int64_t>(left, 0))),
                                         core::format_bytes(static_cast<double>(*limits.address_space_bytes))),
                             way_out + ", or raise ulimit -v");
  }
  if (limits.available_bytes && needed > *limits.available_bytes)
    throw core::InputError(s.source,
                           fmt::format("{}, more than the {} of memory available on this machine", estimate,
                                       core::format_bytes(static_cast<double>(*limits.available_bytes))),
                           way_out + ", or a machine with more memory");
}

}  // namespace

AnalyticCost analytic_cost(int workers, int hosts, std::int64_t exchanges, std::int64_t distinct,
                           std::int64_t plan_transfers) {
  const auto w = static_cast<std::int64_t>(workers), h = static_cast<std::int64_t>(hosts);
  return {kEngineBytes + std::max(h * kReportHostBytes, h * kFabricHostBytes + w * (exchanges + distinct) * kRankTrafficBytes +
                                                            plan_transfers * kPlanTransferBytes),
          static_cast<double>(h) * kAnalyticHost_s + static_cast<double>(w * exchanges) * kAnalyticExchange_s +
              static_cast<double>(plan_transfers) * kPlanTransfer_s};
}

std::int64_t tree_plan_transfers(const scenario::Scenario& s, const std::vector<std::int64_t>& sizes) {
  if (s.collective != "nccl" && s.collective != "auto") return 0;
  const collectives::NcclAllreduce nccl(s.collective, platform::link_costs(s.platform), s.nccl);
  std::int64_t most = 0;
  for (const std::int64_t bytes : sizes)
    most = std::max(most, nccl.analytic_plan_transfers({s.workers, s.platform.gpus_per_node}, bytes));
  return most;
}

std::int64_t analytic_plan_transfers(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work) {
  std::vector<std::int64_t> sizes;
  for (const scheduling::BucketWork& w : work)
    for (const scheduling::Exchange& e : w.exchanges)
      if (e.kind == scheduling::Exchange::Kind::allreduce) sizes.push_back(e.bytes);
  return tree_plan_transfers(s, sizes);
}

void refuse_oversized_probe(const scenario::Scenario& s, const std::vector<std::int64_t>& probe_bytes,
                            const core::ProcessLimits& limits) {
  const std::int64_t plan = tree_plan_transfers(s, probe_bytes);
  if (plan == 0) return;
  const auto hosts = static_cast<std::int64_t>(s.platform.hosts());
  refuse_beyond(s, kEngineBytes + hosts * kFabricHostBytes + plan * kProbeTransferBytes,
                fmt::format("NCCL's tree plan of {} transfers, which it builds to time the all-reduce for the scheduler "
                            "(about {:.0f} s of CPU)",
                            plan, static_cast<double>(plan) * kPlanTransfer_s),
                limits, "fewer workers, or strategy.nccl_algo = \"ring\" (timed without a plan)");
}

AnalyticCost analytic_run_cost(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work) {
  std::set<std::pair<scheduling::Exchange::Kind, std::int64_t>> sizes;
  std::int64_t exchanges = 0;
  for (const scheduling::BucketWork& w : work)
    for (const scheduling::Exchange& e : w.exchanges) sizes.insert({e.kind, e.bytes}), ++exchanges;
  return analytic_cost(s.workers, s.platform.hosts(), exchanges, static_cast<std::int64_t>(sizes.size()),
                       analytic_plan_transfers(s, work));
}

void refuse_oversized_analytic(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work,
                               const core::ProcessLimits& limits) {
  std::int64_t exchanges = 0;
  for (const scheduling::BucketWork& w : work) exchanges += static_cast<std::int64_t>(w.exchanges.size());
  const std::int64_t plan = analytic_plan_transfers(s, work);
  const AnalyticCost cost = analytic_run_cost(s, work);
  refuse_beyond(s, cost.bytes,
                fmt::format("its {} hosts' links and {} workers' traffic in {} all-reduces an iteration{} (about {:.0f} "
                            "s of CPU)",
                            s.platform.hosts(), s.workers, exchanges,
                            plan > 0 ? fmt::format(", and NCCL's tree plan of {} transfers", plan) : "", cost.cpu_s),
                limits, plan > 0 ? "fewer workers, or strategy.nccl_algo = \"ring\" (timed without a plan)" : "fewer workers");
}

AnalyticCost workload_cost(std::int64_t events) {
  return {kEngineBytes + events * kWorkloadEventBytes, static_cast<double>(events) * kWorkloadEvent_s};
}

void refuse_oversized_workload(const scenario::Scenario& s, std::int64_t tasks, std::int64_t events,
                               std::int64_t rank_tasks, const core::ProcessLimits& limits) {
  const AnalyticCost graph = workload_cost(events);
  const bool simulated = s.fidelity != scenario::Fidelity::analytic;
  // The simulated levels keep every rank's spans, and walk every rank's tasks (flows not counted: at least).
  const std::int64_t spans = simulated ? rank_tasks * static_cast<std::int64_t>(sizeof(taskgraph::Span)) : 0;
  const double cpu_s = graph.cpu_s + (simulated ? graph_cpu_s(s.workers, rank_tasks, 0) : 0.0);
  refuse_beyond(s, graph.bytes + spans,
                fmt::format("its task graph of {} tasks ({} micro-batches an iteration x {} iterations){} (about {}{} "
                            "of CPU)",
                            tasks, scenario::micro_batches(s), s.iterations,
                            simulated ? fmt::format(" and its {} ranks' spans", s.workers) : "",
                            simulated ? "at least " : "", cpu_time_text(cpu_s)),
                limits,
                fmt::format("fewer micro-batches: a larger parallel.micro_batch (now {}) or a smaller batch_size (now {}), "
                            "or fewer iterations (now {})",
                            scenario::layout_of(s).micro_batch, s.batch_size, s.iterations));
}

double refuse_oversized_classes(const scenario::Scenario& s, std::int64_t run_tasks, const core::ProcessLimits& limits) {
  const double cpu_s = static_cast<double>(run_tasks) * kClassTask_s;
  refuse_beyond(s, run_tasks * kClassTaskBytes,
                fmt::format("{} scheduled tasks: every class of ranks at its own speed runs its stage's program (about "
                            "{} of CPU)",
                            run_tasks, cpu_time_text(cpu_s)),
                limits, "fewer ranks with their own speed (noise slows every rank apart), fewer iterations or micro-batches");
  return cpu_s;
}

void refuse_oversized(const scenario::Scenario& s, const ActorCount& count, const core::ProcessLimits& limits,
                      const std::string& way_out, std::optional<double> cpu_s) {
  const std::int64_t table = route_table_bytes(s.platform);
  refuse_beyond(s, simulation_bytes(count, s.platform.hosts()) + table,
                fmt::format("SimGrid ({} actors alive at most: {}; {} hosts{}){}", count.actors, count.why,
                            s.platform.hosts(),
                            table >= (std::int64_t{64} << 20)
                                ? fmt::format(", {} of them its root zone's route table",
                                              core::format_bytes(static_cast<double>(table)))
                                : "",
                            cpu_clause(cpu_s)),
                limits, way_out);
}

std::int64_t message_plan_bytes(std::int64_t messages) {
  constexpr auto kMallocHeader = 16;  // glibc's chunk header, rounded to its 16-byte alignment
  constexpr auto per_message = static_cast<std::int64_t>(sizeof(actors::RankStep) + 2 * sizeof(actors::Flow)) + kMallocHeader;
  return messages * per_message;
}

void refuse_oversized_plans(const scenario::Scenario& s, std::int64_t messages, const core::ProcessLimits& limits,
                            std::optional<double> cpu_s) {
  refuse_beyond(s, message_plan_bytes(messages),
                fmt::format("the plans of its distinct bucket sizes ({} messages, each a step of a rank){}", messages,
                            cpu_clause(cpu_s)),
                limits, "strategy.fidelity = \"flow\" or \"analytic\", fewer workers, or fewer distinct bucket sizes "
                "(scheduler = \"ddp\" or \"fusion\")");
}

}  // namespace dtsim::run
