#include "sim/actors/graph_walker.hpp"

#include <algorithm>
#include <string>

#include <simgrid/s4u/Engine.hpp>

#include "sim/core/error.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
using taskgraph::Dep;
using taskgraph::Op;
using taskgraph::Stream;
using taskgraph::Task;

namespace {

constexpr auto kLead = static_cast<std::size_t>(Stream::compute);

double now() { return sg4::Engine::get_clock(); }

/// Whether `walk` has a follower actor on stream `s` (the lead stream's actor always exists).
bool followed(const Walk& walk, std::size_t s) {
  return s != kLead && !walk.streams[s].empty() && !(walk.credit && s == static_cast<std::size_t>(Stream::data));
}

}  // namespace

Walk::Walk(const taskgraph::Program& p, std::size_t from) : program(&p), epilogue_from(from) {
  const std::vector<Task>& tasks = p.tasks;
  DTSIM_CHECK(from <= tasks.size(), "the epilogue is part of the program");
  credit = p.credit_bytes > 0;
  gates.assign(tasks.size(), 0);
  gated.assign(tasks.size(), 0);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (i < from) {
      streams[static_cast<std::size_t>(t.stream)].push_back(static_cast<int>(i));
      others = others || t.stream != Stream::compute;
    } else {
      DTSIM_CHECK(t.stream == Stream::compute, "an epilogue runs on the lead (compute) stream");
      epilogue.push_back(static_cast<int>(i));
    }
    for (const Dep& d : t.deps) {
      DTSIM_CHECK(!d.previous || d.lag_s == 0, "a dependency on the previous run has no lag");
      const bool other = tasks[static_cast<std::size_t>(d.task)].stream != t.stream;
      if (other) gates[static_cast<std::size_t>(d.task)] = 1;
      if (other || d.lag_s > 0) gated[i] = 1;
    }
  }
  if (!credit) return;
  jobs = taskgraph::credit_jobs(p, Stream::data);
  job_of.assign(tasks.size(), -1);
  releases.resize(tasks.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (int i : jobs[j]) job_of[static_cast<std::size_t>(i)] = static_cast<int>(j);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    int last = -1;
    for (int i : jobs[j])
      for (const Dep& d : tasks[static_cast<std::size_t>(i)].deps) {
        if (job_of[static_cast<std::size_t>(d.task)] == static_cast<int>(j)) continue;
        DTSIM_CHECK(!d.previous && tasks[static_cast<std::size_t>(d.task)].stream == Stream::compute,
                    "a job waits for computations of its run");
        last = std::max(last, d.task);
      }
    DTSIM_CHECK(last >= 0, "a job waits for a computation");
    releases[static_cast<std::size_t>(last)].push_back(static_cast<int>(j));
  }
}

std::int64_t walk_actors(const std::vector<const Walk*>& walks) {
  std::int64_t actors = 1;  // the lead
  for (std::size_t s = 0; s < taskgraph::kStreams; ++s)
    if (std::any_of(walks.begin(), walks.end(), [s](const Walk* w) { return followed(*w, s); })) ++actors;
  return actors;
}

GraphWalker::GraphWalker(const std::vector<Walk>& walks, std::vector<std::vector<int>> rank_walks, WalkClient& client,
                         WalkOptions options)
    : walks_(walks), rank_walks_(std::move(rank_walks)), client_(client), options_(std::move(options)),
      ranks_(rank_walks_.size()), credit_(walks.size()) {
  options_.spans.resize(rank_walks_.size(), 0);
  options_.merge.resize(rank_walks_.size(), 0);
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    ranks_[r].rank = static_cast<int>(r);
    ranks_[r].latest.assign(walks.size(), -1);
    for (int w : rank_walks_[r])
      DTSIM_CHECK(!walks_[static_cast<std::size_t>(w)].credit || rank_walks_[r].size() == 1,
                  "a rank that runs a program with a credit runs only it (its jobs negotiate across every rank)");
  }
}

