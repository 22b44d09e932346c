#include "sim/actors/simgrid_run.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "sim/actors/condition.hpp"
#include "sim/actors/engine.hpp"
#include "sim/actors/execute_steps.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/simgrid_platform.hpp"
#include "sim/results/trace_names.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
namespace {

/// Shared between one worker's actors.
struct WorkerState {
  int rank = 0;
  int iteration = 0;            ///< the iteration the compute stream is in
  bool finished = false;        ///< the compute stream has ended (wakes the communication stream to end too)
  std::vector<double> end_s;                                  ///< FIFO: per task of it, when it ended (local)
  /// FIFO, an exchanging iteration's number and its tasks' end times, from its start until the compute stream
  /// has waited for its data stream: one iteration's, or more where exchanges stay in flight (Overlap Local-SGD).
  std::deque<std::pair<int, std::vector<double>>> exchanges;
  int exchanges_done = 0;                                     ///< FIFO: of those, data streams done
  int exchanges_awaited = 0;                                  ///< FIFO: of those, waited for by the compute stream
  sg4::SemaphorePtr bucket_ready = sg4::Semaphore::create(0);  ///< FIFO: a data task's computation is done
  sg4::SemaphorePtr comm_done = sg4::Semaphore::create(0);     ///< FIFO: the data stream of an iteration done
  /// Credit stream: per task of the iteration's program and its epilogue, when it ended (-1: not yet), for
  /// iterations i % 2 (a job of iteration i ends before iteration i + 1's backward); worker 0's spans likewise.
  std::array<std::vector<double>, 2> ends;
  std::array<std::vector<taskgraph::Span>, 2> spans;
  Condition job_ended;                                        ///< credit stream: a task of a job ended
  int exchanges_running = 0;                                  ///< exchanges between launch and end
  /// Wakes a compute phase waiting in `phase` when exchanges_running changes. No mutex: SimGrid actors run one
  /// at a time, and a lock and a condition variable would cost four simcalls per change and two per phase.
  sg4::SemaphorePtr comm_changed = sg4::Semaphore::create(0);
  bool phase_waiting = false;                                 ///< a compute phase waits on comm_changed
};

/// How a worker walks one iteration graph: its streams' tasks in order, and which compute task releases which
/// data task.
struct GraphWalk {
  const taskgraph::Program* program = nullptr;
  std::vector<int> compute;       ///< compute-stream tasks in order
  std::vector<int> data;          ///< data-stream tasks in order
  std::vector<int> releases;      ///< [task]: data tasks whose last computation it is
  std::vector<char> waits_data;   ///< [task]: a compute task that waits for a data task
  std::vector<char> keeps_one;    ///< [task]: it waits for the previous run's data stream only (one stays in flight)
  std::vector<char> acquires;     ///< [task]: a data task that waits for a computation

  explicit GraphWalk(const taskgraph::TaskGraph& graph) {
    DTSIM_CHECK(graph.programs.size() == 1, "a data-parallel iteration is one program");
    program = &graph.programs[0];
    const auto& tasks = program->tasks;
    releases.assign(tasks.size(), 0);
    waits_data.assign(tasks.size(), 0);
    keeps_one.assign(tasks.size(), 0);
    acquires.assign(tasks.size(), 0);
    int released_up_to = -1;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const bool on_compute = tasks[i].stream == taskgraph::Stream::compute;
      DTSIM_CHECK(on_compute || tasks[i].stream == taskgraph::Stream::data, "compute and data streams only");
      (on_compute ? compute : data).push_back(static_cast<int>(i));
      int last_compute = -1;
      for (const taskgraph::Dep& d : tasks[i].deps) {
        const bool dep_on_compute = tasks[static_cast<std::size_t>(d.task)].stream == taskgraph::Stream::compute;
        if (on_compute && !dep_on_compute) {
          DTSIM_CHECK(!waits_data[i] || keeps_one[i] == d.previous, "a task waits for one run's data stream");
          waits_data[i] = 1;
          keeps_one[i] = d.previous;
        }
        if (!on_compute && dep_on_compute) last_compute = std::max(last_compute, d.task);
      }
      if (last_compute < 0) continue;
      DTSIM_CHECK(last_compute >= released_up_to, "data tasks in the order of the computations they wait for");
      released_up_to = last_compute;
      ++releases[static_cast<std::size_t>(last_compute)];
      acquires[i] = 1;
    }
  }
};

