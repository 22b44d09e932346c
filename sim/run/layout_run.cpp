#include "sim/run/layout_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "sim/actors/graph_run.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/collectives/rank_traffic.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/memory/activations.hpp"
#include "sim/parallel/stage_memory.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/run/architectures/server_exchange.hpp"
#include "sim/run/assemble.hpp"
#include "sim/run/bucket_plan.hpp"
#include "sim/run/capacity.hpp"
#include "sim/run/comm_costs.hpp"
#include "sim/run/layout_times.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/run/rank_classes.hpp"
#include "sim/run/run_info.hpp"
#include "sim/run/stage_buckets.hpp"
#include "sim/run/stage_exchange.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/run/time_by_class.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/sync/scheme.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::run {
namespace {

using taskgraph::Op;
using taskgraph::Task;

/// Hybrid sharding's shard: the data-parallel ranks of rank 0's node.
int hybrid_shard(const parallel::Placement& placement) {
  return placement.layout().sharding == parallel::Sharding::hybrid
             ? static_cast<int>(placement.members(0, "shard").size())
             : 1;
}

/// The ranks whose trace events a run keeps. With a timeline: the first trace_workers and the lowest rank of every
/// stage, so that every stage shows. Without one: worker 0, whose events the report's exchanges in flight measure
/// (nothing else reads them; a plan's or sweep's candidates run so).
std::vector<bool> traced_ranks(const scenario::Scenario& s, const parallel::Placement& placement) {
  const auto W = static_cast<std::size_t>(s.workers);
  std::vector<bool> traced(W, false);
  traced[0] = true;
  if (!s.output.timeline) return traced;
  for (std::size_t w = 0; w < std::min<std::size_t>(W, static_cast<std::size_t>(s.output.trace_workers)); ++w)
    traced[w] = true;
  for (int stage = 0; stage < s.parallel.pipeline; ++stage)
    traced[static_cast<std::size_t>(placement.representative(stage))] = true;
  return traced;
}

parallel::Workload workload_of(const scenario::Scenario& s, int iterations,
                               std::shared_ptr<std::string> compression_note = nullptr) {
  const parallel::Layout layout = scenario::layout_of(s);
  const parallel::Placement placement(layout, s.platform.gpus_per_node);
  parallel::WorkloadInput in;
  in.model = &s.model;
  in.times = layout_layer_times(s);
  in.recomputed = memory::recomputed_layers(s.model, s.memory.recomputation);
  in.precision = s.precision;
  in.gradient_dtype = s.gradient_dtype;
  in.micro_batches = scenario::micro_batches(s);
  in.iterations = iterations;
  in.hybrid_shard = hybrid_shard(placement);
  in.copy = copy_costs(s);
  in.data_planner = stage_planner(s, placement, std::move(compression_note));
  in.data_meeting = data_meeting(s);
  if (in.data_meeting == parallel::ExchangeFragment::Kind::push_pull)
    in.server_sums = [&s, placement](int stage, const scheduling::IterationPlan& plan) {
      return stage_exchange(s, placement, platform::Fabric(s.platform), stage, plan).exchange.fragment.sum_s;
    };
  // The sync scheme on the data dimension, iteration by iteration.
  const sync::Scheme& scheme = s.sync.rules();
  for (int it = 0; it < iterations; ++it)
    in.exchanges.push_back(!s.sync.exchanges(it)                 ? parallel::DataExchange::none
                           : scheme.averages_models(s.sync, it) ? parallel::DataExchange::models
                                                                : parallel::DataExchange::gradients);
  in.averaged_copies = scheme.exchanged_copies(s.sync);
  in.average_in_flight = s.sync.exchanges_in_flight() > 0;
  // Traced (traced_ranks), at most: the first trace_workers ranks and each stage's first, or worker 0 alone.
  const std::int64_t traced = s.output.timeline ? std::min(s.workers, s.output.trace_workers) + layout.pipeline : 1;
  // Counting the tasks without the graph builds one iteration at pipeline and at 2 x pipeline micro-batches: a graph
  // no bigger than that (a plan candidate's one iteration of up to 2 x pipeline micro-batches) is built and counted.
  std::optional<parallel::Workload> built;
  std::vector<std::int64_t> stage_tasks;
  if (static_cast<std::int64_t>(iterations) * in.micro_batches <= 2 * layout.pipeline) {
    built = parallel::build_workload(layout, in);
    for (const taskgraph::Program& p : built->graph.programs)
      stage_tasks.push_back(static_cast<std::int64_t>(p.tasks.size()));
  } else {
    stage_tasks = parallel::workload_tasks(layout, in);
  }
  std::int64_t tasks = 0, rank_tasks = 0;
  for (const std::int64_t stage : stage_tasks) tasks += stage, rank_tasks += stage * (s.workers / layout.pipeline);
  refuse_oversized_workload(s, tasks, tasks / layout.pipeline * traced, rank_tasks, core::read_process_limits());
  return built ? std::move(*built) : parallel::build_workload(layout, in);
}

/// A rank's compute stream per iteration from its spans of `program` (waiting = exposed communication and the
/// pipeline bubble; with `bubble`, the bubble apart), for the iterations that ended (a failure may have stopped the
/// job).
std::vector<IterationMarks> rank_marks(const taskgraph::Program& program, const parallel::StagePlan& stage,
                                       const std::vector<taskgraph::Span>& spans, bool bubble) {
  std::vector<IterationMarks> marks;
  int first = 0;
  double start = 0;
  for (int end : stage.iteration_end) {
    if (spans[static_cast<std::size_t>(end)].end_s < 0) break;
    IterationMarks m;
    m.start_s = start;
    m.end_s = spans[static_cast<std::size_t>(end)].end_s;
    for (int i = first; i <= end; ++i) {
      const Task& t = program.tasks[static_cast<std::size_t>(i)];
      if (t.op != Op::compute || t.stream != taskgraph::Stream::compute) continue;
      const double d = spans[static_cast<std::size_t>(i)].end_s - spans[static_cast<std::size_t>(i)].start_s;
      (t.category == "forward" ? m.forward_s : t.category == "update" ? m.update_s : m.backward_s) += d;
    }
    m.comm_wait_s = std::max(0.0, m.end_s - m.start_s - m.forward_s - m.backward_s - m.update_s);
    if (bubble) m.bubble_s = pipeline_bubble_s(program, spans, first, end, m.start_s, m.end_s);
    marks.push_back(m);
    first = end + 1;
    start = m.end_s;
  }
  return marks;
}

/// A push's or pull's messages of every rank of `role` (at most: with per-node aggregation only the roots push).
std::int64_t server_messages(CommCosts& costs, int role, const Task& t, std::int64_t ranks) {
  std::int64_t pieces = 0;
  for (const auto& exchange : costs.server_exchange(role)->pieces[static_cast<std::size_t>(t.item)])
    pieces += static_cast<std::int64_t>(exchange.size());
  return pieces * ranks;
}

/// Every rank's tasks over all iterations and the flows their communication starts (a group plan's, fused at the flow
/// level, over the group's ranks; each distinct communication planned once): what a simulated level's CPU time
/// grows with.
double graph_cpu_s_of(const scenario::Scenario& s, const taskgraph::TaskGraph& graph,
                      const parallel::Placement& placement, CommCosts& costs) {
  const bool fuse = s.fidelity == scenario::Fidelity::flow;
  const std::int64_t ranks = s.workers / s.parallel.pipeline;  // of each role (pipeline stage)
  std::int64_t rank_tasks = 0, flows = 0;
  for (std::size_t r = 0; r < graph.programs.size(); ++r) {
    const int role = static_cast<int>(r);
    std::map<CommCosts::Key, std::int64_t> flows_of;
    for (const Task& t : graph.programs[r].tasks) {
      rank_tasks += ranks;
      if (t.op == Op::compute || t.op == Op::recv) continue;
      const auto [at, added] = flows_of.emplace(costs.key(role, t), 0);
      if (added && CommCosts::at_servers(t)) {
        at->second = server_messages(costs, role, t, ranks);
      } else if (added) {
        std::int64_t planned = 0;
        for (const auto& step : costs.group_flows(role, t, fuse)) planned += static_cast<std::int64_t>(step.size());
        const auto size = t.op == Op::send
                              ? std::int64_t{1}
                              : static_cast<std::int64_t>(placement.members(placement.representative(role), t.group).size());
        at->second = planned * (ranks / size);
      }
      flows += at->second;
    }
  }
  return graph_cpu_s(s.workers, rank_tasks, flows);
}

/// The simulated levels' view of the ranks: each rank's role and its part in every communication task in
/// global ranks, each distinct (role, operation, group, bytes, peer) planned once and mapped onto every group
/// instance. The message level first refuses plans that would not fit.
actors::GraphRanks graph_ranks(const scenario::Scenario& s, const taskgraph::TaskGraph& graph,
                               const parallel::Placement& placement, CommCosts& costs) {
  const bool fuse = s.fidelity == scenario::Fidelity::flow;
  actors::GraphRanks out;
  // Per role: a task of each distinct communication, and that communication's plan split over group ranks.
  std::vector<std::vector<int>> first_of(graph.programs.size());
  std::vector<std::vector<std::vector<std::vector<actors::RankStep>>>> split(graph.programs.size());
  std::int64_t messages = 0;
  for (std::size_t r = 0; r < graph.programs.size(); ++r) {
    const auto& tasks = graph.programs[r].tasks;
    std::map<CommCosts::Key, int> kinds;
    std::vector<int>& part_of = out.part_of.emplace_back(tasks.size(), -1);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const Task& t = tasks[i];
      if (t.op == Op::compute || t.op == Op::recv) continue;
      const bool send = t.op == Op::send;
      const auto [at, added] = kinds.emplace(costs.key(static_cast<int>(r), t), static_cast<int>(first_of[r].size()));
      part_of[i] = at->second;
      if (!added) continue;
      first_of[r].push_back(static_cast<int>(i));
      if (CommCosts::at_servers(t)) {  // no plan among the group: each rank's part at the servers
        messages += server_messages(costs, static_cast<int>(r), t, s.workers / s.parallel.pipeline);
        split[r].emplace_back();
        continue;
      }
      const std::vector<std::vector<actors::Flow>> flows =
          send ? std::vector<std::vector<actors::Flow>>{} : costs.group_flows(static_cast<int>(r), t, fuse);
      const int size = send ? 2 : static_cast<int>(placement.members(placement.representative(static_cast<int>(r)), t.group).size());
      for (const auto& step : flows) messages += static_cast<std::int64_t>(step.size()) * (s.workers / s.parallel.pipeline / size);
      split[r].push_back(size > 1 && !send ? actors::split_by_rank(flows, size) : std::vector<std::vector<actors::RankStep>>{});
    }
  }
  if (!fuse) refuse_oversized_plans(s, messages, core::read_process_limits());
  std::set<std::pair<int, int>> pairs;
  std::vector<int> server_part(static_cast<std::size_t>(s.workers), -1);
  // A rank's part in its stage's exchange at the servers: its data-parallel group's places (one per node with
  // per-node aggregation, else per rank) made at once, and the pairs their messages use.
  const auto server_index = [&](int rank, int role) {
    if (server_part[static_cast<std::size_t>(rank)] >= 0) return server_part[static_cast<std::size_t>(rank)];
    const std::shared_ptr<const actors::ServerExchange> exchange = costs.server_exchange(role);
    for (actors::ServerRole& place : server_roles(exchange->setup, placement.members(rank, "data"))) {
      const int root = place.node.front();
      for (const int m : place.node) {
        server_part[static_cast<std::size_t>(m)] = static_cast<int>(out.servers.size());
        if (m != root) pairs.insert({{m, root}, {root, m}});
      }
      for (const int host : exchange->setup.server_hosts)
        if (host != root) pairs.insert({{root, host}, {host, root}});
      out.helper_actors += actors::server_actors(*exchange, place.node.size());
      out.servers.push_back({exchange, std::make_shared<const actors::ServerRole>(std::move(place))});
    }
    return server_part[static_cast<std::size_t>(rank)];
  };
  out.role.resize(static_cast<std::size_t>(s.workers));
  out.parts.resize(static_cast<std::size_t>(s.workers));
  for (int rank = 0; rank < s.workers; ++rank) {
    const int role = placement.stage(rank);
    out.role[static_cast<std::size_t>(rank)] = role;
    out.parts[static_cast<std::size_t>(rank)].resize(first_of[static_cast<std::size_t>(role)].size());
  }
  for (int rank = 0; rank < s.workers; ++rank) {
    const auto role = static_cast<std::size_t>(out.role[static_cast<std::size_t>(rank)]);
    for (std::size_t k = 0; k < first_of[role].size(); ++k) {
      const Task& t = graph.programs[role].tasks[static_cast<std::size_t>(first_of[role][k])];
      const double launch_s = costs.launch_s(static_cast<int>(role), t);
      if (CommCosts::at_servers(t)) {
        out.parts[static_cast<std::size_t>(rank)][k] = {nullptr, launch_s, -1, 1, -1, server_index(rank, static_cast<int>(role))};
        continue;
      }
      if (t.op == Op::send) {
        const int peer = placement.stage_rank(rank, t.peer);
        out.parts[static_cast<std::size_t>(rank)][k] = {nullptr, launch_s, -1, 1, peer, -1};
        pairs.insert({rank, peer});
        continue;
      }
      if (!placement.leads(rank, t.group)) continue;  // the group's first member fills every member's part
      const std::vector<int> m = placement.members(rank, t.group);
      for (std::size_t i = 0; i < m.size(); ++i) {
        actors::RankPart& part = out.parts[static_cast<std::size_t>(m[i])][k];
        part = {nullptr, launch_s, rank, static_cast<int>(m.size()), -1, -1};
        if (m.size() < 2) continue;
        auto steps = std::make_shared<std::vector<actors::RankStep>>(split[role][k][i]);
        for (actors::RankStep& step : *steps)
          for (actors::Flow& f : step.flows) {
            f.transfer.from = m[static_cast<std::size_t>(f.transfer.from)];
            f.transfer.to = m[static_cast<std::size_t>(f.transfer.to)];
            pairs.insert({f.transfer.from, f.transfer.to});
          }
        part.steps = std::move(steps);
      }
    }
  }
  out.pairs.assign(pairs.begin(), pairs.end());
  return out;
}

