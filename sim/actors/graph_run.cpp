#include "sim/actors/graph_run.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "sim/actors/condition.hpp"
#include "sim/actors/engine.hpp"
#include "sim/actors/execute_steps.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/simgrid_platform.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
using taskgraph::Op;
using taskgraph::Task;

namespace {

/// A program's tasks per stream, in program order.
using StreamTasks = std::array<std::vector<int>, taskgraph::kStreams>;

StreamTasks stream_tasks(const taskgraph::Program& program) {
  StreamTasks tasks;
  for (std::size_t i = 0; i < program.tasks.size(); ++i)
    tasks[static_cast<std::size_t>(program.tasks[i].stream)].push_back(static_cast<int>(i));
  return tasks;
}

/// Collectives' mailboxes per stream. Collectives on different streams of a rank run at the same time, on the same
/// pairs at times (ZeRO-3's gathers and reduce-scatters), so each stream has its own; on one stream every member
/// of a group runs the same program's collectives one after another, so a pair's messages are posted and
/// received in the same order and FIFO matching never mixes two collectives up, however far apart the members
/// are (the message level has no barrier). A channel per collective instance would do the same with a mailbox
/// per message that SimGrid keeps to the end: 0.9 GB for the 7B TP8xDP8 iteration.
constexpr std::array<const char*, taskgraph::kStreams> kChannels{"compute:", "tensor:", "data:", "gather:", "pipeline:"};

/// The mailbox of receive `task` of `rank`.
sg4::Mailbox* receive_box(int rank, int task) {
  return sg4::Mailbox::by_name("p" + std::to_string(rank) + ":" + std::to_string(task));
}

class GraphExecutor {
 public:
  GraphExecutor(const taskgraph::TaskGraph& graph, const GraphRanks& ranks, const platform::Fabric& fabric, bool fuse,
                double overlap_slowdown)
      : graph_(graph), ranks_(ranks), fabric_(fabric), fuse_(fuse), slowdown_(overlap_slowdown),
        states_(ranks.role.size()) {
    for (const taskgraph::Program& p : graph.programs) {
      streams_.push_back(stream_tasks(p));
      receive_of_.emplace_back(p.tasks.size(), -1);
    }
    for (std::size_t r = 0; r < graph.programs.size(); ++r)
      for (std::size_t j = 0; j < graph.programs[r].tasks.size(); ++j) {
        const Task& t = graph.programs[r].tasks[j];
        if (t.op == Op::recv)
          receive_of_[static_cast<std::size_t>(t.peer)][static_cast<std::size_t>(t.match)] = static_cast<int>(j);
      }
    run_.spans.resize(ranks.role.size());
    run_.traffic.resize(ranks.role.size());
    for (std::size_t rank = 0; rank < ranks.role.size(); ++rank) {
      const std::size_t tasks = program(static_cast<int>(rank)).tasks.size();
      run_.spans[rank].resize(tasks);
      states_[rank].done.assign(tasks, 0);
    }
  }

  /// Creates every rank's stream actors and makes each the permanent receiver of its receives' mailboxes.
  void start(const std::vector<sg4::Host*>& hosts) {
    for (int rank = 0; rank < static_cast<int>(ranks_.role.size()); ++rank) {
      const StreamTasks& streams = streams_[static_cast<std::size_t>(role(rank))];
      std::array<sg4::ActorPtr, taskgraph::kStreams> actors;
      for (std::size_t s = 0; s < streams.size(); ++s)
        if (!streams[s].empty())
          actors[s] = sg4::Actor::create("rank" + std::to_string(rank) + "s" + std::to_string(s),
                                         hosts[static_cast<std::size_t>(rank)], [this, rank, s] { stream(rank, s); });
      const auto& tasks = program(rank).tasks;
      for (std::size_t i = 0; i < tasks.size(); ++i)
        if (tasks[i].op == Op::recv)
          receive_box(rank, static_cast<int>(i))->set_receiver(actors[static_cast<std::size_t>(tasks[i].stream)]);
    }
  }

  GraphRun result() { return std::move(run_); }

 private:
  struct RankState {
    std::vector<char> done;  ///< per task of the rank's program
    Condition changed;       ///< a task of the rank ended
    int communicating = 0;   ///< the rank's collectives and sends in progress
    sg4::MutexPtr mutex = sg4::Mutex::create();                                 ///< guards communicating
    sg4::ConditionVariablePtr comm_changed = sg4::ConditionVariable::create();  ///< communicating changed
  };
  /// The members of a collective instance that have not reached its end yet.
  struct Meeting {
    sg4::BarrierPtr barrier;
    int arrived = 0;
  };

  int role(int rank) const { return ranks_.role[static_cast<std::size_t>(rank)]; }
  const taskgraph::Program& program(int rank) const { return graph_.programs[static_cast<std::size_t>(role(rank))]; }

