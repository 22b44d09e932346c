#include "sim/actors/graph_run.hpp"

#include <array>
#include <cmath>
#include <map>
#include <string>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include "sim/actors/engine.hpp"
#include "sim/actors/execute_steps.hpp"
#include "sim/actors/graph_walker.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/simgrid_platform.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
using taskgraph::Op;
using taskgraph::Task;

namespace {

/// Collectives' mailboxes per stream. Collectives on different streams of a rank run at the same time, on the same
/// pairs at times (ZeRO-3's gathers and reduce-scatters), so each stream has its own; on one stream every member
/// of a group runs the same program's collectives one after another, so a pair's messages are posted and
/// received in the same order and FIFO matching never mixes two collectives up, however far apart the members
/// are (the message level has no barrier). A channel per collective instance would do the same with a mailbox
/// per message that SimGrid keeps to the end: 0.9 GB for the 7B TP8xDP8 iteration.
const std::string& channel_of(taskgraph::Stream stream) {
  static const std::array<std::string, taskgraph::kStreams> channels = [] {
    std::array<std::string, taskgraph::kStreams> names;
    for (std::size_t s = 0; s < names.size(); ++s)
      names[s] = std::string(taskgraph::stream_name(static_cast<taskgraph::Stream>(s))) + ":";
    return names;
  }();
  return channels[static_cast<std::size_t>(stream)];
}

/// The mailbox of receive `task` of `rank`.
sg4::Mailbox* receive_box(int rank, int task) {
  return sg4::Mailbox::by_name("p" + std::to_string(rank) + ":" + std::to_string(task));
}

/// The layout's side of the walk: one run of its role's program per rank; collectives by their plans' steps,
/// sends and receives by mailboxes.
class LayoutClient final : public WalkClient {
 public:
  LayoutClient(const taskgraph::TaskGraph& graph, const GraphRanks& ranks, StepContext& steps, bool fuse,
              FailureInjector& failures, const std::vector<sg4::Host*>& hosts, run::Timeline& outcome)
      : graph_(graph), ranks_(ranks), steps_(steps), fuse_(fuse), failures_(failures), traffic_(ranks.role.size()),
        context_{steps, hosts, outcome, 0, [this](int rank, const std::string& why) { failures_.take_out(rank, why); }},
        servers_(context_, traffic_) {
    for (const taskgraph::Program& p : graph.programs) receive_of_.emplace_back(p.tasks.size(), -1);
    for (std::size_t r = 0; r < graph.programs.size(); ++r)
      for (std::size_t j = 0; j < graph.programs[r].tasks.size(); ++j) {
        const Task& t = graph.programs[r].tasks[j];
        if (t.op == Op::recv)
          receive_of_[static_cast<std::size_t>(t.peer)][static_cast<std::size_t>(t.match)] = static_cast<int>(j);
      }
  }

  int next(int rank, int it) override { return it == 0 ? role(rank) : kStop; }

  /// A transfer that breaks (a link went down, or its peer crashed) takes the rank out: the process aborts on the
  /// broken connection, as NCCL does, and the job stops.
  void communicate(int rank, int it, int i, const Task& t) override {
    try {
      exchange(rank, it, i, t);
    } catch (const simgrid::NetworkFailureException&) {
      failures_.take_out(rank, lost_connection(rank));
    }
  }

  /// A collective waits its launch, then runs the rank's steps on its stream's channel; with `fuse` the group's
  /// members wait for each other before and after them. A send puts its bytes on the mailbox of the matching
  /// receive.
  void exchange(int rank, int /*it*/, int i, const Task& t) {
    static char payload = 0;
    run::WorkerTraffic& traffic = traffic_[static_cast<std::size_t>(rank)];
    if (t.op == Op::recv) {
      receive_box(rank, i)->get<char>();
      traffic.bytes_received += graph_.programs[static_cast<std::size_t>(t.peer)].tasks[static_cast<std::size_t>(t.match)].bytes;
      return;
    }
    const RankPart& p = part(rank, i);
    if (p.launch_s > 0) sg4::this_actor::sleep_for(p.launch_s);
    if (p.server >= 0) {
      const ServerPart& at = ranks_.servers[static_cast<std::size_t>(p.server)];
      if (t.op == Op::push) servers_.push(rank, i, t.item, *at.role, *at.exchange);
      else servers_.pull(rank, i, t.item, *at.role, *at.exchange);
      return;
    }
    if (t.op == Op::send) {
      const int receive = receive_of_[static_cast<std::size_t>(role(rank))][static_cast<std::size_t>(i)];
      const auto bytes = static_cast<std::uint64_t>(t.bytes);
      const double cap_Bps = steps_.fabric.spec().transfer_cap_Bps(rank, p.peer);
      if (std::isinf(cap_Bps))
        receive_box(p.peer, receive)->put(&payload, bytes);
      else  // TCP between nodes (PlatformSpec::transfer_cap_Bps)
        receive_box(p.peer, receive)->put_init(&payload, bytes)->set_rate(cap_Bps)->wait();
      traffic.bytes_sent += t.bytes;
      return;
    }
    if (!p.steps) return;  // a group of one
    const bool meet = fuse_ && p.members > 1;
    const std::pair<int, int> key{p.instance, i};
    if (meet) {
      // A fused flow carries every step of a ring between two neighbours, but after the first the bytes a rank
      // sends hold what it received, the contributions of every member: the flows start when all members have
      // launched (the message level's steps wait for their data one by one instead).
      Meeting& m = meetings_[key];
      if (!m.start) {
        m.start = sg4::Barrier::create(static_cast<unsigned>(p.members));
        m.end = sg4::Barrier::create(static_cast<unsigned>(p.members));
      }
      const sg4::BarrierPtr start = m.start;
      start->wait();
    }
    execute_steps(rank, *p.steps, steps_, channel_of(t.stream), traffic);
    if (!meet) return;
    // Fused flows end at different times on different ranks; the collective ends for all at the last one.
    Meeting& m = meetings_[key];
    const sg4::BarrierPtr end = m.end;
    if (++m.arrived == p.members) meetings_.erase(key);
    end->wait();
  }

