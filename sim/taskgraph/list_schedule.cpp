#include "sim/taskgraph/list_schedule.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::taskgraph {

bool Carried::empty() const {
  return previous.empty() && communication.empty() &&
         std::none_of(stream_tail.begin(), stream_tail.end(), [](const auto& tail) { return tail.has_value(); });
}

double GraphSchedule::makespan_s() const {
  double end = 0;
  for (const auto& run : spans)
    for (const Span& s : run) end = std::max(end, s.end_s);
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
       at = at.earlier != Earlier::none ? TaskRef{-1, -1}
                                        : binding[static_cast<std::size_t>(at.role)][static_cast<std::size_t>(at.task)])
    path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

const Task& GraphSchedule::task(const TaskGraph& graph, const TaskRef& at) const {
  const auto run = static_cast<std::size_t>(at.role);
  if (at.earlier == Earlier::stream) return carried[run].stream_tail[static_cast<std::size_t>(at.task)]->task;
  return graph.programs[static_cast<std::size_t>(role_of_run[run])].tasks[static_cast<std::size_t>(at.task)];
}

Span GraphSchedule::span(const TaskRef& at) const {
  const auto run = static_cast<std::size_t>(at.role);
  const auto i = static_cast<std::size_t>(at.task);
  switch (at.earlier) {
    case Earlier::previous: return carried[run].previous[i];
    case Earlier::stream: return carried[run].stream_tail[i]->span;
    case Earlier::none: break;
  }
  return spans[run][i];
}

namespace {

/// A task of a run in the scheduler's queue (a TaskRef of this run).
struct RunTask {
  int role = 0;
  int task = 0;
};

bool joins_instances(Op op) { return spans_group(op); }

/// The union of a run's communication spans, in time order and disjoint.
class BusySpans {
 public:
  void add(double start, double end) {
    if (!(end > start)) return;
    auto at = std::upper_bound(spans_.begin(), spans_.end(), start,
                               [](double t, const Span& s) { return t < s.start_s; });
    if (at != spans_.begin() && std::prev(at)->end_s >= start) {
      --at;
      start = at->start_s;
      end = std::max(end, at->end_s);
    }
    auto past = at;
    for (; past != spans_.end() && past->start_s <= end; ++past) end = std::max(end, past->end_s);
    spans_.insert(spans_.erase(at, past), Span{start, end});
  }
  /// When `work_s` of computation started at `start` ends, slowed by `slowdown` inside the spans.
  double finish(double start, double work_s, double slowdown) const {
    double now = start, left = work_s;
    auto at = std::upper_bound(spans_.begin(), spans_.end(), now, [](double t, const Span& s) { return t < s.start_s; });
    if (at != spans_.begin() && std::prev(at)->end_s > now) --at;
    for (; left > 0 && at != spans_.end(); ++at) {
      const double busy_from = std::max(now, at->start_s);
      if (busy_from - now >= left) break;  // ends before this span
      left -= busy_from - now;
      now = busy_from;
      const double slow = (at->end_s - now) / slowdown;
      if (slow >= left) return now + left * slowdown;
      left -= slow;
      now = at->end_s;
    }
    return now + left;
  }
  const std::vector<Span>& spans() const { return spans_; }
  std::vector<Span> release() { return std::move(spans_); }

 private:
  std::vector<Span> spans_;
};

/// The task that ran on each stream before each task of `program` (-1: none; a stream with a credit keeps no
/// order).
std::vector<int> stream_predecessors(const Program& program) {
  std::vector<int> before(program.tasks.size(), -1);
  std::array<int, kStreams> last;
  last.fill(-1);
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    if (program.credit_bytes > 0 && program.tasks[i].stream == Stream::data) continue;
    int& previous = last[static_cast<std::size_t>(program.tasks[i].stream)];
    before[i] = previous;
    previous = static_cast<int>(i);
  }
  return before;
}