memory::MemoryBreakdown fullest_stage(const scenario::Scenario& s, const parallel::Workload& w,
                                      std::vector<double>* totals) {
  memory::MemoryBreakdown fullest;
  const parallel::Layout layout = scenario::layout_of(s);
  const parallel::Placement placement(layout, s.platform.gpus_per_node);
  for (int stage = 0; stage < layout.pipeline; ++stage) {
    memory::MemoryBreakdown b = parallel::stage_memory(
        layout, w, stage, s.model, s.gpu, s.precision, s.gradient_dtype, models::optimizer(s.memory.optimizer),
        s.memory.recomputation, scenario::micro_batches(s), hybrid_shard(placement), s.fp8_recipe);
    // The data dimension's buffers: the scheduler's packed buckets, the compressor's payloads and state (Megatron-LM's
    // buckets are views of its contiguous gradient buffer, the gradients already counted).
    const scheduling::IterationPlan& exchanges = w.stages[static_cast<std::size_t>(stage)].exchanges;
    memory::MemoryItem buffers = bucket_buffers(s, exchanges);
    if (layout.framework.framework == parallel::Framework::megatron) buffers.bytes = 0;
    // Servers' pulled sums, neighbours' models: the architecture's buffers for the stage's data-parallel replicas.
    if (data_meeting(s) != parallel::ExchangeFragment::Kind::collective) {
      std::string where;  // the stage's own (a colocated server's sums are not counted on a layout)
      architecture_named(s.architecture).add_buffers(s, exchanges, layout.replicas(), buffers, where);
    }
    if (buffers.bytes > 0) b.items.push_back(std::move(buffers));
    if (!s.compression.compressor.empty()) b.items.push_back(compression_buffers(s, exchanges, layout.data));
    b.items.push_back({"workspace", s.gpu.workspace_bytes, "cuBLAS workspace (PyTorch's default)"});
    if (totals) totals->push_back(b.total_bytes());
    if (stage == 0 || b.total_bytes() > fullest.total_bytes()) fullest = std::move(b);
  }
  return fullest;
}