  /// Makes every rank's receiving stream the permanent receiver of its receives' mailboxes.
  void set_receivers(const GraphWalker& walker) const {
    for (int rank = 0; rank < static_cast<int>(ranks_.role.size()); ++rank) {
      const auto& tasks = graph_.programs[static_cast<std::size_t>(role(rank))].tasks;
      for (std::size_t i = 0; i < tasks.size(); ++i)
        if (tasks[i].op == Op::recv) receive_box(rank, static_cast<int>(i))->set_receiver(walker.actor(rank, tasks[i].stream));
    }
  }

  std::vector<run::WorkerTraffic> take_traffic() { return std::move(traffic_); }

 private:
  /// The members of a collective instance that have not reached its end yet.
  struct Meeting {
    sg4::BarrierPtr start;
    sg4::BarrierPtr end;
    int arrived = 0;
  };

  int role(int rank) const { return ranks_.role[static_cast<std::size_t>(rank)]; }

  const RankPart& part(int rank, int task) const {
    const int at = ranks_.part_of[static_cast<std::size_t>(role(rank))][static_cast<std::size_t>(task)];
    DTSIM_CHECK(at >= 0, "every communication task has a part on every rank");
    return ranks_.parts[static_cast<std::size_t>(rank)][static_cast<std::size_t>(at)];
  }

  const taskgraph::TaskGraph& graph_;
  const GraphRanks& ranks_;
  StepContext& steps_;
  bool fuse_;
  FailureInjector& failures_;
  std::vector<std::vector<int>> receive_of_;         ///< [role][send task]: the matching receive in the peer's program
  std::map<std::pair<int, int>, Meeting> meetings_;  ///< (instance, task) of the flow level's collectives in progress
  std::vector<run::WorkerTraffic> traffic_;          ///< per rank
  RunContext context_;                               ///< what the servers' transfers use
  ServerRuns servers_;
};

std::vector<Walk> walks_of(const taskgraph::TaskGraph& graph) {
  std::vector<Walk> walks;
  for (const taskgraph::Program& p : graph.programs) walks.emplace_back(p);
  return walks;
}

}  // namespace

std::int64_t graph_actors(const taskgraph::TaskGraph& graph, const std::vector<int>& role) {
  std::vector<std::int64_t> per_role;
  for (const Walk& w : walks_of(graph)) per_role.push_back(walk_actors({&w}));
  std::int64_t actors = 0;
  for (int r : role) actors += per_role[static_cast<std::size_t>(r)];
  return actors;
}

GraphRun simulate_graph(const platform::PlatformSpec& platform, const taskgraph::TaskGraph& graph,
                        const GraphRanks& ranks, GraphRunOptions options) {
  taskgraph::check(graph);
  DTSIM_CHECK(static_cast<int>(ranks.role.size()) <= platform.hosts(), "ranks must fit on the platform");
  DTSIM_CHECK(ranks.parts.size() == ranks.role.size(), "parts per rank");
  sg4::Engine engine = make_engine(graph_actors(graph, ranks.role) + ranks.helper_actors);
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform, ranks.pairs);
  const platform::Fabric fabric(platform);
  StepContext steps{fabric, {}, {}};
  GraphRun run;
  FailureInjector injector(options.failures, hosts, run.outcome);
  LayoutClient client(graph, ranks, steps, options.fuse, injector, hosts, run.outcome);
  const std::vector<Walk> walks = walks_of(graph);
  std::vector<std::vector<int>> rank_walks;
  for (int r : ranks.role) rank_walks.push_back({r});
  WalkOptions walk;
  walk.overlap_slowdown = options.overlap_slowdown;
  walk.speed = options.speed;
  walk.iteration_of = std::move(options.iteration_of);
  walk.spans.assign(ranks.role.size(), 1);
  GraphWalker walker(walks, std::move(rank_walks), client, std::move(walk));
  walker.start(hosts);
  client.set_receivers(walker);
  injector.start();
  engine.run();
  for (std::size_t r = 0; r < ranks.role.size(); ++r) run.spans.push_back(walker.take_last_spans(static_cast<int>(r)));
  run.traffic = client.take_traffic();
  return run;
}

}  // namespace dtsim::actors