/// When task i of a run may start (its dependencies with their lags, its stream) and the task that decides it:
/// the first predecessor unless a later one ends later; {-1, -1} without predecessors. What earlier runs left
/// (`carried`: a dependency on the previous run, the stream's tail) decides only where it ends after all else;
/// without it, dependencies on the previous run are met (a first run, or a simulation that met them).
struct Ready {
  double at_s = 0;
  TaskRef by{-1, -1};
};
Ready ready_of(const Task& task, int stream_before, int run, const std::vector<Span>& spans, double floor_s,
               const Carried* carried) {
  Ready ready{floor_s, {-1, -1}};
  auto bound_by = [&](int t, double lag) {
    const double at = spans[static_cast<std::size_t>(t)].end_s + lag;
    if (at > ready.at_s || ready.by.role < 0) {
      ready.at_s = std::max(ready.at_s, at);
      ready.by = {run, t};
    }
  };
  auto bound_by_earlier = [&](double at, int t, Earlier where) {
    if (at <= ready.at_s) return;
    ready.at_s = at;
    ready.by = {run, t, where};
  };
  for (const Dep& d : task.deps)
    if (!d.previous)
      bound_by(d.task, d.lag_s);
    else if (carried && !carried->previous.empty())
      bound_by_earlier(carried->previous[static_cast<std::size_t>(d.task)].end_s + d.lag_s, d.task, Earlier::previous);
  const auto stream = static_cast<std::size_t>(task.stream);
  if (stream_before >= 0)
    bound_by(stream_before, 0);
  else if (carried && carried->stream_tail[stream])
    bound_by_earlier(carried->stream_tail[stream]->span.end_s, static_cast<int>(stream), Earlier::stream);
  return ready;
}

/// Which runs each collective joins and which run each receive waits for (ScheduleOptions::meetings, or every
/// instance of a role together and instance i with instance i of its peer).
struct Joins {
  std::vector<std::vector<int>> members;       ///< [meeting]: its runs, in order
  std::vector<std::vector<int>> meeting_of;    ///< [run][group]: its meeting (groups: indices into group_of's)
  std::vector<std::vector<int>> group_of;      ///< [role][task]: the task's group's index, -1 without one
  std::vector<std::vector<int>> peer;          ///< [run][role]
  int meeting(std::size_t run, std::size_t role, std::size_t task) const {
    const int g = group_of[role][task];
    return g < 0 ? -1 : meeting_of[run][static_cast<std::size_t>(g)];
  }
};

Joins joins_of(const TaskGraph& graph, const ScheduleOptions& options, const std::vector<int>& instances,
               const std::vector<int>& first_run) {
  const std::size_t roles = graph.programs.size();
  const auto runs = static_cast<std::size_t>(first_run[roles]);
  Joins j;
  std::map<std::string, int> groups;
  for (std::size_t r = 0; r < roles; ++r) {
    std::vector<int>& of = j.group_of.emplace_back(graph.programs[r].tasks.size(), -1);
    for (std::size_t i = 0; i < of.size(); ++i) {
      const Task& t = graph.programs[r].tasks[i];
      if (joins_instances(t.op)) of[i] = groups.try_emplace(t.group, static_cast<int>(groups.size())).first->second;
    }
  }
  j.meeting_of.assign(runs, std::vector<int>(groups.size(), -1));
  j.peer.assign(runs, std::vector<int>(roles, -1));
  if (options.meetings.empty()) {
    j.members.resize(roles);
    for (std::size_t r = 0; r < roles; ++r)
      for (int k = 0; k < instances[r]; ++k) {
        const auto run = static_cast<std::size_t>(first_run[r] + k);
        j.members[r].push_back(static_cast<int>(run));
        std::fill(j.meeting_of[run].begin(), j.meeting_of[run].end(), static_cast<int>(r));
        for (std::size_t p = 0; p < roles; ++p)
          if (instances[p] == instances[r]) j.peer[run][p] = first_run[p] + k;
      }
    return j;
  }
  const Meetings& m = options.meetings;
  DTSIM_CHECK(m.of.size() == runs && m.peer.size() == runs, "meetings and peers for every run");
  std::vector<int> role_of_run;
  for (std::size_t r = 0; r < roles; ++r) role_of_run.insert(role_of_run.end(), static_cast<std::size_t>(instances[r]), static_cast<int>(r));
  std::map<int, int> dense;  // the caller's meeting id -> index into members
  for (std::size_t run = 0; run < runs; ++run) {
    DTSIM_CHECK(m.peer[run].size() == roles, "a peer run per role");
    j.peer[run] = m.peer[run];
    for (const auto& [name, g] : groups) {
      const auto at = m.of[run].find(name);
      if (at == m.of[run].end()) continue;  // the run's program has no collective on it
      const auto [d, fresh] = dense.try_emplace(at->second, static_cast<int>(j.members.size()));
      if (fresh) j.members.emplace_back();
      std::vector<int>& members = j.members[static_cast<std::size_t>(d->second)];
      DTSIM_CHECK(members.empty() || role_of_run[static_cast<std::size_t>(members.front())] == role_of_run[run],
                  "a meeting's runs run the same program");
      if (members.empty() || members.back() != static_cast<int>(run)) members.push_back(static_cast<int>(run));
      j.meeting_of[run][static_cast<std::size_t>(g)] = d->second;
    }
  }
  for (std::size_t run = 0; run < runs; ++run) {
    const auto r = static_cast<std::size_t>(role_of_run[run]);
    for (std::size_t i = 0; i < j.group_of[r].size(); ++i)
      DTSIM_CHECK(j.group_of[r][i] < 0 || j.meeting_of[run][static_cast<std::size_t>(j.group_of[r][i])] >= 0,
                  "every collective of a run has a meeting");
  }
  return j;
}

}  // namespace