memory::MemoryBreakdown checked_memory(const scenario::Scenario& s, const parallel::Workload& w) {
  std::vector<double> totals;
  memory::MemoryBreakdown b = fullest_stage(s, w, &totals);
  if (b.fits() || !s.memory.refuse) return b;
  std::string stages, breakdown;
  for (std::size_t i = 0; i < totals.size(); ++i)
    stages += fmt::format("{}stage {}: {}", i ? ", " : "", i, core::format_bytes(totals[i]));
  for (const std::string& line : b.lines()) breakdown += "\n" + line;
  throw core::InputError(
      s.source,
      fmt::format("{} under {} (sharding {}) needs {} per GPU ({}), more than the {}'s {}",
                  s.model.name, parallel::extents_name(s.parallel),
                  parallel::sharding_name(s.parallel.sharding), core::format_bytes(b.total_bytes()), b.where,
                  s.gpu.name, core::format_bytes(b.capacity_bytes)),
      "more tensor, context or pipeline parallelism, sharding (zero1..zero3), activation recomputation, a smaller "
      "micro_batch, or memory.check = \"warn\"\n  per stage: " + stages + "\n  the breakdown:" + breakdown);
}

/// Per stage: the iteration each task of its program belongs to (StagePlan::iteration_end).
std::vector<std::vector<int>> iterations_of(const parallel::Workload& w) {
  std::vector<std::vector<int>> of;
  for (std::size_t r = 0; r < w.graph.programs.size(); ++r) {
    std::vector<int>& it = of.emplace_back(w.graph.programs[r].tasks.size(), 0);
    int first = 0;
    for (std::size_t k = 0; k < w.stages[r].iteration_end.size(); ++k) {
      const int end = w.stages[r].iteration_end[k];
      std::fill(it.begin() + first, it.begin() + end + 1, static_cast<int>(k));
      first = end + 1;
    }
  }
  return of;
}