/// How a worker walks an iteration graph whose data stream has a credit (ByteScheduler): its compute stream's
/// tasks in order, then (after the last iteration) its epilogue; its data stream's jobs, each ready once the
/// computations it waits for have ended.
struct CreditWalk {
  taskgraph::Program program;                ///< the iteration's program and its epilogue (with_epilogue)
  std::size_t iteration_tasks = 0;           ///< of those, the iteration's (the rest: its epilogue)
  std::vector<int> compute;                  ///< compute-stream tasks of the iteration, in order
  std::vector<std::vector<int>> jobs;        ///< the data stream's jobs (credit_jobs)
  std::vector<int> job_of;                   ///< [task]: its job, else -1
  std::vector<std::vector<int>> releases;    ///< [task]: jobs whose last computation it is

  explicit CreditWalk(const taskgraph::TaskGraph& graph) {
    DTSIM_CHECK(graph.programs.size() == 1, "a data-parallel iteration is one program");
    iteration_tasks = graph.programs[0].tasks.size();
    program = taskgraph::with_epilogue(graph.programs[0]);
    jobs = taskgraph::credit_jobs(program, taskgraph::Stream::data);
    job_of.assign(program.tasks.size(), -1);
    releases.resize(program.tasks.size());
    for (std::size_t j = 0; j < jobs.size(); ++j)
      for (int i : jobs[j]) job_of[static_cast<std::size_t>(i)] = static_cast<int>(j);
    for (std::size_t i = 0; i < iteration_tasks; ++i) {
      const taskgraph::Task& t = program.tasks[i];
      if (t.stream == taskgraph::Stream::compute) {
        compute.push_back(static_cast<int>(i));
        continue;
      }
      DTSIM_CHECK(t.stream == taskgraph::Stream::data, "compute and data streams only");
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      int last_compute = -1;
      for (int i : jobs[j])
        for (const taskgraph::Dep& d : program.tasks[static_cast<std::size_t>(i)].deps) {
          if (job_of[static_cast<std::size_t>(d.task)] == static_cast<int>(j)) continue;
          DTSIM_CHECK(!d.previous && program.tasks[static_cast<std::size_t>(d.task)].stream == taskgraph::Stream::compute,
                      "a job waits for computations of its iteration");
          last_compute = std::max(last_compute, d.task);
        }
      DTSIM_CHECK(last_compute >= 0, "a job waits for a computation");
      releases[static_cast<std::size_t>(last_compute)].push_back(static_cast<int>(j));
    }
  }
};

std::optional<GraphWalk> fifo_walk(const scheduling::IterationPlan& plan, const taskgraph::TaskGraph& graph) {
  if (plan.credit_bytes > 0) return std::nullopt;
  return GraphWalk(graph);
}

std::optional<CreditWalk> credit_walk(const scheduling::IterationPlan& plan, const taskgraph::TaskGraph& graph) {
  if (plan.credit_bytes <= 0) return std::nullopt;
  return CreditWalk(graph);
}

class IterationRun {
 public:
  IterationRun(const scheduling::IterationPlan& plan, const std::vector<LocalWork>& local, IterationGraphs& graphs,
               Exchanger& exchanger, const sync::SyncPolicy& sync, int workers, int trace_workers,
               const run::ComputeSpeed& speed, const run::CommOverlap& overlap, run::Timeline& timeline)
      : local_(local), graphs_(graphs), exchanging_(fifo_walk(plan, graphs.exchanging)),
        local_walk_(fifo_walk(plan, graphs.local)), credit_(credit_walk(plan, graphs.exchanging)),
        exchanger_(exchanger), sync_(sync), workers_(workers), trace_workers_(trace_workers), speed_(speed),
        overlap_(overlap), states_(static_cast<std::size_t>(workers)), timeline_(timeline) {
    for (int r = 0; r < workers; ++r) states_[static_cast<std::size_t>(r)].rank = r;
  }

