#include "sim/actors/simgrid_run.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "sim/actors/engine.hpp"
#include "sim/actors/execute_steps.hpp"
#include "sim/actors/failure_injector.hpp"
#include "sim/actors/graph_walker.hpp"
#include "sim/actors/rank_steps.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/simgrid_platform.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
namespace {

/// Data parallelism's side of the walk: a run per iteration the exchanger grants, of the graph that exchanges or
/// of the local one (sync::SyncPolicy::exchanges); workers outside an iteration's participants sit it out; the
/// exchanges by the architecture's exchanger; per iteration the compute stream's marks, and the trace events of
/// workers below trace_workers.
class IterationClient final : public WalkClient {
 public:
  IterationClient(const std::vector<LocalWork>& local, const IterationGraphs& graphs, Exchanger& exchanger,
                  const sync::SyncPolicy& sync, int workers, int trace_workers, run::Timeline& timeline)
      : local_(local), exchanger_(exchanger), sync_(sync), workers_(workers), trace_workers_(trace_workers),
        credit_(graphs.exchanging.programs.front().credit_bytes > 0), timeline_(timeline),
        walk_of_(static_cast<std::size_t>(workers), 0), marks_(static_cast<std::size_t>(workers)),
        open_(static_cast<std::size_t>(workers), 0) {
    DTSIM_CHECK(graphs.exchanging.programs.size() == 1 && (credit_ || graphs.local.programs.size() == 1),
                "a data-parallel iteration is one program");
    if (credit_) {
      // The carried tasks (the next forward's per-layer updates) finish the last iteration once more.
      epilogue_ = taskgraph::with_epilogue(graphs.exchanging.programs.front());
      walks_.emplace_back(epilogue_, graphs.exchanging.programs.front().tasks.size());
    } else {
      walks_.emplace_back(graphs.exchanging.programs.front());
      walks_.emplace_back(graphs.local.programs.front());
    }
  }

  const std::vector<Walk>& walks() const { return walks_; }

  int next(int rank, int it) override {
    if (!exchanger_.begin_iteration(rank, it)) return kStop;
    if (!takes_part(rank, it)) {
      sit_out(rank, it);
      return kSkip;
    }
    const bool exchanges = sync_.exchanges(it);
    DTSIM_CHECK(!credit_ || exchanges, "a priority plan exchanges every iteration (the loader refuses local steps)");
    marks_[static_cast<std::size_t>(rank)] = {.start_s = sg4::Engine::get_clock()};
    open_[static_cast<std::size_t>(rank)] = 1;
    return walk_of_[static_cast<std::size_t>(rank)] = exchanges ? 0 : 1;
  }

  void communicate(int rank, int it, int /*index*/, const taskgraph::Task& t) override {
    exchanger_.exchange(rank, it, static_cast<std::size_t>(t.item));
  }

  void ended(int rank, int /*it*/, taskgraph::Stream stream, const Ran& ran) override {
    const taskgraph::Task& t = *ran.task;
    const bool traced = rank < trace_workers_;
    if (stream != taskgraph::Stream::compute) {
      if (!traced) return;
      if (t.op == taskgraph::Op::compute)
        timeline_.events.push_back({rank, "compress", t.name, t.category, ran.start_s, ran.end_s, 0, {}});
      else
        timeline_.events.push_back({rank, "comm", t.name, "comm", ran.start_s, ran.end_s,
                                    local_[static_cast<std::size_t>(t.item)].payload_bytes,
                                    local_[static_cast<std::size_t>(t.item)].latency_s});
      return;
    }
    if (traced) timeline_.events.push_back({rank, "compute", t.name, t.category, ran.start_s, ran.end_s, 0, {}});
    // The iteration in progress, or (the epilogue) the last one.
    run::IterationMarks& m = open_[static_cast<std::size_t>(rank)] ? marks_[static_cast<std::size_t>(rank)]
                                                                   : timeline_.marks[static_cast<std::size_t>(rank)].back();
    m.comm_wait_s += ran.waited_s;
    (t.category == "forward" ? m.forward_s : t.category == "backward" ? m.backward_s : m.update_s) += ran.took_s;
  }

  /// The compute stream's end of an iteration ends its marks; the data stream's ends its exchanges.
  void stream_done(int rank, int it, taskgraph::Stream stream) override {
    const bool exchanges = walk_of_[static_cast<std::size_t>(rank)] == 0;
    if (stream != taskgraph::Stream::compute) {
      exchanger_.finish_iteration(rank, it);
      return;
    }
    if (exchanges && !walks_.front().others) exchanger_.finish_iteration(rank, it);
    run::IterationMarks& m = marks_[static_cast<std::size_t>(rank)];
    m.end_s = sg4::Engine::get_clock();
    if (!credit_) {  // a credit's jobs start once every worker has them ready: none skipped or dropped
      m.dropped = exchanges && exchanger_.dropped(rank, it);
      m.skipped = exchanges && exchanger_.skipped(rank, it);
    }
    timeline_.marks[static_cast<std::size_t>(rank)].push_back(m);
    open_[static_cast<std::size_t>(rank)] = 0;
    participant_ended(it);
  }

  /// Exchanges left in flight, and the epilogue, belong to the last iteration.
  void drained(int rank, double waited_s) override {
    run::IterationMarks& last = timeline_.marks[static_cast<std::size_t>(rank)].back();
    last.comm_wait_s += waited_s;
    last.end_s = sg4::Engine::get_clock();
  }