/// The classes of ranks the analytic level runs alike: one per stage at nominal speed (its representative's), else
/// rank_classes over the groups the graph's collectives use.
RankClasses classes_of(const scenario::Scenario& s, const parallel::Placement& placement,
                       const taskgraph::TaskGraph& graph, const Slowdown& slowdown) {
  if (!slowdown) {
    RankClasses c;
    for (int rank = 0; rank < s.workers; ++rank) c.class_of.push_back(placement.stage(rank));
    for (int stage = 0; stage < placement.layout().pipeline; ++stage) c.representative.push_back(placement.representative(stage));
    c.instances.assign(c.representative.size(), 1);
    return c;
  }
  std::set<std::string> groups;
  for (const taskgraph::Program& p : graph.programs)
    for (const Task& t : p.tasks)
      if (t.op != Op::compute && t.op != Op::send && t.op != Op::recv) groups.insert(t.group);
  std::vector<std::vector<double>> keys;
  for (int rank = 0; rank < s.workers; ++rank) keys.push_back(speed_key(s.stragglers, slowdown, rank, s.iterations));
  return rank_classes(placement, keys, std::vector<std::string>(groups.begin(), groups.end()));
}

/// Sorts `events` by (worker, lane, start), ties as std::sort leaves them. The sort compares each lane's rank in name
/// order, not its name, and moves indices, not events (100,000 of them at a 3D layout's traced ranks): the same
/// comparisons give the same order.
void sort_events(std::vector<TraceEvent>& events) {
  std::vector<std::string> lanes;
  for (const TraceEvent& e : events)
    if (std::find(lanes.begin(), lanes.end(), e.lane) == lanes.end()) lanes.push_back(e.lane);
  std::sort(lanes.begin(), lanes.end());
  std::vector<std::size_t> lane_rank;
  lane_rank.reserve(events.size());
  for (const TraceEvent& e : events)
    lane_rank.push_back(static_cast<std::size_t>(std::lower_bound(lanes.begin(), lanes.end(), e.lane) - lanes.begin()));
  std::vector<std::size_t> order(events.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(events[a].worker, lane_rank[a], events[a].start_s) <
           std::tie(events[b].worker, lane_rank[b], events[b].start_s);
  });
  // Event k takes event order[k]'s place, cycle by cycle, in place (a sorted copy would double the events' memory).
  std::vector<bool> placed(events.size(), false);
  for (std::size_t k = 0; k < events.size(); ++k) {
    if (placed[k]) continue;
    TraceEvent first = std::move(events[k]);
    std::size_t at = k;
    for (; order[at] != k; at = order[at]) {
      events[at] = std::move(events[order[at]]);
      placed[at] = true;
    }
    events[at] = std::move(first);
    placed[at] = true;
  }
}