  /// After the run: with a credit, worker 0's spans of the iteration it was last in (its jobs and epilogue end
  /// after the iteration's computations; a stopped run's last iteration is partial, as on a FIFO stream).
  void finish() {
    if (!credit_ || trace_workers_ < 1) return;
    WorkerState& w = states_[0];
    graphs_.last_spans = std::move(w.spans[static_cast<std::size_t>(w.iteration % 2)]);
    graphs_.last_exchanged = true;
    graphs_.last_carried = w.iteration > 0;
  }

  void start(const std::vector<sg4::Host*>& hosts) {
    hosts_ = hosts;
    for (int r = 0; r < workers_; ++r) {
      sg4::Host* host = hosts[static_cast<std::size_t>(r)];
      WorkerState* w = &states_[static_cast<std::size_t>(r)];
      if (credit_) {
        sg4::Actor::create("compute" + std::to_string(r), host, [this, w] { compute_credit(*w); });
      } else {
        sg4::Actor::create("compute" + std::to_string(r), host, [this, w] { compute_bsp(*w); });
        if (!exchanging_->data.empty())
          sg4::Actor::create("comm" + std::to_string(r), host, [this, w] { communicate_fifo(*w); });
      }
    }
  }

 private:
  /// One iteration after another while the exchanger grants them: the compute stream's tasks of the iteration's
  /// graph in order, releasing the data stream's tasks as their computations end, the update once the data
  /// stream is done.
  void compute_bsp(WorkerState& w) {
    for (int it = 0; exchanger_.begin_iteration(w.rank, it); ++it) {
      w.iteration = it;
      if (!takes_part(w.rank, it)) {
        sit_out(w.rank, it);
        continue;
      }
      const bool exchanges = sync_.exchanges(it);
      const GraphWalk& g = exchanges ? *exchanging_ : *local_walk_;
      std::vector<double>& end_s =
          exchanges && !g.data.empty() ? w.exchanges.emplace_back(it, std::vector<double>()).second : w.end_s;
      end_s.assign(g.program->tasks.size(), 0.0);
      const bool traced = w.rank < trace_workers_;
      const bool spans = traced && w.rank == 0;
      if (spans) {
        graphs_.last_spans.assign(g.program->tasks.size(), {});
        graphs_.last_exchanged = exchanges;
      }
      run::IterationMarks m;
      m.start_s = sg4::Engine::get_clock();
      for (std::size_t k = 0; k < g.compute.size(); ++k) {
        const auto first = static_cast<std::size_t>(g.compute[k]);
        const taskgraph::Task& t = g.program->tasks[first];
        if (g.waits_data[first]) m.comm_wait_s += wait_for_exchanges(w, g.keeps_one[first]);
        // A worker without trace events runs the tasks that nothing separates (same kind, no data task released
        // or awaited between them) as one phase: the same work at the same speeds, one wait instead of one per
        // layer.
        double work_s = t.duration_s;
        std::size_t last = first;
        while (!traced && k + 1 < g.compute.size() && !g.releases[last]) {
          const auto next = static_cast<std::size_t>(g.compute[k + 1]);
          if (g.waits_data[next] || g.program->tasks[next].category != t.category) break;
          work_s += g.program->tasks[next].duration_s;
          last = next;
          ++k;
        }
        const double start = sg4::Engine::get_clock();
        const double took = phase(w, traced ? t.name : std::string(), t.category.c_str(), work_s);
        (t.category == "forward" ? m.forward_s : t.category == "backward" ? m.backward_s : m.update_s) += took;
        end_s[last] = sg4::Engine::get_clock();
        if (spans) graphs_.last_spans[first] = {start, end_s[last]};
        for (int r = 0; r < g.releases[last]; ++r) w.bucket_ready->release();
      }
      if (exchanges && g.data.empty()) exchanger_.finish_iteration(w.rank, it);
      m.end_s = sg4::Engine::get_clock();
      m.dropped = exchanges && exchanger_.dropped(w.rank, it);
      m.skipped = exchanges && exchanger_.skipped(w.rank, it);
      timeline_.marks[static_cast<std::size_t>(w.rank)].push_back(m);
      forget_awaited(w);
      ended(it);
    }
    // Exchanges left in flight belong to the last iteration.
    if (w.exchanges.size() > static_cast<std::size_t>(w.exchanges_awaited)) {
      run::IterationMarks& last = timeline_.marks[static_cast<std::size_t>(w.rank)].back();
      last.comm_wait_s += wait_for_exchanges(w, 0);
      last.end_s = sg4::Engine::get_clock();
      forget_awaited(w);
    }
    w.finished = true;
    w.bucket_ready->release();
  }