void GraphWalker::start(const std::vector<sg4::Host*>& hosts) {
  hosts_ = hosts;
  for (RankState& st : ranks_) {
    sg4::Host* host = hosts[static_cast<std::size_t>(st.rank)];
    if (options_.overlap_slowdown != 1) st.comm_changed = sg4::Semaphore::create(0);
    for (std::size_t s = 0; s < taskgraph::kStreams; ++s) {
      const auto& mine = rank_walks_[static_cast<std::size_t>(st.rank)];
      if (s != kLead && std::none_of(mine.begin(), mine.end(),
                                     [&](int w) { return followed(walks_[static_cast<std::size_t>(w)], s); }))
        continue;
      st.wake[s] = sg4::Semaphore::create(0);
      st.actors[s] = sg4::Actor::create("rank" + std::to_string(st.rank) + "s" + std::to_string(s), host,
                                        [this, &st, s] { s == kLead ? lead(st) : follow(st, s); });
    }
  }
}

sg4::ActorPtr GraphWalker::actor(int rank, Stream stream) const {
  return ranks_[static_cast<std::size_t>(rank)].actors[static_cast<std::size_t>(stream)];
}

std::vector<taskgraph::Span> GraphWalker::take_last_spans(int rank) {
  RankState& st = ranks_[static_cast<std::size_t>(rank)];
  return st.runs.empty() ? std::vector<taskgraph::Span>{} : std::move(st.runs.back().spans);
}

int GraphWalker::last_walk(int rank) const {
  const RankState& st = ranks_[static_cast<std::size_t>(rank)];
  return st.runs.empty() ? -1 : st.runs.back().walk;
}

bool GraphWalker::last_carried(int rank) const {
  const RankState& st = ranks_[static_cast<std::size_t>(rank)];
  return !st.runs.empty() && st.runs.back().previous >= 0;
}

/// The rank's runs while the client grants them, then the last run's epilogue; then it waits for work left in
/// flight and stops the other streams.
void GraphWalker::lead(RankState& st) {
  int last = -1;
  for (int it = 0;; ++it) {
    const int w = client_.next(st.rank, it);
    if (w == WalkClient::kStop) break;
    if (w == WalkClient::kSkip) continue;
    last = begin_run(st, it, w);
    const std::vector<int>& tasks = walks_[static_cast<std::size_t>(w)].streams[kLead];
    if (tasks.empty()) client_.stream_done(st.rank, it, Stream::compute);
    walk_tasks(st, last, Stream::compute, tasks, true);
  }
  bool drain = st.unawaited > 0;
  if (last >= 0) {
    Run& run = run_at(st, last);
    const std::vector<int>& epilogue = walks_[static_cast<std::size_t>(run.walk)].epilogue;
    if (!epilogue.empty()) {
      run.left += static_cast<int>(epilogue.size());
      st.open_tasks += static_cast<int>(epilogue.size());
      walk_tasks(st, last, Stream::compute, epilogue, false);
      drain = true;
    }
  }
  if (drain) {
    const double start = now();
    while (st.open_tasks > 0) await(st, kLead, {kDrained, 0});
    client_.drained(st.rank, now() - start);
  }
  st.stopped = true;
  for (std::size_t s = 0; s < taskgraph::kStreams; ++s)
    if (st.awaiting[s].run >= 0 && st.awaiting[s].task == kRunStarts) {
      st.awaiting[s] = {};
      st.wake[s]->release();
    }
}

/// Walks stream `s` of every run the lead stream queues, in order.
void GraphWalker::follow(RankState& st, std::size_t s) {
  for (int n = 0;; ++n) {
    while (n >= st.count) {
      if (st.stopped) return;
      await(st, s, {n, kRunStarts});
    }
    if (n < st.base) continue;  // ended before this stream got to it: it had no tasks on it
    const Walk& walk = walks_[static_cast<std::size_t>(run_at(st, n).walk)];
    if (followed(walk, s)) walk_tasks(st, n, static_cast<Stream>(s), walk.streams[s], true);
  }
}

