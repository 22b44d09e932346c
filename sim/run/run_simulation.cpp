#include "sim/run/run_simulation.hpp"

#include "sim/actors/collective_exchanger.hpp"
#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/schedule_time.hpp"
#include <algorithm>
#include <numeric>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/link_traffic.hpp"
#include "sim/run/data_parallel_timeline.hpp"
#include "sim/run/architecture.hpp"
#include "sim/run/assemble.hpp"
#include "sim/run/capacity.hpp"
#include "sim/run/bucket_plan.hpp"
#include "sim/run/numerics_run.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/run/critical_path.hpp"
#include "sim/run/time_by_class.hpp"
#include "sim/run/group_collectives.hpp"
#include "sim/run/layout_run.hpp"
#include "sim/run/run_info.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/memory/activations.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/run/pair_bytes.hpp"
#include "sim/parallel/data_parallel.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::run {
namespace {

RunInfo make_info(const scenario::Scenario& s, const scheduling::IterationPlan& plan) {
  RunInfo info = scenario_info(s);
  info.sync = sync::describe(s.sync);
  info.architecture = architecture_named(s.architecture).describe(s);
  info.buckets = static_cast<std::int64_t>(plan.buckets.size());
  return info;
}

/// What the executors need from the bucket plans, made from each distinct bucket size's plan once (a plan at
/// thousands of ranks holds millions of transfers, so none is kept longer than needed).
struct PreparedPlans {
  std::vector<BucketCost> costs;            ///< analytic level: per bucket
  std::vector<collectives::RankTraffic> traffic;  ///< analytic level: per rank, an exchanging iteration's
  std::vector<double> latency_s;            ///< every level: per bucket, its exchanges' start-up latency (LatencyOnly)
  actors::BucketFlows flows;                ///< simulated levels: per bucket
  std::vector<actors::LocalWork> local;     ///< simulated levels: per bucket
  std::vector<std::pair<int, int>> pairs;   ///< simulated levels: host pairs the plans use
  std::vector<double> link_bytes;           ///< per directed link, one iteration
};

/// Compression work and trace payload of every bucket, for the simulated levels, with the latency part of its
/// exchanges where one plan serves every iteration (`latency_s` per bucket; empty: not known).
std::vector<actors::LocalWork> local_work(const std::vector<scheduling::BucketWork>& work,
                                          const std::vector<double>& latency_s) {
  std::vector<actors::LocalWork> local;
  for (std::size_t b = 0; b < work.size(); ++b) {
    const scheduling::BucketWork& w = work[b];
    actors::LocalWork& l = local.emplace_back(actors::LocalWork{w.compress_s, w.decompress_s, 0, {}});
    for (const scheduling::Exchange& e : w.exchanges) l.payload_bytes += e.bytes;
    if (b < latency_s.size()) l.latency_s = latency_s[b];
  }
  return local;
}

/// A simulated all-reduce run's CPU time estimate and, at the message level, its plans' messages.
struct AllreduceLoad {
  double cpu_s = 0;
  std::int64_t plan_messages = 0;  ///< message level: the messages of the distinct sizes' plans
};

/// The CPU time estimate (capacity.hpp): per worker and exchange at the flow level, per message of every exchange at
/// the message level (the all-reduces whose fused plan the collective knows, and NCCL's tree, counted without its
/// plan: a lower bound for other plans), every iteration exchanging; and the messages of the distinct plans.
AllreduceLoad allreduce_load(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work,
                             const collectives::Collective& collective) {
  std::int64_t exchanges = 0;
  for (const scheduling::BucketWork& w : work) exchanges += static_cast<std::int64_t>(w.exchanges.size());
  AllreduceLoad load{flow_cpu_s(s.workers, static_cast<std::int64_t>(s.workers) * exchanges * s.iterations), 0};
  if (s.fidelity == scenario::Fidelity::message) {
    std::map<std::int64_t, std::int64_t> messages_of;  // per distinct all-reduce size
    for (const scheduling::BucketWork& w : work)
      for (const scheduling::Exchange& e : w.exchanges)
        if (e.kind == scheduling::Exchange::Kind::allreduce) messages_of.emplace(e.bytes, 0);
    std::int64_t messages = 0;
    for (auto& [bytes, count] : messages_of) {
      if (const auto fused = collective.fused_plan({s.workers, s.platform.gpus_per_node}, bytes))
        for (const collectives::FusedStep& step : *fused)
          count += static_cast<std::int64_t>(step.steps) * static_cast<std::int64_t>(step.transfers.size());
      else  // NCCL's tree (or CollNet/NVLS): its plan's transfers, counted without building it
        count = tree_plan_transfers(s, {bytes});
      messages += count;
    }
    std::int64_t sent = 0;
    for (const scheduling::BucketWork& w : work)
      for (const scheduling::Exchange& e : w.exchanges)
        if (e.kind == scheduling::Exchange::Kind::allreduce) sent += messages_of.at(e.bytes);
    load = {message_cpu_s(s.workers, sent * s.iterations), messages};
  }
  return load;
}

/// Refuses, before the fabric and the plans are built, a simulated all-reduce run that would not fit in this
/// process: its actors, and at the message level every message of its distinct plans. Returns its CPU time
/// estimate (allreduce_load).
double refuse_oversized_allreduce(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                                  const std::vector<scheduling::BucketWork>& work,
                                  const collectives::Collective& collective) {
  const core::ProcessLimits limits = core::read_process_limits();
  const bool message = s.fidelity == scenario::Fidelity::message;
  const auto [cpu_s, messages] = allreduce_load(s, work, collective);
  if (message) refuse_oversized_plans(s, messages, limits, cpu_s);
  refuse_oversized(s, allreduce_actors(plan, s.workers), limits,
                   message ? "strategy.fidelity = \"flow\" or \"analytic\", or fewer workers"
                           : "strategy.fidelity = \"analytic\", or fewer workers",
                   cpu_s);
  return cpu_s;
}

/// The task operation of an exchange and its size as a group operation (an all-gather's every rank's block).
std::pair<taskgraph::Op, std::int64_t> group_op(const scheduling::Exchange& e, int ranks) {
  using Kind = scheduling::Exchange::Kind;
  if (e.kind == Kind::allgather) return {taskgraph::Op::allgather, e.bytes * ranks};
  return {e.kind == Kind::allreduce ? taskgraph::Op::allreduce : taskgraph::Op::gtopk, e.bytes};
}

/// The plans of the buckets' exchanges among `participants` (increasing worker numbers), each distinct exchange
/// costed once by GroupCollectives over the participants' routes. All workers: the group on the platform's nodes.
/// A subset (a scheme's sample of the workers): a group of as many ranks, one per node (a sample seldom fills whole
/// nodes), run by the subset's hosts. The analytic level's traffic is counted per exchanging iteration (every
/// bucket's exchanges), not per bucket and rank.
PreparedPlans prepare_collectives(const scenario::Scenario& s, const std::vector<scheduling::BucketWork>& work,
                                  const GroupCollectives& collectives, const platform::Fabric& fabric,
                                  const std::vector<int>& participants) {
  using Key = std::pair<scheduling::Exchange::Kind, std::int64_t>;
  std::map<Key, int> uses;
  for (const scheduling::BucketWork& w : work)
    for (const scheduling::Exchange& e : w.exchanges) ++uses[{e.kind, e.bytes}];
  const bool analytic = s.fidelity == scenario::Fidelity::analytic;
  const int ranks = static_cast<int>(participants.size());
  const bool whole = ranks == s.workers;
  const collectives::Group group{ranks, whole ? s.platform.gpus_per_node : 1};
  const GroupPaths paths(fabric, participants);
  const collectives::LatencyOnly latency_only(paths);
  // Every distinct size's plan on the same group walks the same hops: their costs are kept from the first.
  const collectives::KeptPairCosts kept(paths), kept_latency(latency_only);
  PreparedPlans prepared;
  if (analytic) prepared.traffic.assign(static_cast<std::size_t>(s.workers), {});
  PairBytes pair_bytes;
  std::map<Key, BucketCost> cost_of;
  std::map<Key, double> latency_of;  // the plan's start-up latency: its time over links of infinite bandwidth
  std::map<Key, std::shared_ptr<const std::vector<std::vector<actors::RankStep>>>> flows_of;
  for (const auto& [key, count] : uses) {
    const auto [op, bytes] = group_op({key.first, key.second, 0}, ranks);
    latency_of[key] = collectives.time_s(op, group, bytes, kept_latency);
    // Fused flows carry the same bytes between the same pairs in far fewer transfers (a ring: one per rank),
    // so link and pair accounting walk them rather than every step.
    const std::vector<std::vector<actors::Flow>> fused =
        whole ? collectives.flows(op, group, bytes, true) : on_members(collectives.flows(op, group, bytes, true), participants);
    const collectives::Schedule totals = actors::as_schedule(fused, s.workers);
    pair_bytes.add(totals, count);
    if (analytic) {
      cost_of[key].time_s = collectives.time_s(op, group, bytes, kept);
      for (const collectives::Step& step : totals.steps)
        for (const collectives::Transfer& t : step.transfers) {  // a switch endpoint is no rank
          if (!collectives::is_switch(t.from)) prepared.traffic[static_cast<std::size_t>(t.from)].sent += count * t.bytes;
          if (!collectives::is_switch(t.to)) prepared.traffic[static_cast<std::size_t>(t.to)].received += count * t.bytes;
        }
    } else {
      actors::add_pairs(totals, prepared.pairs);
      flows_of[key] = std::make_shared<const std::vector<std::vector<actors::RankStep>>>(actors::split_by_rank(
          s.fidelity == scenario::Fidelity::flow
              ? fused
              : on_members(collectives.flows(op, group, bytes, false), participants),
          s.workers));
    }
  }
  if (!uses.empty()) pair_bytes.add_to_links(fabric, prepared.link_bytes);
  for (const scheduling::BucketWork& w : work) {
    double& latency_s = prepared.latency_s.emplace_back(0.0);
    for (const scheduling::Exchange& e : w.exchanges) latency_s += latency_of.at({e.kind, e.bytes});
    if (analytic) {
      BucketCost cost;
      cost.latency_s = latency_s;
      cost.compress_s = w.compress_s;
      cost.decompress_s = w.decompress_s;
      for (const scheduling::Exchange& e : w.exchanges) {
        cost.time_s += e.before_s + cost_of.at({e.kind, e.bytes}).time_s;
        cost.payload_bytes += e.bytes;
      }
      prepared.costs.push_back(std::move(cost));
    } else {
      auto& run = prepared.flows.emplace_back();
      for (const scheduling::Exchange& e : w.exchanges)
        run.push_back({e.before_s, e.bytes, flows_of.at({e.kind, e.bytes})});
    }
  }
  return prepared;
}

/// The all-reduce's choice for each bucket's all-reduces where it chooses per call (NCCL's "tree/LL"; several
/// joined by "+", none: "-"); empty where it always runs one plan.
std::vector<std::string> allreduce_choices(const collectives::Collective& allreduce,
                                           const std::vector<scheduling::BucketWork>& work,
                                           const collectives::Group& group) {
  std::vector<std::string> choices;
  if (!allreduce.variant(group, 0)) return choices;
  for (const scheduling::BucketWork& w : work) {
    std::string choice;
    for (const scheduling::Exchange& e : w.exchanges)
      if (e.kind == scheduling::Exchange::Kind::allreduce)
        choice += (choice.empty() ? "" : "+") + *allreduce.variant(group, static_cast<double>(e.bytes));
    choices.push_back(choice.empty() ? "-" : choice);
  }
  return choices;
}

}  // namespace