  /// Runs stream `s` of `rank`: each task once its dependencies on the rank have ended.
  void stream(int rank, std::size_t s) {
    RankState& state = states_[static_cast<std::size_t>(rank)];
    const auto& tasks = program(rank).tasks;
    for (int i : streams_[static_cast<std::size_t>(role(rank))][s]) {
      const Task& t = tasks[static_cast<std::size_t>(i)];
      state.changed.wait([&] {
        for (const taskgraph::Dep& d : t.deps)
          if (!state.done[static_cast<std::size_t>(d.task)]) return false;
        return true;
      });
      double not_before = 0;  // the dependencies' lags
      for (const taskgraph::Dep& d : t.deps)
        if (d.lag_s > 0)
          not_before = std::max(not_before, run_.spans[static_cast<std::size_t>(rank)][static_cast<std::size_t>(d.task)].end_s + d.lag_s);
      if (not_before > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(not_before);
      taskgraph::Span& span = run_.spans[static_cast<std::size_t>(rank)][static_cast<std::size_t>(i)];
      span.start_s = sg4::Engine::get_clock();
      const bool communicates = t.op != Op::compute && t.op != Op::recv;
      if (communicates) communicating(state, +1);
      execute(rank, i, t);
      if (communicates) communicating(state, -1);
      span.end_s = sg4::Engine::get_clock();
      state.done[static_cast<std::size_t>(i)] = 1;
      state.changed.notify_all();
    }
  }

  /// The rank's communication in progress goes up or down by `delta`; its computation re-evaluates its speed.
  void communicating(RankState& state, int delta) {
    if (slowdown_ == 1) return;
    const std::unique_lock lock(*state.mutex);
    state.communicating += delta;
    state.comm_changed->notify_all();
  }

  /// Computes `work_s` of work, at 1 / slowdown of the speed while the rank communicates (run::CommOverlap).
  void compute(RankState& state, double work_s) {
    if (slowdown_ == 1) {
      sg4::this_actor::sleep_for(work_s);
      return;
    }
    std::unique_lock lock(*state.mutex);
    for (double t = sg4::Engine::get_clock(), left = work_s; left > 0;) {
      const double slowdown = state.communicating > 0 ? slowdown_ : 1.0;
      if (state.comm_changed->wait_until(lock, t + left * slowdown) == std::cv_status::timeout) break;
      const double now = sg4::Engine::get_clock();
      left -= (now - t) / slowdown;
      t = now;
    }
  }

  const RankPart& part(int rank, int task) const {
    const int at = ranks_.part_of[static_cast<std::size_t>(role(rank))][static_cast<std::size_t>(task)];
    DTSIM_CHECK(at >= 0, "every communication task has a part on every rank");
    return ranks_.parts[static_cast<std::size_t>(rank)][static_cast<std::size_t>(at)];
  }

  void execute(int rank, int i, const Task& t) {
    static char payload = 0;
    run::WorkerTraffic& traffic = run_.traffic[static_cast<std::size_t>(rank)];
    if (t.op == Op::compute) {
      compute(states_[static_cast<std::size_t>(rank)], t.duration_s);
      return;
    }
    if (t.op == Op::recv) {
      receive_box(rank, i)->get<char>();
      traffic.bytes_received += graph_.programs[static_cast<std::size_t>(t.peer)].tasks[static_cast<std::size_t>(t.match)].bytes;
      return;
    }
    const RankPart& p = part(rank, i);
    if (p.launch_s > 0) sg4::this_actor::sleep_for(p.launch_s);
    if (t.op == Op::send) {
      const int receive = receive_of_[static_cast<std::size_t>(role(rank))][static_cast<std::size_t>(i)];
      receive_box(p.peer, receive)->put(&payload, static_cast<std::uint64_t>(t.bytes));
      traffic.bytes_sent += t.bytes;
      return;
    }
    if (!p.steps) return;  // a group of one
    execute_steps(rank, *p.steps, fabric_, kChannels[static_cast<std::size_t>(t.stream)], traffic);
    if (!fuse_ || p.members < 2) return;
    // Fused flows end at different times on different ranks; the collective ends for all at the last one.
    const std::pair<int, int> key{p.instance, i};
    Meeting& m = meetings_[key];
    if (!m.barrier) m.barrier = sg4::Barrier::create(static_cast<unsigned>(p.members));
    const sg4::BarrierPtr barrier = m.barrier;
    if (++m.arrived == p.members) meetings_.erase(key);
    barrier->wait();
  }

  const taskgraph::TaskGraph& graph_;
  const GraphRanks& ranks_;
  const platform::Fabric& fabric_;
  bool fuse_;
  double slowdown_;
  std::vector<StreamTasks> streams_;              ///< per role
  std::vector<std::vector<int>> receive_of_;      ///< [role][send task]: the matching receive in the peer's program
  std::vector<RankState> states_;                 ///< per rank
  std::map<std::pair<int, int>, Meeting> meetings_;  ///< (instance, task) of the flow level's collectives in progress
  GraphRun run_;
};

}  // namespace

std::int64_t graph_actors(const taskgraph::TaskGraph& graph, const std::vector<int>& role) {
  std::vector<std::int64_t> per_role;
  for (const taskgraph::Program& p : graph.programs) {
    std::int64_t streams = 0;
    for (const std::vector<int>& tasks : stream_tasks(p)) streams += tasks.empty() ? 0 : 1;
    per_role.push_back(streams);
  }
  std::int64_t actors = 0;
  for (int r : role) actors += per_role[static_cast<std::size_t>(r)];
  return actors;
}

GraphRun simulate_graph(const platform::PlatformSpec& platform, const taskgraph::TaskGraph& graph,
                        const GraphRanks& ranks, bool fuse, double overlap_slowdown) {
  taskgraph::check(graph);
  DTSIM_CHECK(static_cast<int>(ranks.role.size()) <= platform.hosts(), "ranks must fit on the platform");
  DTSIM_CHECK(ranks.parts.size() == ranks.role.size(), "parts per rank");
  sg4::Engine engine = make_engine(graph_actors(graph, ranks.role));
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform, ranks.pairs);
  const platform::Fabric fabric(platform);
  GraphExecutor executor(graph, ranks, fabric, fuse, overlap_slowdown);
  executor.start(hosts);
  engine.run();
  return executor.result();
}

}  // namespace dtsim::actors
