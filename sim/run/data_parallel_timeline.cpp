#include "sim/run/data_parallel_timeline.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <memory>

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

/// The tasks of `program` that its dependencies on its previous run wait for.
std::vector<int> awaited_from_previous(const taskgraph::TaskGraph& graph) {
  std::vector<int> awaited;
  if (graph.programs.empty()) return awaited;
  for (const Task& t : graph.programs[0].tasks)
    for (const taskgraph::Dep& d : t.deps)
      if (d.previous) awaited.push_back(d.task);
  std::sort(awaited.begin(), awaited.end());
  awaited.erase(std::unique(awaited.begin(), awaited.end()), awaited.end());
  return awaited;
}

/// What decides a nominal worker's run of an iteration besides its graph: its start and what its earlier runs
/// left it that can still matter from there (a stream's tail, a communication span, the previous run's tasks the
/// graph waits for). Workers with the same key run the same timeline.
std::vector<double> run_key(double start_s, const taskgraph::Carried& carried,
                            const std::vector<taskgraph::Span>* previous, const std::vector<int>& awaited) {
  std::vector<double> key = {start_s};
  for (const auto& tail : carried.stream_tail) key.push_back(tail ? std::max(tail->span.end_s, start_s) : start_s);
  key.push_back(previous ? 1.0 : 0.0);
  if (previous)
    for (const int i : awaited) key.push_back((*previous)[static_cast<std::size_t>(i)].end_s);
  for (const taskgraph::Span& c : carried.communication)
    if (c.end_s > start_s) key.insert(key.end(), {std::max(c.start_s, start_s), c.end_s});
  return key;
}

}  // namespace

Timeline data_parallel_timeline(const taskgraph::TaskGraph& exchanging, const taskgraph::TaskGraph& local,
                                const CostsOf& costs_of, const TrafficOf& traffic_of, int workers, int iterations, int trace_workers,
                                const sync::SyncPolicy& sync, const Slowdown& slowdown, const CommOverlap& overlap,
                                LastIterationGraph* last) {
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
  const auto cost = [&](int, const Task& t) {
    const BucketCost& c = (*costs)[static_cast<std::size_t>(t.item)];
    return t.op == Op::pull ? c.pull_s : c.time_s;
  };
  std::vector<char> takes_part(W);
  // Per worker, what its runs so far leave the next (an exchange still in flight) and, per graph, the spans of
  // its last run of it where the graph waits for them (shared by the workers of a run).
  using Spans = std::vector<taskgraph::Span>;
  std::vector<std::shared_ptr<const taskgraph::Carried>> carry(W, std::make_shared<const taskgraph::Carried>());
  std::array<std::vector<std::shared_ptr<const Spans>>, 2> previous;  // [exchanging, local][worker]
  previous.fill(std::vector<std::shared_ptr<const Spans>>(W));
  const std::array<std::vector<int>, 2> awaited = {awaited_from_previous(exchanging), awaited_from_previous(local)};
  for (int it = 0; it < iterations; ++it) {
    const bool exchanges = sync.exchanges(it);
    const std::size_t g = exchanges ? 0 : 1;
    costs = &costs_of(it);
    const std::vector<collectives::RankTraffic>& traffic = traffic_of(it);
    std::fill(takes_part.begin(), takes_part.end(), 0);
    for (const int w : sync.participants(workers, it)) takes_part[static_cast<std::size_t>(w)] = 1;
    representative.clear();
    factor.clear();
    std::map<std::vector<double>, std::size_t> nominal_run;  // by run_key
    for (std::size_t w = 0; w < W; ++w) {
      if (!takes_part[w]) continue;
      const double f = slowdown ? slowdown.factor(static_cast<int>(w), it) : 1.0;
      if (f == 1.0 && slowdown.profile(static_cast<int>(w)).nominal()) {
        const auto [at, fresh] = nominal_run.try_emplace(run_key(start[w], *carry[w], previous[g][w].get(), awaited[g]),
                                                         representative.size());
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
    options.carried.clear();
    const bool carries = std::any_of(representative.begin(), representative.end(),
                                     [&](std::size_t w) { return !carry[w]->empty() || previous[g][w]; });
    for (const std::size_t w : representative) {
      options.start_s.push_back(start[w]);
      if (!carries) continue;
      options.carried.push_back(*carry[w]);
      if (previous[g][w]) options.carried.back().previous = *previous[g][w];
    }
    const taskgraph::TaskGraph& graph = exchanges ? exchanging : local;
    taskgraph::GraphSchedule schedule = taskgraph::list_schedule(graph, cost, options);
    const auto& tasks = graph.programs[0].tasks;
    for (std::size_t w = 0; w < traced; ++w) {
      if (!takes_part[w]) continue;
      const auto& spans = schedule.spans[run_of[w]];
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        const Task& t = tasks[i];
        TraceEvent& e = timeline.events.emplace_back(TraceEvent{static_cast<int>(w), parallel::data_parallel_lane(t),
                                                                t.name, t.category, spans[i].start_s, spans[i].end_s, 0, {}});
        if (t.op == Op::compute) continue;
        e.bytes = (*costs)[static_cast<std::size_t>(t.item)].payload_bytes;
        const BucketCost& c = (*costs)[static_cast<std::size_t>(t.item)];
        e.latency_s = t.op == Op::pull ? c.pull_latency_s : c.latency_s;
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
    std::vector<std::shared_ptr<const taskgraph::Carried>> left;  // per run
    std::vector<std::shared_ptr<const Spans>> ran;                  // per run, where the graph's next run awaits it
    for (std::size_t run = 0; run < representative.size(); ++run) {
      left.push_back(std::make_shared<const taskgraph::Carried>(taskgraph::carry_over(
          graph, schedule, static_cast<int>(run), *carry[representative[run]], marks[run].end_s)));
      ran.push_back(awaited[g].empty() ? nullptr : std::make_shared<const Spans>(schedule.spans[run]));
    }
    for (std::size_t w = 0; w < W; ++w) {
      if (!takes_part[w]) {
        timeline.marks[w].push_back({.start_s = start[w], .end_s = start[w]});
        continue;
      }
      timeline.marks[w].push_back(marks[run_of[w]]);
      carry[w] = left[run_of[w]];
      previous[g][w] = ran[run_of[w]];
      start[w] = timeline.marks[w].back().end_s;
      if (!exchanges) continue;
      if (!traffic.empty()) {
        timeline.traffic[w].bytes_sent += traffic[w].sent;
        timeline.traffic[w].bytes_received += traffic[w].received;
      }
      for (const BucketCost& c : *costs) {
        if (c.traffic.empty()) continue;
        timeline.traffic[w].bytes_sent += c.traffic[w].sent;
        timeline.traffic[w].bytes_received += c.traffic[w].received;
      }
    }
    for (std::size_t w = 0; w < W; ++w)
      if (!takes_part[w]) start[w] = std::max(start[w], last_end);
    if (last && it + 1 == iterations)
      *last = {graph, std::move(schedule), std::vector<int>(representative.begin(), representative.end())};
  }
  // What is still in flight when the run ends (an exchange that nothing waited for) belongs to the last
  // iteration, which ends with it.
  for (std::size_t w = 0; w < W; ++w) {
    if (timeline.marks[w].empty()) continue;
    IterationMarks& m = timeline.marks[w].back();
    for (const auto& tail : carry[w]->stream_tail)
      if (tail && tail->span.end_s > m.end_s) {
        m.comm_wait_s += tail->span.end_s - m.end_s;
        m.end_s = tail->span.end_s;
      }
  }
  return timeline;
}

}  // namespace dtsim::run
