#include "sim/run/critical_path.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/parallel/data_parallel.hpp"

namespace dtsim::run {
namespace {

constexpr double kTimeEpsilon = 1e-12;

/// Length of [a_start, a_end] covered by the gaps between consecutive compute tasks.
double overlap_with_gaps(double start, double end, const std::vector<std::pair<double, double>>& gaps) {
  double covered = 0;
  for (const auto& [gap_start, gap_end] : gaps) covered += std::max(0.0, std::min(end, gap_end) - std::max(start, gap_start));
  return covered;
}

/// The chain of tasks that ended the last iteration: its critical path, or, when a task an earlier iteration left
/// in flight ends after all of its own (an exchange that nothing waited for), that task, with which it ends.
std::vector<taskgraph::TaskRef> ended_by(const taskgraph::GraphSchedule& schedule) {
  std::vector<taskgraph::TaskRef> path = schedule.critical_path();
  double end = path.empty() ? 0.0 : schedule.span(path.back()).end_s;
  for (std::size_t run = 0; run < schedule.carried.size(); ++run)
    for (std::size_t k = 0; k < taskgraph::kStreams; ++k)
      if (const auto& tail = schedule.carried[run].stream_tail[k]; tail && tail->span.end_s > end) {
        end = tail->span.end_s;
        path = {{static_cast<int>(run), static_cast<int>(k), taskgraph::Earlier::stream}};
      }
  return path;
}

}  // namespace

LastIteration analyse_iteration_graph(const taskgraph::TaskGraph& graph, const taskgraph::GraphSchedule& schedule,
                                      std::size_t buckets, const std::vector<int>& worker_of_run) {
  LastIteration result;
  if (schedule.spans.empty() || schedule.spans[0].empty()) return result;
  for (const taskgraph::TaskRef& at : ended_by(schedule)) {
    const taskgraph::Task& t = schedule.task(graph, at);
    const taskgraph::Span span = schedule.span(at);
    const int worker = worker_of_run.empty() ? at.role : worker_of_run[static_cast<std::size_t>(at.role)];
    result.critical_path.push_back({worker, parallel::data_parallel_lane(t), t.name, t.category, span.start_s,
                                    span.end_s, t.op == taskgraph::Op::compute ? 0 : t.bytes, {}});
  }
  const auto& tasks = graph.programs[static_cast<std::size_t>(schedule.role_of_run[0])].tasks;
  const auto& spans = schedule.spans[0];
  // The gaps: between consecutive compute tasks, and after the last until the iteration's last task ends (an
  // exchange still in flight at the end of the run, which the iteration waits for).
  std::vector<std::pair<double, double>> gaps;
  int before = -1;
  double end = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    end = std::max(end, spans[i].end_s);
    if (tasks[i].stream != taskgraph::Stream::compute) continue;
    if (before >= 0 && spans[i].start_s > spans[static_cast<std::size_t>(before)].end_s + kTimeEpsilon)
      gaps.emplace_back(spans[static_cast<std::size_t>(before)].end_s, spans[i].start_s);
    before = static_cast<int>(i);
  }
  if (before >= 0 && end > spans[static_cast<std::size_t>(before)].end_s + kTimeEpsilon)
    gaps.emplace_back(spans[static_cast<std::size_t>(before)].end_s, end);
  // A bucket's exchange of this run and, still in flight in it, of the program's previous run.
  const std::vector<taskgraph::Span>* previous =
      schedule.carried.empty() || schedule.carried[0].previous.empty() ? nullptr : &schedule.carried[0].previous;
  result.exposed_comm_per_bucket_s.assign(buckets, 0.0);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].op == taskgraph::Op::compute) continue;
    double& exposed = result.exposed_comm_per_bucket_s[static_cast<std::size_t>(tasks[i].item)];
    exposed += overlap_with_gaps(spans[i].start_s, spans[i].end_s, gaps);  // a push and its pull: both
    if (previous) exposed += overlap_with_gaps((*previous)[i].start_s, (*previous)[i].end_s, gaps);
  }
  return result;
}

LastIterationGraph simulated_last_iteration(const taskgraph::TaskGraph& graph, std::vector<taskgraph::Span> spans,
                                            bool carried) {
  DTSIM_CHECK(graph.programs.size() == 1, "a data-parallel iteration is one program");
  taskgraph::Program program = taskgraph::with_epilogue(graph.programs[0]);
  DTSIM_CHECK(spans.size() == program.tasks.size(), "a span per task of the iteration and its epilogue");
  std::vector<char> drop(program.tasks.size(), 0);
  for (std::size_t i = 0; i < program.tasks.size(); ++i) drop[i] = program.tasks[i].carried && !carried;
  std::vector<int> kept;
  program = taskgraph::without(program, drop, kept);
  std::vector<taskgraph::Span> ran;
  for (int i : kept) ran.push_back(spans[static_cast<std::size_t>(i)]);
  LastIterationGraph last;
  last.graph.programs = {std::move(program)};
  last.schedule = taskgraph::with_bindings(last.graph, {std::move(ran)});
  return last;
}

}  // namespace dtsim::run
