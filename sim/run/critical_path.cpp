#include "sim/run/critical_path.hpp"

#include <algorithm>
#include <map>

#include <boost/graph/adjacency_list.hpp>

#include "sim/parallel/data_parallel.hpp"
#include "sim/results/trace_names.hpp"

namespace dtsim::run {
namespace {

using Dag = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
constexpr double kTimeEpsilon = 1e-12;

/// Length of [a_start, a_end] covered by the gaps between consecutive compute tasks.
double overlap_with_gaps(double start, double end, const std::vector<std::pair<double, double>>& gaps) {
  double covered = 0;
  for (const auto& [gap_start, gap_end] : gaps) covered += std::max(0.0, std::min(end, gap_end) - std::max(start, gap_start));
  return covered;
}

}  // namespace

LastIteration analyse_last_iteration(const scheduling::IterationPlan& plan, const Timeline& timeline, int worker) {
  LastIteration result;
  const auto& marks = timeline.marks[static_cast<std::size_t>(worker)];
  if (marks.empty()) return result;
  const IterationMarks& span = marks.back();
  const int iteration = static_cast<int>(marks.size()) - 1;

  std::vector<TraceEvent> tasks;  // compute tasks of the span in order, then one all-reduce per bucket
  std::vector<TraceEvent> mine;
  for (const TraceEvent& e : timeline.events)
    if (e.worker == worker) mine.push_back(e);
  std::stable_sort(mine.begin(), mine.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.start_s < b.start_s; });
  for (const TraceEvent& e : mine)
    if (e.lane == "compute" && e.start_s >= span.start_s - kTimeEpsilon && e.end_s <= span.end_s + kTimeEpsilon)
      tasks.push_back(e);
  const std::size_t compute_tasks = tasks.size();
  std::map<std::string, int> occurrences;
  std::vector<int> comm_vertex(plan.buckets.size(), -1);
  for (const TraceEvent& e : mine) {
    if (e.lane != "comm" || occurrences[e.name]++ != iteration) continue;
    for (std::size_t b = 0; b < plan.buckets.size(); ++b)
      if (e.name == bucket_event(static_cast<int>(b))) comm_vertex[b] = static_cast<int>(tasks.size());
    tasks.push_back(e);
  }

  Dag dag(tasks.size());
  auto find_compute = [&](const std::string& name, std::size_t from) -> int {
    for (std::size_t i = from; i < compute_tasks; ++i)
      if (tasks[i].name == name) return static_cast<int>(i);
    return -1;
  };
  for (std::size_t i = 1; i < compute_tasks; ++i) boost::add_edge(i - 1, i, dag);
  const int backward_start = find_compute(backward_event(plan.layers.back()), 0);
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    const int v = comm_vertex[b];
    if (v < 0) continue;
    const auto& layer = plan.layers[static_cast<std::size_t>(plan.buckets[b].ready_layer)];
    if (const int producer = find_compute(backward_event(layer), 0); producer >= 0) boost::add_edge(producer, v, dag);
    if (plan.credit_bytes == 0 && b > 0 && comm_vertex[b - 1] >= 0) boost::add_edge(comm_vertex[b - 1], v, dag);
    // The update that applies this bucket: BSP's single update, or this layer's update after backward.
    const std::string update = plan.credit_bytes == 0 ? "update" : "update " + layer.name;
    if (const int consumer = find_compute(update, static_cast<std::size_t>(std::max(backward_start, 0)));
        consumer >= 0)
      boost::add_edge(v, consumer, dag);
  }

  // Walk back from the last compute task through the predecessor that ended last.
  std::vector<TraceEvent> path;
  int v = static_cast<int>(compute_tasks) - 1;
  while (v >= 0) {
    path.push_back(tasks[static_cast<std::size_t>(v)]);
    int binding = -1;
    for (auto [e, end] = boost::in_edges(v, dag); e != end; ++e) {
      const int u = static_cast<int>(boost::source(*e, dag));
      if (binding < 0 || tasks[static_cast<std::size_t>(u)].end_s > tasks[static_cast<std::size_t>(binding)].end_s + kTimeEpsilon)
        binding = u;
    }
    v = binding;
  }
  std::reverse(path.begin(), path.end());
  result.critical_path = std::move(path);

  std::vector<std::pair<double, double>> gaps;
  for (std::size_t i = 1; i < compute_tasks; ++i)
    if (tasks[i].start_s > tasks[i - 1].end_s + kTimeEpsilon) gaps.emplace_back(tasks[i - 1].end_s, tasks[i].start_s);
  result.exposed_comm_per_bucket_s.assign(plan.buckets.size(), 0.0);
  for (std::size_t b = 0; b < plan.buckets.size(); ++b)
    if (comm_vertex[b] >= 0) {
      const TraceEvent& e = tasks[static_cast<std::size_t>(comm_vertex[b])];
      result.exposed_comm_per_bucket_s[b] = overlap_with_gaps(e.start_s, e.end_s, gaps);
    }
  return result;
}

LastIteration analyse_iteration_graph(const taskgraph::TaskGraph& graph, const taskgraph::GraphSchedule& schedule,
                                      std::size_t buckets, const std::vector<int>& worker_of_run) {
  LastIteration result;
  if (schedule.spans.empty() || schedule.spans[0].empty()) return result;
  auto task_of = [&](const taskgraph::TaskRef& at) -> const taskgraph::Task& {
    return graph.programs[static_cast<std::size_t>(schedule.role_of_run[static_cast<std::size_t>(at.role)])]
        .tasks[static_cast<std::size_t>(at.task)];
  };
  for (const taskgraph::TaskRef& at : schedule.critical_path()) {
    const taskgraph::Task& t = task_of(at);
    const taskgraph::Span& span = schedule.spans[static_cast<std::size_t>(at.role)][static_cast<std::size_t>(at.task)];
    const int worker = worker_of_run.empty() ? at.role : worker_of_run[static_cast<std::size_t>(at.role)];
    result.critical_path.push_back({worker, parallel::data_parallel_lane(t), t.name, t.category, span.start_s,
                                    span.end_s, t.op == taskgraph::Op::compute ? 0 : t.bytes});
  }
  const auto& tasks = graph.programs[static_cast<std::size_t>(schedule.role_of_run[0])].tasks;
  const auto& spans = schedule.spans[0];
  std::vector<std::pair<double, double>> gaps;
  int before = -1;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].stream != taskgraph::Stream::compute) continue;
    if (before >= 0 && spans[i].start_s > spans[static_cast<std::size_t>(before)].end_s + kTimeEpsilon)
      gaps.emplace_back(spans[static_cast<std::size_t>(before)].end_s, spans[i].start_s);
    before = static_cast<int>(i);
  }
  result.exposed_comm_per_bucket_s.assign(buckets, 0.0);
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].op != taskgraph::Op::compute)
      result.exposed_comm_per_bucket_s[static_cast<std::size_t>(tasks[i].item)] =
          overlap_with_gaps(spans[i].start_s, spans[i].end_s, gaps);
  return result;
}

}  // namespace dtsim::run
