#include "sim/taskgraph/list_schedule.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <iterator>
#include <map>

#include "sim/core/error.hpp"

namespace dtsim::taskgraph {

double GraphSchedule::makespan_s() const {
  double end = 0;
  for (const auto& role : spans)
    for (const Span& s : role) end = std::max(end, s.end_s);
  return end;
}

std::vector<TaskRef> GraphSchedule::critical_path() const {
  TaskRef last{-1, -1};
  double end = -1;
  for (std::size_t r = 0; r < spans.size(); ++r)
    for (std::size_t i = 0; i < spans[r].size(); ++i)
      if (spans[r][i].end_s > end) {
        end = spans[r][i].end_s;
        last = {static_cast<int>(r), static_cast<int>(i)};
      }
  std::vector<TaskRef> path;
  for (TaskRef at = last; at.role >= 0;
       at = binding[static_cast<std::size_t>(at.role)][static_cast<std::size_t>(at.task)])
    path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

/// The union of a role's communication spans, as start -> end of disjoint intervals.
class BusySpans {
 public:
  void add(double start, double end) {
    if (!(end > start)) return;
    auto at = spans_.upper_bound(start);
    if (at != spans_.begin() && std::prev(at)->second >= start) {
      --at;
      start = at->first;
      end = std::max(end, at->second);
      at = spans_.erase(at);
    }
    while (at != spans_.end() && at->first <= end) {
      end = std::max(end, at->second);
      at = spans_.erase(at);
    }
    spans_.emplace(start, end);
  }
  /// When `work_s` of computation started at `start` ends, slowed by `slowdown` inside the spans.
  double finish(double start, double work_s, double slowdown) const {
    double now = start, left = work_s;
    auto at = spans_.upper_bound(now);
    if (at != spans_.begin() && std::prev(at)->second > now) --at;
    for (; left > 0 && at != spans_.end(); ++at) {
      const double busy_from = std::max(now, at->first);
      if (busy_from - now >= left) break;  // ends before this span
      left -= busy_from - now;
      now = busy_from;
      const double slow = (at->second - now) / slowdown;
      if (slow >= left) return now + left * slowdown;
      left -= slow;
      now = at->second;
    }
    return now + left;
  }

 private:
  std::map<double, double> spans_;
};

}  // namespace

GraphSchedule list_schedule(const TaskGraph& graph, const TaskCost& cost, double overlap_slowdown) {
  check(graph);
  const std::size_t roles = graph.programs.size();
  // Predecessors of each task: its dependencies, the previous task on its stream, and for a receive its send
  // (which bounds its end, not its start). Successor lists drive Kahn's algorithm.
  std::vector<std::vector<std::vector<TaskRef>>> successors(roles);
  std::vector<std::vector<int>> waiting(roles);
  std::vector<std::vector<int>> stream_before(roles);
  for (std::size_t r = 0; r < roles; ++r) {
    successors[r].resize(graph.programs[r].tasks.size());
    waiting[r].assign(graph.programs[r].tasks.size(), 0);
    stream_before[r].assign(graph.programs[r].tasks.size(), -1);
  }
  for (std::size_t r = 0; r < roles; ++r) {
    const auto& tasks = graph.programs[r].tasks;
    std::array<int, kStreams> last;
    last.fill(-1);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const TaskRef self{static_cast<int>(r), static_cast<int>(i)};
      auto after = [&](TaskRef before) {
        successors[static_cast<std::size_t>(before.role)][static_cast<std::size_t>(before.task)].push_back(self);
        ++waiting[r][i];
      };
      for (int d : tasks[i].deps) after({static_cast<int>(r), d});
      int& previous = last[static_cast<std::size_t>(tasks[i].stream)];
      if (previous >= 0) after({static_cast<int>(r), previous});
      stream_before[r][i] = previous;
      previous = static_cast<int>(i);
      if (tasks[i].op == Op::recv) after({tasks[i].peer, tasks[i].match});
    }
  }
  std::vector<std::vector<Span>> spans(roles);
  std::vector<BusySpans> busy(roles);
  std::deque<TaskRef> ready;
  for (std::size_t r = 0; r < roles; ++r) {
    spans[r].resize(graph.programs[r].tasks.size());
    for (std::size_t i = 0; i < waiting[r].size(); ++i)
      if (waiting[r][i] == 0) ready.push_back({static_cast<int>(r), static_cast<int>(i)});
  }
  std::size_t done = 0;
  while (!ready.empty()) {
    const TaskRef at = ready.front();
    ready.pop_front();
    const auto r = static_cast<std::size_t>(at.role);
    const auto i = static_cast<std::size_t>(at.task);
    const Task& task = graph.programs[r].tasks[i];
    Span& span = spans[r][i];
    auto end_of = [&](int role, int t) { return spans[static_cast<std::size_t>(role)][static_cast<std::size_t>(t)].end_s; };
    for (int d : task.deps) span.start_s = std::max(span.start_s, end_of(at.role, d));
    if (stream_before[r][i] >= 0) span.start_s = std::max(span.start_s, end_of(at.role, stream_before[r][i]));
    if (task.op == Op::recv) {
      span.end_s = std::max(span.start_s, end_of(task.peer, task.match));
    } else if (task.op == Op::compute && overlap_slowdown != 1) {
      span.end_s = busy[r].finish(span.start_s, cost(at.role, task), overlap_slowdown);
    } else {
      span.end_s = span.start_s + cost(at.role, task);
      if (task.op != Op::compute) busy[r].add(span.start_s, span.end_s);
    }
    ++done;
    for (const TaskRef& next : successors[r][i])
      if (--waiting[static_cast<std::size_t>(next.role)][static_cast<std::size_t>(next.task)] == 0) ready.push_back(next);
  }
  std::size_t total = 0;
  for (const Program& p : graph.programs) total += p.tasks.size();
  if (done != total)
    throw core::InputError("the task graph has a cycle: " + std::to_string(total - done) + " tasks never become ready",
                           "programs whose receives can be satisfied in order (check the pipeline schedule)");
  return with_bindings(graph, std::move(spans));
}

GraphSchedule with_bindings(const TaskGraph& graph, std::vector<std::vector<Span>> spans) {
  GraphSchedule schedule;
  schedule.binding.resize(graph.programs.size());
  for (std::size_t r = 0; r < graph.programs.size(); ++r) {
    const auto& tasks = graph.programs[r].tasks;
    schedule.binding[r].assign(tasks.size(), TaskRef{-1, -1});
    std::array<int, kStreams> last;
    last.fill(-1);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      TaskRef& binding = schedule.binding[r][i];
      double time = 0;
      auto bound_by = [&](TaskRef before) {
        const double end = spans[static_cast<std::size_t>(before.role)][static_cast<std::size_t>(before.task)].end_s;
        if (end > time || binding.role < 0) {
          time = std::max(time, end);
          binding = before;
        }
      };
      for (int d : tasks[i].deps) bound_by({static_cast<int>(r), d});
      int& previous = last[static_cast<std::size_t>(tasks[i].stream)];
      if (previous >= 0) bound_by({static_cast<int>(r), previous});
      previous = static_cast<int>(i);
      if (tasks[i].op == Op::recv &&
          spans[static_cast<std::size_t>(tasks[i].peer)][static_cast<std::size_t>(tasks[i].match)].end_s > time)
        binding = {tasks[i].peer, tasks[i].match};
    }
  }
  schedule.spans = std::move(spans);
  return schedule;
}

}  // namespace dtsim::taskgraph