std::vector<scheduling::BucketWork> bucket_work(const scheduling::IterationPlan& plan) {
  if (!plan.work.empty()) return plan.work;
  std::vector<scheduling::BucketWork> work;
  for (const scheduling::Bucket& b : plan.buckets)
    work.push_back({0, 0, {{scheduling::Exchange::Kind::allreduce, b.bytes, 0}}});
  return work;
}

scheduling::IterationPlan make_iteration_plan(const scenario::Scenario& s, std::string* compression_note,
                                              std::span<const float> real_gradient) {
  scheduling::IterationPlan plan;
  const std::vector<models::LayerTime> times = models::layer_times(
      s.model, s.gpu, s.batch_size, s.precision, s.measured_iteration_s, models::optimizer(s.memory.optimizer), 1,
      s.fp8_recipe);
  // A recomputed layer runs its forward again during backward, just before its backward.
  const std::vector<bool> again = memory::recomputed_layers(s.model, s.memory.recomputation);
  scheduling::SchedulingInput input;
  refuse_oversized_probe(s, {0, std::int64_t{1} << 30}, core::read_process_limits());
  input.allreduce = allreduce_alpha_beta(s, {s.workers, s.platform.gpus_per_node});
  const std::int64_t copies = s.sync.rules().exchanged_copies(s.sync);  // the momentum buffers too (Yu et al.)
  const auto gradient_bytes = static_cast<std::int64_t>(models::element_bytes(s.gradient_dtype));  // on the wire
  for (std::size_t l = 0; l < s.model.layers.size(); ++l) {
    const models::Layer& layer = s.model.layers[l];
    plan.layers.push_back({layer.name, times[l].forward_s, times[l].backward_s + (again[l] ? times[l].forward_s : 0),
                           times[l].update_s});
    for (const models::Tensor& t : layer.tensors)
      input.tensors.push_back({static_cast<int>(l), t.numel() * gradient_bytes * copies});
  }
  input.backward_end_s.assign(plan.layers.size(), 0.0);
  double backward = 0;
  for (std::size_t l = plan.layers.size(); l-- > 0;) input.backward_end_s[l] = (backward += plan.layers[l].backward_s);
  plan_buckets(s, input, model_gradient_pieces(s), s.workers, plan, compression_note, real_gradient);
  return plan;
}

