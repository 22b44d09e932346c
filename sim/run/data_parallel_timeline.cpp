#include "sim/run/data_parallel_timeline.hpp"

#include <algorithm>
#include <map>

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
                                const CostsOf& costs_of, int workers, int iterations, int trace_workers,
                                const sync::SyncPolicy& sync, const Slowdown& slowdown, const CommOverlap& overlap,
                                LastIterationGraph* last) {
  DTSIM_CHECK(sync.exchanges_in_flight() == 0, "the loader keeps exchanges in flight off the analytic level");
  Timeline timeline;
  const auto W = static_cast<std::size_t>(workers);
  timeline.marks.assign(W, {});
  timeline.traffic.assign(W, {});
  const auto traced = static_cast<std::size_t>(std::clamp(trace_workers, 0, workers));
  // Workers that start an iteration together and compute at nominal speed in it run the same timeline, bit for
  // bit: the graph runs once for all of them (one instance), and once for each other worker.
  std::vector<double> start(W, 0.0);
  std::vector<std::size_t> run_of(W, 0);
  std::vector<std::size_t> representative;  // per run: its first worker
  std::vector<double> factor;               // per run: its work factor in this iteration
  taskgraph::ScheduleOptions options;
  static const std::vector<taskgraph::Span> none;
  // Compute on the compute stream stretches with the worker's speed and, inside its exchanges, by the overlap
  // slowdown; compression on the data stream runs at its measured time.
  options.compute_end = [&](int run, const Task& t, double start_s, const std::vector<taskgraph::Span>& busy) {
    if (t.stream != Stream::compute) return start_s + t.duration_s;
    const auto r = static_cast<std::size_t>(run);
    return slowdown.profile(static_cast<int>(representative[r]))
        .finish_s(start_s, t.duration_s * factor[r], overlap.slowdown != 1 ? busy : none, overlap.slowdown);
  };
  const std::vector<BucketCost>* costs = nullptr;  // the iteration's
  const auto cost = [&](int, const Task& t) { return (*costs)[static_cast<std::size_t>(t.item)].time_s; };
  std::vector<char> takes_part(W);
  for (int it = 0; it < iterations; ++it) {
    const bool exchanges = sync.exchanges(it);
    costs = &costs_of(it);
    std::fill(takes_part.begin(), takes_part.end(), 0);
    for (const int w : sync.participants(workers, it)) takes_part[static_cast<std::size_t>(w)] = 1;
    representative.clear();
    factor.clear();
    std::map<double, std::size_t> nominal_run;  // by start time
    for (std::size_t w = 0; w < W; ++w) {
      if (!takes_part[w]) continue;
      const double f = slowdown ? slowdown.factor(static_cast<int>(w), it) : 1.0;
      if (f == 1.0 && slowdown.profile(static_cast<int>(w)).nominal()) {
        const auto [at, fresh] = nominal_run.try_emplace(start[w], representative.size());
        run_of[w] = at->second;
        if (!fresh) continue;
      } else {
        run_of[w] = representative.size();
      }
      representative.push_back(w);
      factor.push_back(f);
    }
    options.instances = {static_cast<int>(representative.size())};
    options.start_s.clear();
    for (const std::size_t w : representative) options.start_s.push_back(start[w]);
    const taskgraph::TaskGraph& graph = exchanges ? exchanging : local;
    taskgraph::GraphSchedule schedule = taskgraph::list_schedule(graph, cost, options);
    const auto& tasks = graph.programs[0].tasks;
    for (std::size_t w = 0; w < traced; ++w) {
      if (!takes_part[w]) continue;
      const auto& spans = schedule.spans[run_of[w]];
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        const Task& t = tasks[i];
        std::int64_t bytes = t.op == Op::compute ? 0 : (*costs)[static_cast<std::size_t>(t.item)].payload_bytes;
        timeline.events.push_back({static_cast<int>(w), parallel::data_parallel_lane(t), t.name, t.category,
                                   spans[i].start_s, spans[i].end_s, bytes});
      }
    }
    // A run's workers start together, so its marks are theirs. A worker that sits the iteration out has an empty
    // one where it stands, and is free when the last participant ends it.
    std::vector<IterationMarks> marks;
    double last_end = 0;
    for (std::size_t run = 0; run < representative.size(); ++run) {
      marks.push_back(marks_of(graph.programs[0], schedule.spans[run], options.start_s[run]));
      last_end = std::max(last_end, marks.back().end_s);
    }
    for (std::size_t w = 0; w < W; ++w) {
      if (!takes_part[w]) {
        timeline.marks[w].push_back({.start_s = start[w], .end_s = start[w]});
        continue;
      }
      timeline.marks[w].push_back(marks[run_of[w]]);
      start[w] = timeline.marks[w].back().end_s;
      if (!exchanges) continue;
      for (const BucketCost& c : *costs) {
        timeline.traffic[w].bytes_sent += c.traffic[w].sent;
        timeline.traffic[w].bytes_received += c.traffic[w].received;
      }
    }
    for (std::size_t w = 0; w < W; ++w)
      if (!takes_part[w]) start[w] = std::max(start[w], last_end);
    if (last && it + 1 == iterations)
      *last = {graph, std::move(schedule), std::vector<int>(representative.begin(), representative.end())};
  }
  return timeline;
}

}  // namespace dtsim::run