 private:
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
  void participant_ended(int it) {
    SittingOut& s = sitting_out_.at(it);
    if (--s.running == 0)
      for (; s.waiting > 0; --s.waiting) s.done->release();
  }

  /// An iteration's participants, those still running it, and the workers waiting for its end.
  struct SittingOut {
    std::vector<char> member;
    int running = 0;
    int waiting = 0;
    sg4::SemaphorePtr done = sg4::Semaphore::create(0);
  };

  const std::vector<LocalWork>& local_;
  Exchanger& exchanger_;
  const sync::SyncPolicy& sync_;
  int workers_;
  int trace_workers_;
  bool credit_;
  run::Timeline& timeline_;
  taskgraph::Program epilogue_;   ///< credit: the iteration's program and its epilogue (with_epilogue)
  std::vector<Walk> walks_;       ///< the exchanging iteration's, then (without a credit) the local one's
  std::vector<int> walk_of_;      ///< per worker: the walk of its iteration in progress
  std::vector<run::IterationMarks> marks_;  ///< per worker: its iteration in progress, until its compute stream ends
  std::vector<char> open_;                  ///< per worker: marks_ is in progress
  std::map<int, SittingOut> sitting_out_;  ///< per iteration
};

}  // namespace

std::vector<double> simulate_schedules_s(const platform::PlatformSpec& platform,
                                         const std::vector<collectives::Schedule>& schedules, bool fuse) {
  if (schedules.empty()) return {};
  std::vector<std::vector<std::vector<Flow>>> flows;
  for (const collectives::Schedule& s : schedules) {
    DTSIM_CHECK(s.ranks == schedules.front().ranks, "all plans have the same ranks");
    flows.push_back(flow_steps(s, fuse));
  }
  return simulate_flows_s(platform, flows, schedules.front().ranks);
}

std::vector<double> simulate_flows_s(const platform::PlatformSpec& platform,
                                     const std::vector<std::vector<std::vector<Flow>>>& plans, int ranks) {
  if (plans.empty()) return {};
  DTSIM_CHECK(ranks >= 1 && ranks <= platform.hosts(), "ranks must fit on the platform");
  sg4::Engine engine = make_engine(ranks);
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::vector<std::vector<RankStep>>> by_schedule;
  for (const std::vector<std::vector<Flow>>& flows : plans) {
    add_pairs(as_schedule(flows, ranks), pairs);
    by_schedule.push_back(split_by_rank(flows, ranks));
  }
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform, pairs);
  const platform::Fabric fabric(platform);
  StepContext steps{fabric, {}, {}};
  sg4::BarrierPtr barrier = sg4::Barrier::create(static_cast<unsigned>(ranks));
  std::vector<run::WorkerTraffic> traffic(static_cast<std::size_t>(ranks));
  std::vector<double> start(plans.size()), end(plans.size());
  for (int r = 0; r < ranks; ++r)
    sg4::Actor::create("rank" + std::to_string(r), hosts[static_cast<std::size_t>(r)], [&, r] {
      for (std::size_t k = 0; k < plans.size(); ++k) {
        if (k == 0) barrier->wait();
        start[k] = sg4::Engine::get_clock();
        execute_steps(r, by_schedule[k][static_cast<std::size_t>(r)], steps, "", traffic[static_cast<std::size_t>(r)]);
        end[k] = std::max(end[k], sg4::Engine::get_clock());
        barrier->wait();
      }
    });
  engine.run();
  std::vector<double> times;
  for (std::size_t k = 0; k < plans.size(); ++k) times.push_back(end[k] - start[k]);
  return times;
}


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
  StepContext steps{fabric, {}, {}};
  run::Timeline timeline;
  timeline.marks.assign(static_cast<std::size_t>(workers), {});
  timeline.traffic.assign(static_cast<std::size_t>(workers), {});
  FailureInjector injector(failures, hosts, timeline);
  RunContext context{steps, hosts, timeline, trace_workers,
                     [&injector](int rank, const std::string& why) { injector.take_out(rank, why); }};
  const std::unique_ptr<Exchanger> exchanger = make_exchanger(context);
  injector.set_exchanger(exchanger.get());
  IterationClient client(local, graphs, *exchanger, sync, workers, trace_workers, timeline);
  std::vector<int> mine = {0};
  if (client.walks().size() > 1) mine.push_back(1);
  WalkOptions options;
  options.speed = &speed;
  options.overlap_slowdown = overlap.slowdown;
  options.spans.assign(static_cast<std::size_t>(workers), 0);
  options.spans[0] = trace_workers >= 1;
  options.merge.assign(static_cast<std::size_t>(workers), 0);
  for (int r = trace_workers; r < workers; ++r) options.merge[static_cast<std::size_t>(r)] = 1;
  GraphWalker walker(client.walks(), std::vector<std::vector<int>>(static_cast<std::size_t>(workers), mine), client,
                     std::move(options));
  walker.start(hosts);
  injector.start();
  engine.run();
  // Worker 0's spans of its last iteration, for the critical path.
  if (trace_workers >= 1 && walker.last_walk(0) >= 0) {
    graphs.last_spans = walker.take_last_spans(0);
    graphs.last_exchanged = walker.last_walk(0) == 0;
    graphs.last_carried = walker.last_carried(0);
  }
  return timeline;
}

}  // namespace dtsim::actors