/// LAG's skipped uploads in training step it + 1 (the first steps of the time line; later iterations upload).
actors::SkipUpload lag_skips(const numerics::TrainingRun& run) {
  bool any = false;
  for (const numerics::StepReport& step : run.steps)
    any = any || std::find(step.uploaded.begin(), step.uploaded.end(), false) != step.uploaded.end();
  if (!any) return {};
  auto uploads = std::make_shared<std::vector<std::vector<bool>>>();
  for (const numerics::StepReport& step : run.steps) uploads->push_back(step.uploaded);
  return [uploads](int worker, int iteration) {
    const auto it = static_cast<std::size_t>(iteration);
    return it < uploads->size() && !(*uploads)[it].empty() && !(*uploads)[it][static_cast<std::size_t>(worker)];
  };
}

/// The simulated levels: the architecture's exchanger on SimGrid.
/// The iterations' sets of participants (Scheme::participants): the distinct sets, and the one of each iteration.
struct ParticipantSets {
  std::vector<std::vector<int>> sets;
  std::vector<std::size_t> of_iteration;
};

ParticipantSets participant_sets(const scenario::Scenario& s) {
  ParticipantSets p;
  std::map<std::vector<int>, std::size_t> index;
  for (int it = 0; it < s.iterations; ++it) {
    const auto [at, fresh] = index.try_emplace(s.sync.participants(s.workers, it), p.sets.size());
    if (fresh) p.sets.push_back(at->first);
    p.of_iteration.push_back(at->second);
  }
  return p;
}