int GraphWalker::begin_run(RankState& st, int it, int w) {
  const Walk& walk = walks_[static_cast<std::size_t>(w)];
  const std::size_t size = walk.program->tasks.size();
  Run& run = st.runs.emplace_back();
  const int n = st.count++;
  run.it = it;
  run.walk = w;
  run.previous = st.latest[static_cast<std::size_t>(w)];
  st.latest[static_cast<std::size_t>(w)] = n;
  if (options_.spans[static_cast<std::size_t>(st.rank)])
    run.spans.assign(size, {0, -1.0});
  else
    run.end_s.assign(size, -1.0);
  run.left = static_cast<int>(walk.epilogue_from);
  // A first run has nothing for its carried tasks to finish: they end as it starts.
  if (run.previous < 0)
    for (std::size_t i = 0; i < walk.epilogue_from; ++i)
      if (walk.program->tasks[i].carried) {
        run.ran(i, now(), now());
        --run.left;
      }
  st.open_tasks += run.left;
  if (walk.others) ++st.unawaited;
  for (std::size_t s = 0; s < taskgraph::kStreams; ++s)
    if (st.awaiting[s].run >= 0 && st.awaiting[s].task == kRunStarts) {
      st.awaiting[s] = {};
      st.wake[s]->release();
    }
  retire(st);
  return n;
}

/// Runs `tasks` (of one stream) of run `n`, each once its dependencies have ended and their lags have passed. With
/// `report`, the stream's part of the run ends with the client's stream_done.
void GraphWalker::walk_tasks(RankState& st, int n, Stream stream, const std::vector<int>& tasks, bool report) {
  Run& run = run_at(st, n);
  const Walk& walk = walks_[static_cast<std::size_t>(run.walk)];
  const std::vector<Task>& program = walk.program->tasks;
  const bool lead = stream == Stream::compute;
  const bool merge = lead && !walk.credit && options_.merge[static_cast<std::size_t>(st.rank)];
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const auto i = static_cast<std::size_t>(tasks[k]);
    const Task& t = program[i];
    if (t.carried && run.previous < 0 && i < walk.epilogue_from) {  // ended as the run started
      if (report && k + 1 == tasks.size()) client_.stream_done(st.rank, run.it, stream);
      continue;
    }
    const double waited = await_deps(st, n, static_cast<std::size_t>(stream), t);
    double not_before = 0;  // the dependencies' lags
    for (const Dep& d : t.deps)
      if (d.lag_s > 0) not_before = std::max(not_before, run.end(static_cast<std::size_t>(d.task)) + d.lag_s);
    if (not_before > now()) sg4::this_actor::sleep_until(not_before);
    const std::size_t first_k = k;
    if (lead && t.op == Op::compute) {
      double work_s = t.duration_s;
      std::size_t last = i;
      while (merge && k + 1 < tasks.size() && !walk.gates[last]) {
        const auto next = static_cast<std::size_t>(tasks[k + 1]);
        const Task& u = program[next];
        if (walk.gated[next] || u.op != Op::compute || u.category != t.category || (u.carried && run.previous < 0) ||
            iteration(run, next) != iteration(run, i))
          break;
        work_s += u.duration_s;
        last = next;
        ++k;
      }
      const double start = now();
      const double took = phase(st, iteration(run, i), work_s);
      const double end = now();
      for (std::size_t j = first_k; j <= k; ++j) run.ran(static_cast<std::size_t>(tasks[j]), j == first_k ? start : end, end);
      client_.ended(st.rank, run.it, stream, {&t, static_cast<int>(i), static_cast<int>(last), waited, start, end, took});
    } else {
      execute(st, n, static_cast<int>(i), t, waited);
    }
    if (report && k + 1 == tasks.size()) client_.stream_done(st.rank, run.it, stream);
    for (std::size_t j = first_k; j <= k; ++j) end_task(st, n, tasks[j]);
  }
}