GraphSchedule list_schedule(const TaskGraph& graph, const TaskCost& cost, double overlap_slowdown) {
  ScheduleOptions options;
  options.overlap_slowdown = overlap_slowdown;
  return list_schedule(graph, cost, options);
}

GraphSchedule list_schedule(const TaskGraph& graph, const TaskCost& cost, const ScheduleOptions& options) {
  check(graph);
  for (const Program& p : graph.programs)
    DTSIM_CHECK(p.credit_bytes == 0, "a stream with a credit has no exact list schedule (the loader refuses it)");
  const std::size_t roles = graph.programs.size();
  std::vector<int> instances = options.instances.empty() ? std::vector<int>(roles, 1) : options.instances;
  DTSIM_CHECK(instances.size() == roles, "one instance count per role");
  std::vector<int> first_run(roles + 1, 0);
  for (std::size_t r = 0; r < roles; ++r) {
    DTSIM_CHECK(instances[r] >= 1, "a role runs at least once");
    first_run[r + 1] = first_run[r] + instances[r];
  }
  const auto runs = static_cast<std::size_t>(first_run[roles]);
  DTSIM_CHECK(options.start_s.empty() || options.start_s.size() == runs, "one start time per run");
  DTSIM_CHECK(options.carried.empty() || options.carried.size() == runs, "one carry-over per run");
  GraphSchedule schedule;
  for (std::size_t r = 0; r < roles; ++r) schedule.role_of_run.insert(schedule.role_of_run.end(), static_cast<std::size_t>(instances[r]), static_cast<int>(r));

  // Per role: stream predecessors, successors inside the program, and the receives each send releases.
  std::vector<std::vector<int>> stream_before(roles);
  std::vector<std::vector<std::vector<int>>> successors(roles);
  std::vector<std::vector<std::vector<TaskRef>>> receivers(roles);  // [role][send] -> (peer role, receive)
  std::vector<std::vector<int>> predecessors(roles);                 // [role][task]: how many to wait for
  for (std::size_t r = 0; r < roles; ++r) {
    const auto& tasks = graph.programs[r].tasks;
    stream_before[r] = stream_predecessors(graph.programs[r]);
    successors[r].resize(tasks.size());
    receivers[r].resize(tasks.size());
    predecessors[r].assign(tasks.size(), 0);
  }
  for (std::size_t r = 0; r < roles; ++r) {
    const auto& tasks = graph.programs[r].tasks;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      for (const Dep& d : tasks[i].deps) successors[r][static_cast<std::size_t>(d.task)].push_back(static_cast<int>(i));
      if (stream_before[r][i] >= 0) successors[r][static_cast<std::size_t>(stream_before[r][i])].push_back(static_cast<int>(i));
      predecessors[r][i] = static_cast<int>(tasks[i].deps.size()) + (stream_before[r][i] >= 0 ? 1 : 0);
      if (tasks[i].op != Op::recv) continue;
      const auto peer = static_cast<std::size_t>(tasks[i].peer);
      if (options.meetings.empty() && instances[peer] != instances[r])
        throw core::InputError(graph.programs[r].role + " receives from " + graph.programs[peer].role +
                                   ", which runs a different number of instances",
                               "the same instance count on both sides of a send");
      receivers[peer][static_cast<std::size_t>(tasks[i].match)].push_back({static_cast<int>(r), static_cast<int>(i)});
      ++predecessors[r][i];
    }
  }

  schedule.spans.resize(runs);
  schedule.binding.resize(runs);
  std::vector<std::vector<int>> waiting(runs);
  std::vector<BusySpans> busy(runs);
  schedule.carried = options.carried;
  for (std::size_t run = 0; run < options.carried.size(); ++run) {
    const Carried& c = options.carried[run];
    DTSIM_CHECK(c.previous.empty() ||
                    c.previous.size() == graph.programs[static_cast<std::size_t>(schedule.role_of_run[run])].tasks.size(),
                "the previous run ran the same program");
    for (const Span& s : c.communication) busy[run].add(s.start_s, s.end_s);
  }
  const Joins joins = joins_of(graph, options, instances, first_run);
  std::vector<std::vector<int>> joined(joins.members.size());  // [meeting][collective]: runs ready for it
  std::deque<RunTask> ready;
  for (std::size_t run = 0; run < runs; ++run) {
    const auto r = static_cast<std::size_t>(schedule.role_of_run[run]);
    schedule.spans[run].resize(graph.programs[r].tasks.size());
    schedule.binding[run].assign(graph.programs[r].tasks.size(), TaskRef{-1, -1});
    waiting[run] = predecessors[r];
    for (std::size_t i = 0; i < waiting[run].size(); ++i)
      if (waiting[run][i] == 0) ready.push_back({static_cast<int>(run), static_cast<int>(i)});
  }

  auto release = [&](std::size_t run, std::size_t i) {
    const auto r = static_cast<std::size_t>(schedule.role_of_run[run]);
    for (int next : successors[r][i])
      if (--waiting[run][static_cast<std::size_t>(next)] == 0) ready.push_back({static_cast<int>(run), next});
    for (const TaskRef& to : receivers[r][i]) {
      const auto peer_run = static_cast<std::size_t>(joins.peer[run][static_cast<std::size_t>(to.role)]);
      if (--waiting[peer_run][static_cast<std::size_t>(to.task)] == 0) ready.push_back({static_cast<int>(peer_run), to.task});
    }
  };

  // A run waiting for the other instances at a collective computes nothing meanwhile: its computation after that
  // point may overlap the collective, whose span is known only once the last instance is ready.
  std::vector<int> joining(runs, 0);
  std::vector<std::vector<RunTask>> parked(runs);
  std::size_t done = 0;
  while (!ready.empty()) {
    const RunTask at = ready.front();
    ready.pop_front();
    const auto run = static_cast<std::size_t>(at.role);
    const auto i = static_cast<std::size_t>(at.task);
    const int role = schedule.role_of_run[run];
    const auto r = static_cast<std::size_t>(role);
    const Task& task = graph.programs[r].tasks[i];
    if (task.op == Op::compute && joining[run] > 0) {
      parked[run].push_back(at);
      continue;
    }
    const Ready when = ready_of(task, stream_before[r][i], at.role, schedule.spans[run],
                                options.start_s.empty() ? 0.0 : options.start_s[run],
                                options.carried.empty() ? nullptr : &options.carried[run]);
    Span& span = schedule.spans[run][i];
    span.start_s = when.at_s;
    schedule.binding[run][i] = when.by;
    ++done;
    if (task.op == Op::recv) {
      const int from = joins.peer[run][static_cast<std::size_t>(task.peer)];
      const Span& sent = schedule.spans[static_cast<std::size_t>(from)][static_cast<std::size_t>(task.match)];
      span.end_s = std::max(span.start_s, sent.end_s);
      if (sent.end_s > when.at_s) schedule.binding[run][i] = {from, task.match};
    } else if (task.op == Op::compute) {
      span.end_s = options.compute_end              ? options.compute_end(at.role, task, span.start_s, busy[run].spans())
                   : options.overlap_slowdown != 1 && task.stream == Stream::compute
                       ? busy[run].finish(span.start_s, cost(role, task), options.overlap_slowdown)
                                                   : span.start_s + cost(role, task);
    } else if (const int m = joins_instances(task.op) ? joins.meeting(run, r, i) : -1;
               m >= 0 && joins.members[static_cast<std::size_t>(m)].size() > 1) {
      // Every run's span holds the time it was ready until the last one is: then all start together.
      const std::vector<int>& members = joins.members[static_cast<std::size_t>(m)];
      std::vector<int>& count = joined[static_cast<std::size_t>(m)];
      if (count.empty()) count.assign(graph.programs[r].tasks.size(), 0);
      if (++count[i] < static_cast<int>(members.size())) {
        ++joining[run];
        continue;
      }
      auto last = static_cast<std::size_t>(members.front());
      for (const int q : members)
        if (schedule.spans[static_cast<std::size_t>(q)][i].start_s > schedule.spans[last][i].start_s) last = static_cast<std::size_t>(q);
      const double start = schedule.spans[last][i].start_s, end = start + cost(role, task);
      for (const int member : members) {
        const auto q = static_cast<std::size_t>(member);
        busy[q].add(schedule.spans[q][i].start_s, end);
        schedule.spans[q][i] = {start, end};
        schedule.binding[q][i] = schedule.binding[last][i];
      }
      for (const int member : members) {
        const auto q = static_cast<std::size_t>(member);
        if (q != run) --joining[q];
        release(q, i);
        if (joining[q] == 0) {
          ready.insert(ready.begin(), parked[q].begin(), parked[q].end());
          parked[q].clear();
        }
      }
      continue;
    } else {
      span.end_s = span.start_s + cost(role, task);
      busy[run].add(span.start_s, span.end_s);
    }
    release(run, i);
  }
  std::size_t total = 0;
  for (std::size_t run = 0; run < runs; ++run) total += schedule.spans[run].size();
  if (done != total)
    throw core::InputError("the task graph has a cycle: " + std::to_string(total - done) + " tasks never become ready",
                           "programs whose receives can be satisfied in order (check the pipeline schedule)");
  for (BusySpans& b : busy) schedule.communication.push_back(b.release());
  return schedule;
}

