#pragma once
/// The SimGrid walker of task graphs, the one executor of the `flow` and `message` levels: every rank runs
/// programs (taskgraph::Program) one run after another, as the analytic level's list scheduler does in closed
/// form (list_schedule.hpp). A rank's lead stream (compute) asks the client which program each run is, queues the
/// run and walks its tasks; every other stream the rank's programs use is an actor that walks the queued runs in
/// order. Each stream runs its tasks of a run in program order, each once its dependencies have ended (in the same
/// run, or in the previous run of the same program: Dep::previous) and their lags have passed. A data stream with a
/// credit runs ByteScheduler's discipline instead (CreditQueue). The client says what the program is in each run
/// and how a communication task executes: data parallelism (simgrid_run.cpp: a run per iteration, exchanges by the
/// architecture's Exchanger) and parallel layouts (graph_run.cpp: one run of the whole graph, collectives by their
/// plans' steps, sends and receives by mailboxes).
///
/// The lead stream's computations are phases at the rank's straggler speed, slowed while the rank communicates
/// (run::CommOverlap); computations on other streams (compression) take their time beside it. A stream waits for
/// exactly the task it needs: a semaphore per stream, released only when that task ends (a token per task, or a
/// condition woken at every end, would cost simcalls whether or not anyone waits).
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "sim/results/timeline.hpp"
#include "sim/taskgraph/list_schedule.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::actors {

/// A program as the walker runs it.
struct Walk {
  /// `program` (check()ed) outlives the walk. Its tasks from `epilogue_from` on run once, after the rank's last
  /// run, on the lead stream (taskgraph::with_epilogue's: they finish the last run's work).
  Walk(const taskgraph::Program& program, std::size_t epilogue_from);
  explicit Walk(const taskgraph::Program& program) : Walk(program, program.tasks.size()) {}

  const taskgraph::Program* program;
  std::size_t epilogue_from;
  std::array<std::vector<int>, taskgraph::kStreams> streams;  ///< a run's tasks per stream, in program order
  std::vector<int> epilogue;                                  ///< the epilogue's tasks, in program order
  bool credit = false;                  ///< the data stream has a credit: its jobs run by the credit discipline
  std::vector<std::vector<int>> jobs;   ///< credit: the data stream's jobs (taskgraph::credit_jobs)
  std::vector<int> job_of;              ///< credit: [task] its job, else -1
  std::vector<std::vector<int>> releases;  ///< credit: [task] the jobs whose last outside dependency it is
  std::vector<char> gates;  ///< [task]: a task of another stream waits for it
  std::vector<char> gated;  ///< [task]: it waits for a task of another stream
  bool others = false;      ///< it has tasks off the lead stream
};

/// Actors a walker keeps alive for a rank that runs `walks`: one per stream they walk (the lead always).
std::int64_t walk_actors(const std::vector<const Walk*>& walks);

/// What the walker reports of a unit of work it ran: one task, or consecutive compute tasks merged into a phase.
struct Ran {
  const taskgraph::Task* task = nullptr;  ///< its first task
  int first = -1;  ///< its first task
  int last = -1;   ///< its last task (a phase: a later task of the lead stream)
  double waited_s = 0;  ///< what the unit waited for tasks of other streams before it started
  double start_s = 0;
  double end_s = 0;
  double took_s = 0;  ///< compute on the lead stream: the phase's duration; else end_s - start_s
};

/// What the walker asks its client.
class WalkClient {
 public:
  static constexpr int kStop = -1;  ///< next(): the rank has no more runs
  static constexpr int kSkip = -2;  ///< next(): the rank sits this run out (and goes on to the next)
  virtual ~WalkClient() = default;
  /// The walk (its index in the walker's walks) that `rank` runs as run `it`, or kSkip, or kStop. Called by the
  /// rank's lead stream before each run; may block.
  virtual int next(int rank, int it) = 0;
  /// Runs `task` (index `index`), a communication task (not Op::compute), of `rank`'s run `it`.
  virtual void communicate(int rank, int it, int index, const taskgraph::Task& task) = 0;
  /// A unit of `rank`'s run `it` on stream `stream` ended.
  virtual void ended(int /*rank*/, int /*it*/, taskgraph::Stream /*stream*/, const Ran& /*ran*/) {}
  /// Stream `stream` of `rank` has run its tasks of run `it` (the lead stream: also where it has none); its last
  /// task counts as ended only when this returns (an iteration's exchanges end with Exchanger::finish_iteration).
  virtual void stream_done(int /*rank*/, int /*it*/, taskgraph::Stream /*stream*/) {}
  /// After its last run (and that run's epilogue) `rank`'s lead stream waited `waited_s` for work that no task
  /// of it had waited for (left in flight: Overlap Local-SGD); also called, with 0, after an epilogue.
  virtual void drained(int /*rank*/, double /*waited_s*/) {}
};

/// How the walker runs the ranks' compute.
struct WalkOptions {
  const run::ComputeSpeed* speed = nullptr;  ///< straggler profiles; null: every rank at nominal speed
  double overlap_slowdown = 1;  ///< while a rank communicates its computation runs at 1 / this of its speed
  std::vector<char> spans;  ///< per rank: keep the spans of its runs (take_last_spans)
  /// Per rank (one without trace events): consecutive compute tasks that nothing separates (same category, no
  /// other stream waiting for one or waited for by the next, no lag) run as one phase: the same work at the same
  /// speeds, one wait instead of one per layer. Not on walks with a credit (their computations release jobs).
  std::vector<char> merge;
  /// Per walk: the iteration each of its tasks belongs to, where one run holds many (a layout's whole graph): the
  /// iteration its compute runs at the speed of (empty: the run's).
  std::vector<std::vector<int>> iteration_of;
};