  /// Whether worker `rank` computes in iteration `it` (sync::Scheme::participants: all, but a sample of them
  /// under client sampling).
  bool takes_part(int rank, int it) {
    auto [at, fresh] = sitting_out_.try_emplace(it);
    if (fresh) {
      at->second.member.assign(static_cast<std::size_t>(workers_), 0);
      for (const int p : sync_.participants(workers_, it)) at->second.member[static_cast<std::size_t>(p)] = 1;
      at->second.running = static_cast<int>(std::count(at->second.member.begin(), at->second.member.end(), 1));
    }
    return at->second.member[static_cast<std::size_t>(rank)] != 0;
  }

  /// A worker that sits iteration `it` out: an empty iteration where it stands, then it waits for the last
  /// participant to end it.
  void sit_out(int rank, int it) {
    const double now = sg4::Engine::get_clock();
    timeline_.marks[static_cast<std::size_t>(rank)].push_back({.start_s = now, .end_s = now});
    SittingOut& s = sitting_out_.at(it);
    if (s.running == 0) return;
    ++s.waiting;
    s.done->acquire();
  }

  /// A participant has ended iteration `it`; the last one frees the workers that sat it out.
  void ended(int it) {
    SittingOut& s = sitting_out_.at(it);
    if (--s.running == 0)
      for (; s.waiting > 0; --s.waiting) s.done->release();
  }

  /// Waits until at most `may_stay` of the worker's exchanges are in flight; returns the time waited.
  double wait_for_exchanges(WorkerState& w, int may_stay) {
    const double wait_start = sg4::Engine::get_clock();
    for (; static_cast<int>(w.exchanges.size()) - w.exchanges_awaited > may_stay; ++w.exchanges_awaited)
      w.comm_done->acquire();
    return sg4::Engine::get_clock() - wait_start;
  }

  /// Drops the exchanges the compute stream has waited for (their data streams are done).
  void forget_awaited(WorkerState& w) {
    for (; w.exchanges_awaited > 0; --w.exchanges_awaited, --w.exchanges_done) w.exchanges.pop_front();
  }