Timeline simulate(const scenario::Scenario& s, const scheduling::IterationPlan& plan, actors::IterationGraphs& graphs,
                  const std::vector<scheduling::BucketWork>& work, std::vector<PreparedPlans>& prepared,
                  const ParticipantSets& sets, const platform::Fabric& fabric, const Slowdown& slowdown,
                  const CommOverlap& overlap, int trace_workers, const actors::SkipUpload& skip) {
  std::vector<actors::FailureEvent> failures;
  for (const scenario::Failure& f : s.failures) failures.push_back({f.at_s, f.worker, f.link, f.duration_s});
  std::vector<std::pair<int, int>> pairs = prepared.front().pairs;
  if (prepared.size() > 1) {
    for (const PreparedPlans& p : prepared) pairs.insert(pairs.end(), p.pairs.begin(), p.pairs.end());
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  }
  const actors::FlowsOf flows = [&prepared, &sets](int iteration) {
    const std::size_t set = sets.of_iteration[static_cast<std::size_t>(iteration)];
    return actors::IterationFlows{&prepared[set].flows, static_cast<int>(sets.sets[set].size())};
  };
  ExchangeInput in{s, plan, work, flows, pairs, fabric, prepared.front().link_bytes, skip};
  const SimulatedExchange exchange = architecture_named(s.architecture).simulated(in);
  // Under a sampling scheme the plans change with the iteration's participants: the buckets' latency is left out.
  return actors::simulate_iterations(s.platform, plan,
                                     local_work(work, prepared.size() == 1 ? prepared.front().latency_s
                                                                           : std::vector<double>{}),
                                     graphs, exchange.make, exchange.pairs,
                                     s.workers, s.sync, trace_workers, slowdown, failures, overlap,
                                     exchange.peak_actors);
}