/// The timeline from each rank's spans and traffic: marks for every rank (one list per distinct spans of a stage,
/// which the ranks that have them share: a class of the analytic level), events for the traced ranks (traced_ranks).
Timeline timeline_of(const scenario::Scenario& s, const parallel::Workload& work, const parallel::Placement& placement,
                     const std::function<const std::vector<taskgraph::Span>&(int rank)>& spans_of,
                     const std::function<WorkerTraffic(int rank)>& traffic_of) {
  Timeline timeline;
  const auto W = static_cast<std::size_t>(s.workers);
  const std::vector<bool> traced = traced_ranks(s, placement);
  std::map<std::pair<std::size_t, const std::vector<taskgraph::Span>*>, int> marked;  // -> its list in marks
  timeline.marks_of.reserve(W);
  timeline.traffic.reserve(W);
  for (std::size_t w = 0; w < W; ++w) {
    const auto role = static_cast<std::size_t>(placement.stage(static_cast<int>(w)));
    const taskgraph::Program& program = work.graph.programs[role];
    const std::vector<taskgraph::Span>& spans = spans_of(static_cast<int>(w));
    // The report's worker 0 has its marks with the pipeline bubble, shared with no other.
    const auto [list, fresh] =
        w == 0 ? std::pair{marked.end(), true}
               : marked.try_emplace({role, &spans}, static_cast<int>(timeline.marks.size()));
    if (fresh) timeline.marks.push_back(rank_marks(program, work.stages[role], spans, w == 0));
    timeline.marks_of.push_back(fresh ? static_cast<int>(timeline.marks.size()) - 1 : list->second);
    timeline.traffic.push_back(traffic_of(static_cast<int>(w)));
    if (!traced[w]) continue;
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& t = program.tasks[i];
      if ((t.op == Op::recv && spans[i].end_s == spans[i].start_s) || spans[i].end_s < 0) continue;
      timeline.events.push_back({static_cast<int>(w), taskgraph::stream_name(t.stream), t.name, t.category, spans[i].start_s,
                                 spans[i].end_s, t.bytes, {}});
    }
  }
  sort_events(timeline.events);
  return timeline;
}

}  // namespace

