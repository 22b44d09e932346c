#include "sim/run/data_parallel_timeline.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/parallel/data_parallel.hpp"

namespace dtsim::run {

namespace {

using taskgraph::Op;
using taskgraph::Stream;
using taskgraph::Task;

/// A worker's marks from its run of an iteration graph: the compute stream's forward, backward, waiting and step.
IterationMarks marks_of(const taskgraph::Program& program, const std::vector<taskgraph::Span>& spans,
                        double start_s) {
  IterationMarks m;
  m.start_s = start_s;
  double forward_end = start_s, backward_end = start_s;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    if (t.stream != Stream::compute) continue;
    if (t.category == "forward") forward_end = backward_end = spans[i].end_s;
    if (t.category == "backward") backward_end = spans[i].end_s;
    if (t.category != "update") continue;
    m.comm_wait_s = std::max(0.0, spans[i].start_s - backward_end);
    m.update_s = spans[i].end_s - spans[i].start_s;
    m.end_s = spans[i].end_s;
  }
  m.forward_s = forward_end - start_s;
  m.backward_s = backward_end - forward_end;
  return m;
}

}  // namespace

Timeline data_parallel_timeline(const taskgraph::TaskGraph& exchanging, const taskgraph::TaskGraph& local,
                                const std::vector<BucketCost>& costs, int workers, int iterations, int trace_workers,
                                const sync::SyncPolicy& sync, const Slowdown& slowdown, const CommOverlap& overlap,
                                LastIterationGraph* last) {
  Timeline timeline;
  const auto W = static_cast<std::size_t>(workers);
  timeline.marks.assign(W, {});
  timeline.traffic.assign(W, {});
  // Without stragglers every worker runs the same timeline, bit for bit: the graph runs once and the others copy
  // worker 0's marks and events.
  const auto traced = static_cast<std::size_t>(std::clamp(trace_workers, 0, workers));
  const std::size_t instances = slowdown ? W : 1;
  std::vector<collectives::RankTraffic> exchange_traffic(W);  // of one exchanging iteration
  for (const BucketCost& cost : costs)
    for (std::size_t w = 0; w < W; ++w) {
      exchange_traffic[w].sent += cost.traffic[w].sent;
      exchange_traffic[w].received += cost.traffic[w].received;
    }
  taskgraph::ScheduleOptions options;
  options.instances = {static_cast<int>(instances)};
  options.start_s.assign(instances, 0.0);
  static const std::vector<taskgraph::Span> none;
  int it = 0;
  // Compute on the compute stream stretches with the worker's speed and, inside its exchanges, by the overlap
  // slowdown; compression on the data stream runs at its measured time.
  options.compute_end = [&](int run, const Task& t, double start_s, const std::vector<taskgraph::Span>& busy) {
    if (t.stream != Stream::compute) return start_s + t.duration_s;
    return slowdown.profile(run).finish_s(start_s, t.duration_s * slowdown.factor(run, it),
                                          overlap.slowdown != 1 ? busy : none, overlap.slowdown);
  };
  const auto cost = [&](int, const Task& t) { return costs[static_cast<std::size_t>(t.item)].time_s; };
  for (; it < iterations; ++it) {
    const bool exchanges = sync.exchanges(it);
    const taskgraph::TaskGraph& graph = exchanges ? exchanging : local;
    taskgraph::GraphSchedule schedule = taskgraph::list_schedule(graph, cost, options);
    const auto& tasks = graph.programs[0].tasks;
    for (std::size_t w = 0; w < traced; ++w) {
      const auto& spans = schedule.spans[std::min(w, instances - 1)];
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        const Task& t = tasks[i];
        std::int64_t bytes = t.op == Op::compute ? 0 : costs[static_cast<std::size_t>(t.item)].payload_bytes;
        timeline.events.push_back({static_cast<int>(w), parallel::data_parallel_lane(t), t.name, t.category, spans[i].start_s, spans[i].end_s, bytes});
      }
    }
    for (std::size_t w = 0; w < W; ++w) {
      const std::size_t run = std::min(w, instances - 1);
      timeline.marks[w].push_back(marks_of(graph.programs[0], schedule.spans[run], options.start_s[run]));
      if (!exchanges) continue;
      timeline.traffic[w].bytes_sent += exchange_traffic[w].sent;
      timeline.traffic[w].bytes_received += exchange_traffic[w].received;
    }
    for (std::size_t run = 0; run < instances; ++run) options.start_s[run] = timeline.marks[run].back().end_s;
    if (last && it + 1 == iterations) *last = {graph, std::move(schedule)};
  }
  return timeline;
}

}  // namespace dtsim::run