namespace {

/// The time line of `s`, after numerics mode's `training` when there is one.
RunResult simulate_time_line(const scenario::Scenario& s, const std::optional<numerics::TrainingRun>& training,
                             const Notes& notes) {
  std::string compression_note;
  const std::vector<float> real_gradient =
      s.compression.gradient == "numerics" ? numerics_gradient(s) : std::vector<float>{};
  const scheduling::IterationPlan plan = make_iteration_plan(s, &compression_note, real_gradient);
  memory::MemoryBreakdown memory = check_memory(s, plan);
  const GroupCollectives collectives(s, platform::link_costs(s.platform));
  const collectives::Collective& collective = collectives.allreduce();
  const std::vector<scheduling::BucketWork> work = bucket_work(plan);
  const bool collective_exchanges = sync::architecture_named(s.architecture).meets == sync::Meets::kCollective;
  std::string note;
  if (collective_exchanges && s.fidelity != scenario::Fidelity::analytic)
    note = long_run_note(s, refuse_oversized_allreduce(s, plan, work, collective));
  if (collective_exchanges && s.fidelity == scenario::Fidelity::analytic) {
    refuse_oversized_analytic(s, work, core::read_process_limits());
    note = long_run_note(s, analytic_run_cost(s, work).cpu_s);
  }
  if (!note.empty() && notes) notes(note);
  const platform::Fabric fabric(s.platform);
  const ParticipantSets sets = participant_sets(s);
  std::vector<PreparedPlans> prepared(sets.sets.size());
  parallel::ExchangeFragment fragment;
  for (std::size_t k = 0; k < sets.sets.size(); ++k) {
    if (collective_exchanges) {
      prepared[k] = prepare_collectives(s, work, collectives, fabric, sets.sets[k]);
      continue;
    }
    prepared[k].link_bytes.assign(static_cast<std::size_t>(fabric.link_count()), 0.0);
    if (s.fidelity != scenario::Fidelity::analytic) continue;
    DTSIM_CHECK(sets.sets.size() == 1, "servers and neighbours exchange among every worker");
    AnalyticInput in{s, plan, work, fabric, prepared[k].link_bytes};
    std::optional<AnalyticExchange> exchange = architecture_named(s.architecture).analytic(in);
    DTSIM_CHECK(exchange.has_value(), "architecture " + s.architecture + " times its exchange at the analytic level");
    fragment = std::move(exchange->fragment);
    prepared[k].costs = std::move(exchange->costs);
  }
  const int trace_workers = std::min(s.workers, s.output.trace_workers);
  const Slowdown slowdown = slowdown_of(s.stragglers, s.workers);
  // Every bucket's exchange waits its all-reduce's launch, overlapping the exchange before it.
  const CommOverlap overlap{collectives.launch_s(taskgraph::Op::allreduce, s.workers), s.gpu.overlap_slowdown};
  // The iteration as task graphs (a priority plan exchanges every iteration).
  actors::IterationGraphs graphs;
  graphs.exchanging = parallel::data_parallel_iteration(plan, true, overlap.launch_s,
                                                        s.sync.exchanges_in_flight() > 0, fragment);
  if (plan.credit_bytes == 0) graphs.local = parallel::data_parallel_iteration(plan, false, overlap.launch_s);
  LastIterationGraph analysed;
  Timeline timeline = s.fidelity == scenario::Fidelity::analytic
                          ? data_parallel_timeline(
                                graphs.exchanging, graphs.local,
                                [&](int it) -> const std::vector<BucketCost>& {
                                  return prepared[sets.of_iteration[static_cast<std::size_t>(it)]].costs;
                                },
                                [&](int it) -> const std::vector<collectives::RankTraffic>& {
                                  return prepared[sets.of_iteration[static_cast<std::size_t>(it)]].traffic;
                                },
                                s.workers, s.iterations, trace_workers, s.sync, slowdown, overlap, &analysed)
                          : simulate(s, plan, graphs, work, prepared, sets, fabric, slowdown, overlap, trace_workers,
                                     training ? lag_skips(*training) : actors::SkipUpload{});
  if (s.fidelity != scenario::Fidelity::analytic && !graphs.last_spans.empty())
    analysed = simulated_last_iteration(graphs.last_exchanged ? graphs.exchanging : graphs.local,
                                    std::move(graphs.last_spans), graphs.last_carried);
  double single_worker_s = 0;
  for (const auto& layer : plan.layers) single_worker_s += layer.forward_s + layer.backward_s + layer.update_s;
  RunInfo info = make_info(s, plan);
  info.collective_launch_s = overlap.launch_s;
  // Under client sampling only a round's sample computes: the global batch is theirs.
  if (const auto sampled = static_cast<int>(sets.sets.front().size()); sampled < s.workers) info.sampled = sampled;
  info.compression = compression_note;
  if (!s.compression.compressor.empty() && s.compression.kernel_time == scenario::KernelTime::measured)
    info.not_reproducible = "compression.kernel_time = \"measured\": the compression kernels were timed on this host "
                            "during the run, so times change with the host and its load; use \"model\" (the default)";
  LastIteration last =
      analyse_iteration_graph(analysed.graph, analysed.schedule, plan.buckets.size(), analysed.worker_of_run);
  const int per_participant = s.ps.hierarchical ? s.platform.gpus_per_node : 1;
  RunResult result = assemble_result(std::move(info), std::move(timeline), single_worker_s,
                                     s.workers - s.sync.backup_workers * per_participant);
  // Per iteration on average: each participant set's plans, as often as an iteration of that set exchanges.
  std::vector<int> exchanging(sets.sets.size(), 0);
  for (int it = 0; it < s.iterations; ++it)
    if (s.sync.exchanges(it)) ++exchanging[sets.of_iteration[static_cast<std::size_t>(it)]];
  std::vector<double> link_bytes(prepared.front().link_bytes.size(), 0.0);
  for (std::size_t k = 0; k < sets.sets.size(); ++k)
    for (std::size_t l = 0; l < link_bytes.size(); ++l)
      link_bytes[l] += prepared[k].link_bytes[l] * (static_cast<double>(exchanging[k]) / s.iterations);
  if (!result.iterations.empty()) {
    std::vector<int> layers(s.model.layers.size());
    std::iota(layers.begin(), layers.end(), 0);
    result.time_by_class = time_by_class(
        result.iterations.back().per_worker.front(),
        pass_shares(models::layer_class_times(s.model, s.gpu, s.batch_size, s.precision,
                                              models::optimizer(s.memory.optimizer), 1, s.fp8_recipe),
                    layers));
  }
  result.critical_path = std::move(last.critical_path);
  result.exposed_comm_per_bucket_s = std::move(last.exposed_comm_per_bucket_s);
  if (collective_exchanges)
    result.nccl_choice_per_bucket = allreduce_choices(collective, work, {s.workers, s.platform.gpus_per_node});
  result.links = link_uses(link_bytes, fabric, result.mean_iteration_s);
  result.memory = std::move(memory);
  set_utilisation(s, result);
  if (training) attach_training(s, *training, result);
  return result;
}

}  // namespace