  /// The data stream of each exchanging iteration: every task once its computations are released and its
  /// dependencies' lags have passed (a bucket's cycle and launch), then the iteration's end for the exchanger.
  void communicate_fifo(WorkerState& w) {
    for (;;) {
      for (std::size_t k = 0; k < exchanging_->data.size(); ++k) {
        const auto i = static_cast<std::size_t>(exchanging_->data[k]);
        if (exchanging_->acquires[i]) {
          w.bucket_ready->acquire();
          if (w.finished) return;
        }
        // The oldest exchange not done: with exchanges in flight, maybe an iteration before the compute stream's.
        DTSIM_CHECK(w.exchanges.size() > static_cast<std::size_t>(w.exchanges_done), "a data task has its iteration");
        auto& [it, end_s] = w.exchanges[static_cast<std::size_t>(w.exchanges_done)];
        const taskgraph::Task& t = exchanging_->program->tasks[i];
        double not_before = 0;
        for (const taskgraph::Dep& d : t.deps)
          not_before = std::max(not_before, end_s[static_cast<std::size_t>(d.task)] + d.lag_s);
        if (not_before > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(not_before);
        const double start = sg4::Engine::get_clock();
        run_data_task(w, it, t);
        end_s[i] = sg4::Engine::get_clock();
        // Worker 0's spans of the compute stream's iteration (not of an exchange still in flight from before).
        if (w.rank == 0 && w.rank < trace_workers_ && it == w.iteration) graphs_.last_spans[i] = {start, end_s[i]};
      }
      exchanger_.finish_iteration(w.rank, w.exchanges[static_cast<std::size_t>(w.exchanges_done)].first);
      ++w.exchanges_done;
      w.comm_done->release();
    }
  }

  /// A credit stream's iterations (every one exchanges): the compute stream's tasks in order (the carried ones from
  /// the second iteration on), each once the data tasks it waits for have ended, then the epilogue; each job
  /// reported ready once its computations have ended.
  void compute_credit(WorkerState& w) {
    const CreditWalk& g = *credit_;
    const bool spans = w.rank == 0 && w.rank < trace_workers_;
    int it = 0;
    for (; exchanger_.begin_iteration(w.rank, it); ++it) {
      DTSIM_CHECK(sync_.exchanges(it), "a priority plan exchanges every iteration (the loader refuses local steps)");
      w.iteration = it;
      w.ends[static_cast<std::size_t>(it % 2)].assign(g.program.tasks.size(), -1.0);
      if (spans) w.spans[static_cast<std::size_t>(it % 2)].assign(g.program.tasks.size(), {});
      run::IterationMarks m;
      m.start_s = sg4::Engine::get_clock();
      for (int i : g.compute) {
        if (g.program.tasks[static_cast<std::size_t>(i)].carried && it == 0) {
          w.ends[0][static_cast<std::size_t>(i)] = m.start_s;
          continue;
        }
        credit_compute(w, it, i, m);
        for (int job : g.releases[static_cast<std::size_t>(i)]) job_ready(it, job);
      }
      m.end_s = sg4::Engine::get_clock();
      timeline_.marks[static_cast<std::size_t>(w.rank)].push_back(m);
    }
    // The last iteration's epilogue (its updates) belongs to it.
    run::IterationMarks& last = timeline_.marks[static_cast<std::size_t>(w.rank)].back();
    for (std::size_t i = g.iteration_tasks; i < g.program.tasks.size(); ++i)
      credit_compute(w, it - 1, static_cast<int>(i), last);
    last.end_s = sg4::Engine::get_clock();
  }

  /// Compute task i of iteration it of a credit stream's program, once the data tasks it waits for have ended.
  void credit_compute(WorkerState& w, int it, int i, run::IterationMarks& m) {
    const taskgraph::Task& t = credit_->program.tasks[static_cast<std::size_t>(i)];
    const double wait_start = sg4::Engine::get_clock();
    w.job_ended.wait([&] {
      for (const taskgraph::Dep& d : t.deps)
        if ((!d.previous || it > 0) && w.ends[static_cast<std::size_t>((it - (d.previous ? 1 : 0)) % 2)][static_cast<std::size_t>(d.task)] < 0)
          return false;
      return true;
    });
    m.comm_wait_s += sg4::Engine::get_clock() - wait_start;
    const double start = sg4::Engine::get_clock();
    const double took = phase(w, t.name, t.category.c_str(), t.duration_s);
    (t.category == "forward" ? m.forward_s : t.category == "backward" ? m.backward_s : m.update_s) += took;
    const auto at = static_cast<std::size_t>(it % 2);
    w.ends[at][static_cast<std::size_t>(i)] = sg4::Engine::get_clock();
    if (w.rank == 0 && w.rank < trace_workers_) w.spans[at][static_cast<std::size_t>(i)] = {start, w.ends[at][static_cast<std::size_t>(i)]};
  }

  /// A worker has job `job` of iteration `it` ready. Once every worker has (the negotiation of Horovod and
  /// ByteScheduler), the job joins the priority queue.
  void job_ready(int it, int job) {
    if (++ready_count_[{it, job}] < workers_) return;
    const auto& first = credit_->program.tasks[static_cast<std::size_t>(credit_->jobs[static_cast<std::size_t>(job)].front())];
    queue_.push({first.priority, it, job});
    dispatch();
  }

  /// Starts queued jobs, lowest priority first, while credit remains (one job may overdraw it).
  void dispatch() {
    while (!queue_.empty() && in_flight_bytes_ < credit_->program.credit_bytes) {
      const auto [priority, it, job] = queue_.top();
      queue_.pop();
      const std::vector<int>& tasks = credit_->jobs[static_cast<std::size_t>(job)];
      const std::int64_t charge = credit_->program.tasks[static_cast<std::size_t>(tasks.front())].credit_bytes;
      in_flight_bytes_ += charge;
      const double issued = sg4::Engine::get_clock();
      for (int r = 0; r < workers_; ++r)
        sg4::Actor::create("job", hosts_[static_cast<std::size_t>(r)], [this, r, it, job, issued, charge] {
          run_job(states_[static_cast<std::size_t>(r)], it, job, issued);
          if (++done_count_[{it, job}] == workers_) {
            in_flight_bytes_ -= charge;
            dispatch();
          }
        });
    }
  }

  /// One rank's part of job `job` of iteration `it`, issued at `issued_s`: its tasks in order, each once its
  /// dependencies in the job and its lags (counted from the issue for tasks outside the job) allow.
  void run_job(WorkerState& w, int it, int job, double issued_s) {
    DTSIM_CHECK(w.iteration <= it + 1, "a job ends before the next iteration's backward");
    const auto at = static_cast<std::size_t>(it % 2);
    for (int i : credit_->jobs[static_cast<std::size_t>(job)]) {
      const taskgraph::Task& t = credit_->program.tasks[static_cast<std::size_t>(i)];
      double not_before = 0;
      for (const taskgraph::Dep& d : t.deps)
        not_before = std::max(not_before, (credit_->job_of[static_cast<std::size_t>(d.task)] == job
                                               ? w.ends[at][static_cast<std::size_t>(d.task)]
                                               : issued_s) + d.lag_s);
      if (not_before > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(not_before);
      const double start = sg4::Engine::get_clock();
      run_data_task(w, it, t);
      w.ends[at][static_cast<std::size_t>(i)] = sg4::Engine::get_clock();
      if (w.rank == 0 && w.rank < trace_workers_) w.spans[at][static_cast<std::size_t>(i)] = {start, w.ends[at][static_cast<std::size_t>(i)]};
      w.job_ended.notify_all();
    }
  }

  /// A data-stream task of worker w's iteration it: local work on the compression lane, or the bucket's exchange.
  void run_data_task(WorkerState& w, int it, const taskgraph::Task& t) {
    const double start = sg4::Engine::get_clock();
    if (t.op == taskgraph::Op::compute) {
      lane_phase(w.rank, t.category.c_str(), t.name, t.duration_s);
      return;
    }
    exchanging(w, +1);
    exchanger_.exchange(w.rank, it, static_cast<std::size_t>(t.item));
    exchanging(w, -1);
    if (w.rank < trace_workers_)
      timeline_.events.push_back({w.rank, "comm", t.name, "comm", start, sg4::Engine::get_clock(),
                                  local_[static_cast<std::size_t>(t.item)].payload_bytes});
  }

  /// Replays local work of the communication stream on the worker's compression lane.
  void lane_phase(int rank, const char* category, std::string name, double duration_s) {
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::sleep_for(duration_s);
    if (rank < trace_workers_)
      timeline_.events.push_back({rank, "compress", std::move(name), category, start, sg4::Engine::get_clock(), 0});
  }

  /// A worker's exchanges in progress go up or down by `delta`; its compute phases re-evaluate their speed.
  void exchanging(WorkerState& w, int delta) {
    if (overlap_.slowdown == 1) return;
    w.exchanges_running += delta;
    if (w.phase_waiting) {
      w.phase_waiting = false;
      w.comm_changed->release();
    }
  }

  /// Replays a compute phase on the worker's compute lane; returns its duration. While the worker's exchanges
  /// run, its work progresses at 1 / overlap_.slowdown of its speed.
  double phase(WorkerState& w, std::string name, const char* category, double duration_s) {
    const double start = sg4::Engine::get_clock();
    if (overlap_.slowdown == 1) {
      if (speed_.slowed()) duration_s = speed_.duration_s(w.rank, w.iteration, start, duration_s);
      sg4::this_actor::sleep_for(duration_s);
    } else {
      // Integrates the work over the straggler profile's speed and the exchanges' slowdown, re-evaluated at
      // every change of either (run::SpeedProfile::finish_s in closed form).
      for (double t = start, left = duration_s * speed_.factor(w.rank, w.iteration); left > 0;) {
        const double speed = speed_.speed_at(w.rank, t) / (w.exchanges_running > 0 ? overlap_.slowdown : 1.0);
        const double finish = t + left / speed;
        const double wake = std::min(finish, speed_.next_change_after(w.rank, t));
        // As ConditionVariable::wait_until: a wake in the past waits 0. A release left over from a wait that had
        // timed out wakes the next wait at once; its pass changes nothing (no time went by).
        w.phase_waiting = true;
        const bool timed_out = w.comm_changed->acquire_timeout(std::max(0.0, wake - sg4::Engine::get_clock()));
        w.phase_waiting = false;
        if (timed_out && wake == finish) break;
        const double now = sg4::Engine::get_clock();
        left -= (now - t) * speed;
        t = now;
      }
      duration_s = sg4::Engine::get_clock() - start;
    }
    if (w.rank < trace_workers_)
      timeline_.events.push_back({w.rank, "compute", std::move(name), category, start, sg4::Engine::get_clock(), 0});
    return duration_s;
  }

  using Queued = std::tuple<int, int, int>;  ///< (priority, iteration, job): lowest first

  /// An iteration's participants, those still running it, and the workers waiting for its end.
  struct SittingOut {
    std::vector<char> member;
    int running = 0;
    int waiting = 0;
    sg4::SemaphorePtr done = sg4::Semaphore::create(0);
  };

  const std::vector<LocalWork>& local_;
  IterationGraphs& graphs_;
  std::optional<GraphWalk> exchanging_;  ///< FIFO plans
  std::optional<GraphWalk> local_walk_;  ///< FIFO plans
  std::optional<CreditWalk> credit_;     ///< priority plans
  Exchanger& exchanger_;
  const sync::SyncPolicy& sync_;
  int workers_;
  int trace_workers_;
  const run::ComputeSpeed& speed_;
  const run::CommOverlap& overlap_;
  std::vector<WorkerState> states_;
  std::vector<sg4::Host*> hosts_;
  std::map<std::pair<int, int>, int> ready_count_;  ///< (iteration, job): workers that have it ready
  std::map<std::pair<int, int>, int> done_count_;   ///< (iteration, job): workers that have ended it
  std::map<int, SittingOut> sitting_out_;  ///< FIFO: per iteration
  std::priority_queue<Queued, std::vector<Queued>, std::greater<>> queue_;
  std::int64_t in_flight_bytes_ = 0;
  run::Timeline& timeline_;
};

}  // namespace

std::vector<double> simulate_schedules_s(const platform::PlatformSpec& platform,
                                         const std::vector<collectives::Schedule>& schedules, bool fuse) {
  if (schedules.empty()) return {};
  const int ranks = schedules.front().ranks;
  DTSIM_CHECK(ranks >= 1 && ranks <= platform.hosts(), "ranks must fit on the platform");
  sg4::Engine engine = make_engine(ranks);
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::vector<std::vector<RankStep>>> by_schedule;
  for (const collectives::Schedule& s : schedules) {
    DTSIM_CHECK(s.ranks == ranks, "all plans have the same ranks");
    add_pairs(s, pairs);
    by_schedule.push_back(split_by_rank(flow_steps(s, fuse), ranks));
  }
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform, pairs);
  const platform::Fabric fabric(platform);
  sg4::BarrierPtr barrier = sg4::Barrier::create(static_cast<unsigned>(ranks));
  std::vector<run::WorkerTraffic> traffic(static_cast<std::size_t>(ranks));
  std::vector<double> start(schedules.size()), end(schedules.size());
  for (int r = 0; r < ranks; ++r)
    sg4::Actor::create("rank" + std::to_string(r), hosts[static_cast<std::size_t>(r)], [&, r] {
      for (std::size_t k = 0; k < schedules.size(); ++k) {
        if (k == 0) barrier->wait();
        start[k] = sg4::Engine::get_clock();
        execute_steps(r, by_schedule[k][static_cast<std::size_t>(r)], fabric, "", traffic[static_cast<std::size_t>(r)]);
        end[k] = std::max(end[k], sg4::Engine::get_clock());
        barrier->wait();
      }
    });
  engine.run();
  std::vector<double> times;
  for (std::size_t k = 0; k < schedules.size(); ++k) times.push_back(end[k] - start[k]);
  return times;
}