class GraphWalker {
 public:
  /// `walks` outlive the walker; rank r runs on hosts[r] the walks of `rank_walks[r]` (indices into `walks`).
  GraphWalker(const std::vector<Walk>& walks, std::vector<std::vector<int>> rank_walks, WalkClient& client,
              WalkOptions options);
  /// Creates every rank's stream actors.
  void start(const std::vector<simgrid::s4u::Host*>& hosts);
  /// The actor of `rank`'s stream `stream` (null when it has none).
  simgrid::s4u::ActorPtr actor(int rank, taskgraph::Stream stream) const;
  /// After the run: the spans of the last run `rank` ran (every task of its walk; with its epilogue), its walk
  /// (-1: none) and whether that run was not its walk's first (its carried tasks ran).
  std::vector<taskgraph::Span> take_last_spans(int rank);
  int last_walk(int rank) const;
  bool last_carried(int rank) const;

 private:
  /// A rank's run of a walk.
  struct Run {
    int it = 0;
    int walk = 0;
    int previous = -1;            ///< the run of the same walk before it (index), -1 in its first
    std::vector<taskgraph::Span> spans;  ///< with WalkOptions::spans: per task, its span (end -1: not yet)
    std::vector<double> end_s;           ///< else per task, when it ended (-1: not yet)
    int left = 0;                 ///< its tasks yet to end
    bool awaited = false;         ///< a task of the lead stream waited for one of its tasks on another stream
    double end(std::size_t task) const { return spans.empty() ? end_s[task] : spans[task].end_s; }
    void ran(std::size_t task, double from_s, double to_s) {
      if (spans.empty())
        end_s[task] = to_s;
      else
        spans[task] = {from_s, to_s};
    }
  };
  /// What a stream waits for: task `task` of run `run`, the start of run `run`, or every run's end.
  static constexpr int kNone = -3;
  static constexpr int kRunStarts = -1;  ///< Await::task: the start of run `run`
  static constexpr int kDrained = -2;    ///< Await::run: every task of every run has ended
  struct Await {
    int run = kNone;
    int task = kNone;
  };
  struct RankState {
    int rank = 0;
    std::deque<Run> runs;       ///< runs from index `base` on
    int base = 0;
    int count = 0;              ///< runs queued so far
    std::vector<int> latest;    ///< per walk: its last run's index, -1
    int open_tasks = 0;         ///< tasks of queued runs yet to end
    int unawaited = 0;          ///< runs with tasks off the lead stream that the lead stream never waited for
    bool stopped = false;       ///< the lead stream has queued its last run
    std::array<Await, taskgraph::kStreams> awaiting;
    std::array<simgrid::s4u::SemaphorePtr, taskgraph::kStreams> wake;
    std::array<simgrid::s4u::ActorPtr, taskgraph::kStreams> actors;
    int communicating = 0;      ///< communication tasks in progress
    /// Wakes a compute phase waiting in `phase` when `communicating` changes. No mutex: SimGrid actors run one at
    /// a time, and a lock and a condition variable would cost four simcalls per change and two per phase.
    simgrid::s4u::SemaphorePtr comm_changed;
    bool phase_waiting = false;
  };
  /// ByteScheduler's scheduler (Peng et al., SOSP'19) of a walk's stream with a credit over every rank.
  struct CreditQueue {
    using Queued = std::tuple<int, int, int>;  ///< (priority, run, job): lowest first
    std::map<std::pair<int, int>, int> ready;  ///< (it, job): ranks that have it ready
    std::map<std::pair<int, int>, int> done;   ///< (it, job): ranks that have ended it
    std::priority_queue<Queued, std::vector<Queued>, std::greater<>> queue;
    std::int64_t in_flight_bytes = 0;
  };

  Run& run_at(RankState& st, int n) { return st.runs[static_cast<std::size_t>(n - st.base)]; }
  /// The iteration task `task` of `run` computes in (WalkOptions::iteration_of).
  int iteration(const Run& run, std::size_t task) const {
    return options_.iteration_of.empty() ? run.it
                                         : options_.iteration_of[static_cast<std::size_t>(run.walk)][task];
  }
  void lead(RankState& st);
  void follow(RankState& st, std::size_t stream);
  int begin_run(RankState& st, int it, int walk);
  void walk_tasks(RankState& st, int n, taskgraph::Stream stream, const std::vector<int>& tasks, bool report);
  double await_deps(RankState& st, int n, std::size_t stream, const taskgraph::Task& t);
  void await(RankState& st, std::size_t stream, Await what);
  void end_task(RankState& st, int n, int task);
  void retire(RankState& st);
  void execute(RankState& st, int n, int index, const taskgraph::Task& t, double waited_s);
  void communicating(RankState& st, int delta);
  double phase(RankState& st, int it, double work_s);
  void job_ready(int walk, int it, int job);
  void dispatch(int walk);
  void run_job(RankState& st, int walk, int it, int job, double issued_s);

  const std::vector<Walk>& walks_;
  std::vector<std::vector<int>> rank_walks_;
  WalkClient& client_;
  WalkOptions options_;
  std::vector<RankState> ranks_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<CreditQueue> credit_;  ///< per walk
};

}  // namespace dtsim::actors