RunResult run_simulation(const scenario::Scenario& s, const Notes& notes) {
  if (scenario::uses_layout(s)) return run_layout(s, notes);
  // Numerics mode trains first: its decisions (LAG's skipped uploads, AdaComm's periods) shape the time line.
  std::optional<numerics::TrainingRun> training;
  if (s.numerics.enabled) {
    check_memory(s);  // before training, not after
    training = train_numerics(s);
  }
  if (!training || !s.sync.rules().loss_rule(s.sync)) return simulate_time_line(s, training, notes);
  std::vector<double> losses;
  for (const numerics::StepReport& step : training->steps) losses.push_back(step.loss);
  scenario::Scenario decided = s;
  decided.sync.decided = std::make_shared<const std::vector<bool>>(sync::decided_exchanges(s.sync, losses));
  return simulate_time_line(decided, training, notes);
}

std::optional<double> estimated_cpu_s(const scenario::Scenario& s) {
  if (scenario::uses_layout(s))
    return s.fidelity == scenario::Fidelity::analytic ? std::nullopt : std::optional<double>(layout_cpu_s(s));
  if (sync::architecture_named(s.architecture).meets != sync::Meets::kCollective) return std::nullopt;
  const std::vector<float> real_gradient =
      s.compression.gradient == "numerics" ? numerics_gradient(s) : std::vector<float>{};
  const std::vector<scheduling::BucketWork> work = bucket_work(make_iteration_plan(s, nullptr, real_gradient));
  if (s.fidelity == scenario::Fidelity::analytic) return analytic_run_cost(s, work).cpu_s;
  return allreduce_load(s, work, GroupCollectives(s, platform::link_costs(s.platform)).allreduce()).cpu_s;
}

}  // namespace dtsim::run