namespace {

std::string at_time(double t) { return core::format_duration(t); }

/// Injects the failures and takes workers out; stops every actor when the exchanger cannot go on.
class FailureInjector {
 public:
  FailureInjector(const std::vector<FailureEvent>& failures, const std::vector<sg4::Host*>& hosts,
                  run::Timeline& timeline)
      : failures_(failures), hosts_(hosts), timeline_(timeline) {}

  void set_exchanger(Exchanger* exchanger) { exchanger_ = exchanger; }

  /// A daemon on a host that never crashes replays the failures at their times.
  void start() {
    if (failures_.empty()) return;
    std::vector<bool> crashes(hosts_.size(), false);
    for (const FailureEvent& f : failures_)
      if (f.worker >= 0) crashes[static_cast<std::size_t>(f.worker)] = true;
    std::size_t safe = 0;
    while (safe + 1 < hosts_.size() && crashes[safe]) ++safe;
    sg4::Actor::create("failures", hosts_[safe], [this] { replay(); })->daemonize();
  }

  void take_out(int rank, const std::string& why) {
    if (std::find(out_.begin(), out_.end(), rank) != out_.end()) return;
    out_.push_back(rank);
    timeline_.out.push_back(rank);
    timeline_.failures.push_back(at_time(sg4::Engine::get_clock()) + ": " + why);
    if (!exchanger_->survives(out_)) {
      timeline_.stopped = why + "; the job cannot go on without worker " + std::to_string(rank);
      timeline_.stopped_at_s = sg4::Engine::get_clock();
      sg4::Actor::kill_all();
      sg4::this_actor::exit();
    }
    exchanger_->worker_failed(rank);
    hosts_[static_cast<std::size_t>(rank)]->turn_off();
  }