memory::MemoryBreakdown check_layout_memory(const scenario::Scenario& s) { return checked_memory(s, workload_of(s, 1)); }

double layout_cpu_s(const scenario::Scenario& s) {
  const parallel::Workload work = workload_of(s, s.iterations);
  const platform::Fabric fabric(s.platform);
  const parallel::Placement placement(scenario::layout_of(s), s.platform.gpus_per_node);
  CommCosts costs(s, fabric, placement, &work.stages);
  return graph_cpu_s_of(s, work.graph, placement, costs);
}

RunResult run_layout(const scenario::Scenario& s, const LayoutNotes& notes) {
  const auto compression_note = std::make_shared<std::string>();
  const parallel::Workload work = workload_of(s, s.iterations, compression_note);
  memory::MemoryBreakdown memory = checked_memory(s, work);
  const platform::Fabric fabric(s.platform);
  const parallel::Layout l = scenario::layout_of(s);
  const parallel::Placement placement(l, s.platform.gpus_per_node);
  CommCosts costs(s, fabric, placement, &work.stages);
  auto role_of = [&](int rank) { return static_cast<std::size_t>(placement.stage(rank)); };
  const bool analytic = s.fidelity == scenario::Fidelity::analytic;
  const Slowdown slowdown = slowdown_of(s.stragglers, s.workers);
  const std::vector<std::vector<int>> iteration = iterations_of(work);
  // The analytic level runs each class of ranks once (a stage's ranks at nominal speed: one class); a compute
  // task of a class stretches by its representative's factor in the task's iteration and its speed profile, and
  // its collectives join the classes of its groups. The schedule also proves the graph free of cycles before
  // SimGrid could deadlock on one.
  const RankClasses classes = classes_of(s, placement, work.graph, analytic ? slowdown : Slowdown());
  taskgraph::ScheduleOptions options;
  options.overlap_slowdown = s.gpu.overlap_slowdown;
  if (analytic && slowdown) {
    std::int64_t run_tasks = 0;
    for (const int rank : classes.representative)
      run_tasks += static_cast<std::int64_t>(work.graph.programs[role_of(rank)].tasks.size());
    if (const std::string note = long_run_note(s, refuse_oversized_classes(s, run_tasks, core::read_process_limits()));
        !note.empty() && notes)
      notes(note);
    options.instances = classes.instances;
    options.meetings = classes.meetings;
    options.compute_end = [&](int run, const Task& t, double start_s, const std::vector<taskgraph::Span>& busy) {
      const int rank = classes.representative[static_cast<std::size_t>(run)];
      const auto& tasks = work.graph.programs[role_of(rank)].tasks;
      const int it = iteration[role_of(rank)][static_cast<std::size_t>(&t - tasks.data())];  // t is one of them
      static const std::vector<taskgraph::Span> none;
      return slowdown.profile(rank).finish_s(start_s, t.duration_s * slowdown.factor(rank, it),
                                             options.overlap_slowdown != 1 ? busy : none, options.overlap_slowdown);
    };
  }
  taskgraph::GraphSchedule schedule = taskgraph::list_schedule(
      work.graph, [&](int role, const Task& t) { return costs(role, t); }, options);
  Timeline timeline;
  if (analytic) {
    std::vector<WorkerTraffic> stage_traffic(work.stages.size());
    for (std::size_t r = 0; r < work.stages.size(); ++r)
      for (const Task& t : work.graph.programs[r].tasks) {
        if (t.op == Op::recv) {
          stage_traffic[r].bytes_received +=
              work.graph.programs[static_cast<std::size_t>(t.peer)].tasks[static_cast<std::size_t>(t.match)].bytes;
        } else if (t.op != Op::compute) {
          const collectives::RankTraffic x = costs.traffic(static_cast<int>(r), t);
          stage_traffic[r].bytes_sent += x.sent;
          stage_traffic[r].bytes_received += x.received;
        }
      }
    timeline = timeline_of(
        s, work, placement,
        [&](int rank) -> const std::vector<taskgraph::Span>& {
          return schedule.spans[static_cast<std::size_t>(classes.class_of[static_cast<std::size_t>(rank)])];
        },
        [&](int rank) { return stage_traffic[role_of(rank)]; });
  } else {
    const double cpu_s = graph_cpu_s_of(s, work.graph, placement, costs);
    const actors::GraphRanks ranks = graph_ranks(s, work.graph, placement, costs);
    refuse_oversized(s, layout_actors(work.graph, ranks.role, ranks.helper_actors), core::read_process_limits(),
                     s.fidelity == scenario::Fidelity::flow ? "strategy.fidelity = \"analytic\", or fewer workers"
                                                            : "strategy.fidelity = \"flow\" or \"analytic\", or fewer workers",
                     cpu_s);
    if (const std::string note = long_run_note(s, cpu_s); !note.empty() && notes) notes(note);
    actors::GraphRunOptions how;
    how.fuse = s.fidelity == scenario::Fidelity::flow;
    how.overlap_slowdown = s.gpu.overlap_slowdown;
    if (slowdown) how.speed = &slowdown, how.iteration_of = iteration;
    for (const scenario::Failure& f : s.failures) how.failures.push_back({f.at_s, f.worker, f.link, f.duration_s});
    actors::GraphRun run = actors::simulate_graph(s.platform, work.graph, ranks, std::move(how));
    timeline = timeline_of(
        s, work, placement,
        [&](int rank) -> const std::vector<taskgraph::Span>& { return run.spans[static_cast<std::size_t>(rank)]; },
        [&](int rank) { return run.traffic[static_cast<std::size_t>(rank)]; });
    timeline.failures = std::move(run.outcome.failures);
    timeline.out = std::move(run.outcome.out);
    timeline.stopped = std::move(run.outcome.stopped);
    timeline.stopped_at_s = run.outcome.stopped_at_s;
    // The critical path through the representatives' simulated spans, of the iterations every rank completed (a
    // failure may have stopped the job in the middle of one).
    std::size_t completed = static_cast<std::size_t>(s.iterations);
    for (const auto& marks : timeline.marks) completed = std::min(completed, marks.size());  // each some rank's
    std::vector<std::vector<taskgraph::Span>> representatives;
    for (int stage = 0; stage < l.pipeline; ++stage) {
      std::vector<taskgraph::Span>& spans =
          representatives.emplace_back(run.spans[static_cast<std::size_t>(placement.representative(stage))]);
      for (std::size_t i = 0; i < spans.size(); ++i)
        if (static_cast<std::size_t>(iteration[static_cast<std::size_t>(stage)][i]) >= completed) spans[i] = {0, -1};
    }
    schedule = taskgraph::with_bindings(work.graph, std::move(representatives));
  }

  double single_worker_s = 0;
  for (const models::LayerTime& t : models::layer_times(s.model, s.gpu, s.batch_size, s.precision, s.measured_iteration_s,
                                                         models::optimizer(s.memory.optimizer), 1, s.fp8_recipe))
    single_worker_s += t.forward_s + t.backward_s + t.update_s;
  RunInfo info = scenario_info(s);
  info.sync = sync::describe(s.sync);
  info.architecture = fmt::format(
      "{} ({}{}{}{}), micro-batch {} x {}", parallel::extents_name(l),
      l.pipeline > 1 ? l.schedule + (l.virtual_stages > 1 ? fmt::format(" {} chunks", l.virtual_stages) : "") : "no pipeline",
      l.sequence_parallel ? ", sequence parallel" : "", l.context > 1 ? ", context " + l.context_comm : "",
      l.sharding == parallel::Sharding::none ? "" : ", sharding " + std::string(parallel::sharding_name(l.sharding)),
      l.micro_batch, scenario::micro_batches(s));
  if (data_meeting(s) != parallel::ExchangeFragment::Kind::collective)
    info.architecture = architecture_named(s.architecture).describe(s) + " on the data dimension, " + info.architecture;
  if (!l.layers_per_stage.empty())
    info.architecture += fmt::format("; layers per {} {}", l.virtual_stages > 1 ? "chunk" : "stage",
                                     fmt::join(l.layers_per_stage, "/"));
  if (const std::string rule = measured_times_rule(s); !rule.empty()) info.architecture += "; " + rule;
  info.replicas = l.data;
  info.buckets = 0;
  for (const parallel::StagePlan& stage : work.stages) info.buckets += static_cast<std::int64_t>(stage.exchanges.buckets.size());
  info.compression = *compression_note;
  info.collective_launch_s = costs.collectives().launch_s(Op::allreduce, s.workers);
  const std::vector<IterationMarks> worker0 = timeline.worker_marks(0);
  RunResult result = assemble_result(std::move(info), std::move(timeline), single_worker_s, s.workers);
  if (!result.iterations.empty()) {
    // Worker 0 is the first rank of stage 0: its layers are those of stage 0's units.
    std::vector<int> layers;
    for (const std::vector<int>& chunk : work.stages.front().chunks)
      for (int u : chunk)
        for (int layer = work.units[static_cast<std::size_t>(u)].first_layer;
             layer < work.units[static_cast<std::size_t>(u)].end_layer; ++layer)
          layers.push_back(layer);
    const PassShares shares =
        pass_shares(models::layer_class_times(s.model, s.gpu, l.micro_batch, s.precision,
                                              models::optimizer(s.memory.optimizer), l.tensor, s.fp8_recipe),
                    layers, static_cast<double>(l.micro_batch) / s.batch_size);
    const std::size_t last = result.iterations.size() - 1;
    result.time_by_class =
        time_by_class(result.iterations[last].per_worker.front(), shares, worker0[last].bubble_s);
  }
  const double last_start = result.iterations.empty() ? 0.0 : result.iterations.back().start_s;
  for (const taskgraph::TaskRef& at : schedule.critical_path()) {
    if (schedule.spans[static_cast<std::size_t>(at.role)][static_cast<std::size_t>(at.task)].start_s < last_start) continue;
    const Task& t = schedule.task(work.graph, at);
    const taskgraph::Span& span = schedule.spans[static_cast<std::size_t>(at.role)][static_cast<std::size_t>(at.task)];
    // A receive posted before its send ended waits on the path only from the end of the task before it.
    const double start = result.critical_path.empty() ? span.start_s
                                                       : std::max(span.start_s, result.critical_path.back().end_s);
    result.critical_path.push_back({classes.representative[static_cast<std::size_t>(at.role)], taskgraph::stream_name(t.stream), t.name, t.category,
                                    start, span.end_s, t.bytes, {}});
  }
  std::vector<double> link_bytes(static_cast<std::size_t>(fabric.link_count()), 0.0);
  costs.add_links(work.graph, link_bytes);
  for (double& b : link_bytes) b /= s.iterations;
  result.links = link_uses(link_bytes, fabric, result.mean_iteration_s);
  result.memory = std::move(memory);
  set_utilisation(s, result);
  return result;
}

}  // namespace dtsim::run