/// Waits until the dependencies of `t` (of run `n`, on stream `s`) have ended; returns the time waited.
double GraphWalker::await_deps(RankState& st, int n, std::size_t s, const Task& t) {
  const double start = now();
  const Run& run = run_at(st, n);
  const std::vector<Task>& program = walks_[static_cast<std::size_t>(run.walk)].program->tasks;
  for (const Dep& d : t.deps) {
    const int m = d.previous ? run.previous : n;
    const auto task = static_cast<std::size_t>(d.task);
    // The run may retire while this stream waits (its last task ended and another stream had already waited for
    // it): a retired run's tasks have all ended. Look it up again after every wait, never through a reference
    // held across one (the deque frees it).
    while (m >= st.base && run_at(st, m).end(task) < 0) await(st, s, {m, d.task});
    if (m < st.base) continue;  // the walk's first run (nothing to wait for), or a run that has ended
    Run& of = run_at(st, m);
    if (s == kLead && program[task].stream != Stream::compute && !of.awaited) {
      of.awaited = true;
      --st.unawaited;
    }
  }
  return now() - start;
}

void GraphWalker::await(RankState& st, std::size_t s, Await what) {
  st.awaiting[s] = what;
  st.wake[s]->acquire();
}

/// Task `task` of run `n` has ended: wakes the stream waiting for it, the lead stream waiting for every run to end,
/// and the jobs it makes ready.
void GraphWalker::end_task(RankState& st, int n, int task) {
  Run& run = run_at(st, n);
  --run.left;
  --st.open_tasks;
  for (std::size_t s = 0; s < taskgraph::kStreams; ++s)
    if ((st.awaiting[s].run == n && st.awaiting[s].task == task) ||
        (st.awaiting[s].run == kDrained && st.open_tasks == 0)) {
      st.awaiting[s] = {};
      st.wake[s]->release();
    }
  const Walk& walk = walks_[static_cast<std::size_t>(run.walk)];
  const int it = run.it;
  const int w = run.walk;
  if (run.left == 0) retire(st);
  if (walk.credit)
    for (int job : walk.releases[static_cast<std::size_t>(task)]) job_ready(w, it, job);
}

/// Forgets the runs that have ended and that the lead stream has no reason to wait for any more (all but the last
/// run: its spans are the client's).
void GraphWalker::retire(RankState& st) {
  while (st.runs.size() > 1) {
    const Run& front = st.runs.front();
    if (front.left > 0 || (walks_[static_cast<std::size_t>(front.walk)].others && !front.awaited)) return;
    st.runs.pop_front();
    ++st.base;
  }
}

/// A task off the lead stream's computation: local work beside it (compression), or a communication task.
void GraphWalker::execute(RankState& st, int n, int index, const Task& t, double waited_s) {
  Run& run = run_at(st, n);
  const double start = now();
  if (t.op == Op::compute) {
    sg4::this_actor::sleep_for(t.duration_s);
  } else {
    const bool communicates = t.op != Op::recv;
    if (communicates) communicating(st, +1);
    client_.communicate(st.rank, run.it, index, t);
    if (communicates) communicating(st, -1);
  }
  const double end = now();
  run.ran(static_cast<std::size_t>(index), start, end);
  client_.ended(st.rank, run.it, t.stream, {&t, index, index, waited_s, start, end, end - start});
}

/// The rank's communication tasks in progress go up or down by `delta`; its compute phase re-evaluates its speed.
void GraphWalker::communicating(RankState& st, int delta) {
  if (options_.overlap_slowdown == 1) return;
  st.communicating += delta;
  if (st.phase_waiting) {
    st.phase_waiting = false;
    st.comm_changed->release();
  }
}