 private:
  void replay() {
    // Link repairs interleave with the failures in time order.
    std::vector<std::pair<double, const FailureEvent*>> events;
    for (const FailureEvent& f : failures_) {
      events.emplace_back(f.at_s, &f);
      if (f.duration_s) events.emplace_back(f.at_s + *f.duration_s, &f);
    }
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, f] : events) {
      if (at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(at);
      if (f->worker >= 0) {
        take_out(f->worker, "worker " + std::to_string(f->worker) + " crashed");
        continue;
      }
      sg4::Link* link = sg4::Link::by_name_or_null(f->link);
      const bool repair = f->duration_s && at > f->at_s;
      if (link) repair ? link->turn_on() : link->turn_off();
      timeline_.failures.push_back(at_time(at) + ": link " + f->link + (repair ? " back up" : " down"));
    }
  }

  const std::vector<FailureEvent>& failures_;
  const std::vector<sg4::Host*>& hosts_;
  run::Timeline& timeline_;
  Exchanger* exchanger_ = nullptr;
  std::vector<int> out_;
};

}  // namespace

run::Timeline simulate_iterations(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                  const std::vector<LocalWork>& local, IterationGraphs& graphs,
                                  const ExchangerFactory& make_exchanger,
                                  const std::vector<std::pair<int, int>>& pairs, int workers,
                                  const sync::SyncPolicy& sync, int trace_workers, const run::ComputeSpeed& speed,
                                  const std::vector<FailureEvent>& failures, const run::CommOverlap& overlap,
                                  std::int64_t peak_actors) {
  DTSIM_CHECK(workers >= 1 && workers <= platform.hosts(), "workers must fit on the platform");
  DTSIM_CHECK(local.size() == plan.buckets.size(), "local work per bucket");
  sg4::Engine engine = make_engine(peak_actors);
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform, pairs);
  const platform::Fabric fabric(platform);
  run::Timeline timeline;
  timeline.marks.assign(static_cast<std::size_t>(workers), {});
  timeline.traffic.assign(static_cast<std::size_t>(workers), {});
  FailureInjector injector(failures, hosts, timeline);
  RunContext context{fabric, hosts, timeline, trace_workers,
                     [&injector](int rank, const std::string& why) { injector.take_out(rank, why); }};
  const std::unique_ptr<Exchanger> exchanger = make_exchanger(context);
  injector.set_exchanger(exchanger.get());
  IterationRun sim(plan, local, graphs, *exchanger, sync, workers, trace_workers, speed, overlap, timeline);
  sim.start(hosts);
  injector.start();
  engine.run();
  sim.finish();
  return timeline;
}

}  // namespace dtsim::actors