Carried carry_over(const TaskGraph& graph, const GraphSchedule& schedule, int run, Carried before,
                   double next_start_s) {
  const auto r = static_cast<std::size_t>(run);
  const auto& tasks = graph.programs[static_cast<std::size_t>(schedule.role_of_run[r])].tasks;
  const auto& spans = schedule.spans[r];
  std::array<int, kStreams> last;
  last.fill(-1);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    int& at = last[static_cast<std::size_t>(tasks[i].stream)];
    if (at < 0 || spans[i].end_s >= spans[static_cast<std::size_t>(at)].end_s) at = static_cast<int>(i);
  }
  for (std::size_t k = 0; k < kStreams; ++k) {
    std::optional<EarlierTask>& tail = before.stream_tail[k];
    if (last[k] >= 0) {
      const auto i = static_cast<std::size_t>(last[k]);
      if (spans[i].end_s > next_start_s) tail = EarlierTask{tasks[i], spans[i]};
      else tail.reset();
    } else if (tail && tail->span.end_s <= next_start_s) {
      tail.reset();
    }
  }
  before.communication.clear();
  for (const Span& s : schedule.communication[r])
    if (s.end_s > next_start_s) before.communication.push_back({std::max(s.start_s, next_start_s), s.end_s});
  return before;
}

GraphSchedule with_bindings(const TaskGraph& graph, std::vector<std::vector<Span>> spans) {
  GraphSchedule schedule;
  schedule.binding.resize(graph.programs.size());
  for (std::size_t r = 0; r < graph.programs.size(); ++r) {
    schedule.role_of_run.push_back(static_cast<int>(r));
    const auto& tasks = graph.programs[r].tasks;
    const std::vector<int> before = stream_predecessors(graph.programs[r]);
    schedule.binding[r].assign(tasks.size(), TaskRef{-1, -1});
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const Ready when = ready_of(tasks[i], before[i], static_cast<int>(r), spans[r], 0.0, nullptr);
      TaskRef& binding = schedule.binding[r][i];
      binding = when.by;
      if (tasks[i].op == Op::recv &&
          spans[static_cast<std::size_t>(tasks[i].peer)][static_cast<std::size_t>(tasks[i].match)].end_s > when.at_s)
        binding = {tasks[i].peer, tasks[i].match};
    }
  }
  schedule.spans = std::move(spans);
  return schedule;
}

}  // namespace dtsim::taskgraph