/// Computes `work_s` of nominal work of run `it`; returns its duration. While the rank communicates, its work
/// progresses at 1 / overlap_slowdown of its speed (run::CommOverlap).
double GraphWalker::phase(RankState& st, int it, double work_s) {
  const double start = now();
  const run::ComputeSpeed* speed = options_.speed;
  const int r = st.rank;
  if (options_.overlap_slowdown == 1) {
    if (speed && speed->slowed()) work_s = speed->duration_s(r, it, start, work_s);
    sg4::this_actor::sleep_for(work_s);
    return work_s;
  }
  // Integrates the work over the straggler profile's speed and the communication's slowdown, re-evaluated at
  // every change of either (run::SpeedProfile::finish_s in closed form).
  for (double t = start, left = work_s * (speed ? speed->factor(r, it) : 1.0); left > 0;) {
    const double v = (speed ? speed->speed_at(r, t) : 1.0) / (st.communicating > 0 ? options_.overlap_slowdown : 1.0);
    const double finish = t + left / v;
    const double wake = speed ? std::min(finish, speed->next_change_after(r, t)) : finish;
    // As ConditionVariable::wait_until: a wake in the past waits 0. A release left over from a wait that had
    // timed out wakes the next wait at once; its pass changes nothing (no time went by).
    st.phase_waiting = true;
    const bool timed_out = st.comm_changed->acquire_timeout(std::max(0.0, wake - now()));
    st.phase_waiting = false;
    if (timed_out && wake == finish) break;
    const double at = now();
    left -= (at - t) * v;
    t = at;
  }
  return now() - start;
}

/// A rank has job `job` of run `it` of walk `w` ready. Once every rank has (the negotiation of Horovod and
/// ByteScheduler), the job joins the priority queue.
void GraphWalker::job_ready(int w, int it, int job) {
  CreditQueue& q = credit_[static_cast<std::size_t>(w)];
  const auto key = std::make_pair(it, job);
  if (++q.ready[key] < static_cast<int>(ranks_.size())) return;
  q.ready.erase(key);
  const Walk& walk = walks_[static_cast<std::size_t>(w)];
  q.queue.emplace(walk.program->tasks[static_cast<std::size_t>(walk.jobs[static_cast<std::size_t>(job)].front())].priority, it, job);
  dispatch(w);
}

/// Starts queued jobs, lowest priority first, while credit remains (one job may overdraw it): an actor per rank.
void GraphWalker::dispatch(int w) {
  CreditQueue& q = credit_[static_cast<std::size_t>(w)];
  const Walk& walk = walks_[static_cast<std::size_t>(w)];
  while (!q.queue.empty() && q.in_flight_bytes < walk.program->credit_bytes) {
    const auto [priority, it, job] = q.queue.top();
    q.queue.pop();
    const std::int64_t charge =
        walk.program->tasks[static_cast<std::size_t>(walk.jobs[static_cast<std::size_t>(job)].front())].credit_bytes;
    q.in_flight_bytes += charge;
    const double issued = now();
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      sg4::Actor::create("job", hosts_[r], [this, r, w, it, job, issued, charge] {
        run_job(ranks_[r], w, it, job, issued);
        CreditQueue& c = credit_[static_cast<std::size_t>(w)];
        const auto key = std::make_pair(it, job);
        if (++c.done[key] < static_cast<int>(ranks_.size())) return;
        c.done.erase(key);
        c.in_flight_bytes -= charge;
        dispatch(w);
      });
  }
}

/// A rank's part of job `job` of run `it`, issued at `issued_s`: its tasks in order, each once its dependencies in
/// the job and its lags (counted from the issue for tasks outside the job) allow.
void GraphWalker::run_job(RankState& st, int w, int it, int job, double issued_s) {
  int n = st.count - 1;
  while (run_at(st, n).it != it || run_at(st, n).walk != w) --n;
  const Walk& walk = walks_[static_cast<std::size_t>(w)];
  for (int i : walk.jobs[static_cast<std::size_t>(job)]) {
    const Task& t = walk.program->tasks[static_cast<std::size_t>(i)];
    const Run& run = run_at(st, n);
    double not_before = 0;
    for (const Dep& d : t.deps)
      not_before = std::max(not_before, (walk.job_of[static_cast<std::size_t>(d.task)] == job
                                             ? run.end(static_cast<std::size_t>(d.task))
                                             : issued_s) + d.lag_s);
    if (not_before > now()) sg4::this_actor::sleep_until(not_before);
    execute(st, n, i, t, 0);
    end_task(st, n, i);
  }
}

}  // namespace dtsim::actors
