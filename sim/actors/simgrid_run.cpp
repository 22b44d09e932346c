#include "sim/actors/simgrid_run.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "sim/actors/rank_steps.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/simgrid_platform.hpp"
#include "sim/run/trace_names.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
namespace {

/// Executes one rank's part of a plan: per step, post every receive and send, then wait for all of them.
/// A flow standing for k fused steps first waits k-1 path latencies (the start-ups of the steps it replaces;
/// with several such sends the longest path's), then sends the summed bytes. `channel` separates collectives
/// that may run at the same time (their messages must not match).
void execute_steps(int rank, const std::vector<RankStep>& steps, const platform::Fabric& fabric,
                   const std::string& channel, run::WorkerTraffic& traffic,
                   std::vector<run::MessageArrow>* arrows = nullptr, int trace_workers = 0) {
  static char payload = 0;
  static char* sink = nullptr;
  // Mailboxes of the default channel are looked up by name once per (to, from) pair and then cached: building
  // and hashing a name per message would cost as much as the simulation of the message.
  static std::unordered_map<std::uint64_t, sg4::Mailbox*> cache;
  auto mailbox = [&](int to, int from) {
    auto by_name = [&] { return sg4::Mailbox::by_name(channel + std::to_string(to) + "<" + std::to_string(from)); };
    if (!channel.empty()) return by_name();
    sg4::Mailbox*& cached = cache[(static_cast<std::uint64_t>(to) << 32) | static_cast<std::uint32_t>(from)];
    if (!cached) cached = by_name();
    return cached;
  };
  std::vector<sg4::CommPtr> pending;
  for (const RankStep& step : steps) {
    pending.clear();
    double startups_s = 0;
    for (const Flow& f : step.sends)
      if (f.steps > 1)
        startups_s = std::max(startups_s, (f.steps - 1) * fabric.path(f.transfer.from, f.transfer.to).latency_s);
    if (startups_s > 0) sg4::this_actor::sleep_for(startups_s);
    for (const Flow& f : step.sends) {
      pending.push_back(mailbox(f.transfer.to, rank)->put_async(&payload, static_cast<uint64_t>(f.transfer.bytes)));
      traffic.bytes_sent += f.transfer.bytes;
    }
    // One receive (every ring step) is a blocking get: one activity less than get_async + wait.
    if (step.receives.size() == 1) {
      mailbox(rank, step.receives.front().transfer.from)->get<char>();
    } else {
      for (const Flow& f : step.receives) pending.push_back(mailbox(rank, f.transfer.from)->get_async<char>(&sink));
    }
    for (const Flow& f : step.receives) traffic.bytes_received += f.transfer.bytes;
    for (const sg4::CommPtr& c : pending) c->wait();
    if (arrows)
      for (std::size_t i = 0; i < step.sends.size(); ++i)
        if (step.sends[i].transfer.to < trace_workers)
          arrows->push_back({rank, step.sends[i].transfer.to, pending[i]->get_start_time(),
                             pending[i]->get_finish_time(), step.sends[i].transfer.bytes});
  }
}

/// The process's SimGrid engine with SimGrid's own logging limited to warnings.
sg4::Engine make_engine() {
  int argc = 2;
  char name[] = "dtsim";
  char quiet[] = "--log=root.thresh:warning";
  char* argv[] = {name, quiet, nullptr};
  return sg4::Engine(&argc, argv);
}

/// Shared between one worker's actors.
struct WorkerState {
  int rank = 0;
  double backward_start_s = 0;
  sg4::SemaphorePtr bucket_ready = sg4::Semaphore::create(0);  ///< FIFO: compute -> communication
  sg4::SemaphorePtr comm_done = sg4::Semaphore::create(0);     ///< FIFO: all buckets of an iteration done
  std::vector<int> layer_pending;                             ///< priority: buckets of a layer not yet done
  std::vector<sg4::SemaphorePtr> layer_synced;                ///< priority: a layer's buckets are done
};

class IterationRun {
 public:
  IterationRun(const scheduling::IterationPlan& plan, const BucketFlows& steps, const platform::Fabric& fabric, bool fuse,
               int workers, int iterations, int trace_workers, const run::Slowdown& slowdown)
      : plan_(plan), steps_(steps), fabric_(fabric), fuse_(fuse), workers_(workers), iterations_(iterations),
        trace_workers_(trace_workers), slowdown_(slowdown), iteration_of_(static_cast<std::size_t>(workers), 0),
        states_(static_cast<std::size_t>(workers)), ready_count_(plan.buckets.size() * iterations, 0),
        done_count_(plan.buckets.size() * iterations, 0) {
    timeline_.marks.assign(static_cast<std::size_t>(workers), {});
    timeline_.traffic.assign(static_cast<std::size_t>(workers), {});
    buckets_per_layer_.assign(plan.layers.size(), 0);
    for (const auto& b : plan.buckets) ++buckets_per_layer_[static_cast<std::size_t>(b.ready_layer)];
    for (int r = 0; r < workers; ++r) {
      WorkerState& w = states_[static_cast<std::size_t>(r)];
      w.rank = r;
      w.layer_pending = buckets_per_layer_;
      for (std::size_t l = 0; l < plan.layers.size(); ++l) w.layer_synced.push_back(sg4::Semaphore::create(0));
    }
  }

  void start(const std::vector<sg4::Host*>& hosts) {
    hosts_ = hosts;
    for (int r = 0; r < workers_; ++r) {
      sg4::Host* host = hosts[static_cast<std::size_t>(r)];
      WorkerState* w = &states_[static_cast<std::size_t>(r)];
      if (plan_.credit_bytes > 0) {
        sg4::Actor::create("compute" + std::to_string(r), host, [this, w] { compute_layerwise(*w); });
      } else {
        sg4::Actor::create("compute" + std::to_string(r), host, [this, w] { compute_bsp(*w); });
        sg4::Actor::create("comm" + std::to_string(r), host, [this, w] { communicate_fifo(*w); });
      }
    }
  }

  run::Timeline take() { return std::move(timeline_); }

 private:
  /// BSP: forward, backward (releasing buckets as they become ready), wait for all buckets, update.
  void compute_bsp(WorkerState& w) {
    for (int it = 0; it < iterations_; ++it) {
      iteration_of_[static_cast<std::size_t>(w.rank)] = it;
      run::IterationMarks m;
      m.start_s = sg4::Engine::get_clock();
      for (const auto& layer : plan_.layers) m.forward_s += phase(w.rank, run::forward_event(layer), "forward", layer.forward_s);
      w.backward_start_s = sg4::Engine::get_clock();
      std::size_t next_bucket = 0;
      for (int l = static_cast<int>(plan_.layers.size()) - 1; l >= 0; --l) {
        const auto& layer = plan_.layers[static_cast<std::size_t>(l)];
        m.backward_s += phase(w.rank, run::backward_event(layer), "backward", layer.backward_s);
        for (; next_bucket < plan_.buckets.size() && plan_.buckets[next_bucket].ready_layer == l; ++next_bucket)
          w.bucket_ready->release();
      }
      DTSIM_CHECK(next_bucket == plan_.buckets.size(), "buckets must be in non-increasing ready_layer order");
      const double wait_start = sg4::Engine::get_clock();
      w.comm_done->acquire();
      m.comm_wait_s = sg4::Engine::get_clock() - wait_start;
      double update_s = 0;
      for (const auto& layer : plan_.layers) update_s += layer.update_s;
      m.update_s = phase(w.rank, "update", "update", update_s);
      m.end_s = sg4::Engine::get_clock();
      timeline_.marks[static_cast<std::size_t>(w.rank)].push_back(m);
    }
  }

  /// FIFO: each bucket in order, once ready and not before its cycle.
  void communicate_fifo(WorkerState& w) {
    for (int it = 0; it < iterations_; ++it) {
      for (std::size_t b = 0; b < plan_.buckets.size(); ++b) {
        w.bucket_ready->acquire();
        const double cycle = w.backward_start_s + plan_.buckets[b].not_before_s;
        if (cycle > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(cycle);
        run_bucket(w.rank, it, b, "");
      }
      w.comm_done->release();
    }
  }

  /// Priority: forward of layer l waits for layer l's buckets of the previous iteration and its update.
  void compute_layerwise(WorkerState& w) {
    const int layers = static_cast<int>(plan_.layers.size());
    for (int it = 0; it < iterations_; ++it) {
      iteration_of_[static_cast<std::size_t>(w.rank)] = it;
      run::IterationMarks m;
      m.start_s = sg4::Engine::get_clock();
      for (int l = 0; l < layers; ++l) {
        if (it > 0) sync_and_update(w, l, m);
        const auto& layer = plan_.layers[static_cast<std::size_t>(l)];
        m.forward_s += phase(w.rank, run::forward_event(layer), "forward", layer.forward_s);
      }
      std::size_t next_bucket = 0;
      for (int l = layers - 1; l >= 0; --l) {
        const auto& layer = plan_.layers[static_cast<std::size_t>(l)];
        m.backward_s += phase(w.rank, run::backward_event(layer), "backward", layer.backward_s);
        for (; next_bucket < plan_.buckets.size() && plan_.buckets[next_bucket].ready_layer == l; ++next_bucket)
          bucket_ready(it, next_bucket);
      }
      if (it == iterations_ - 1)
        for (int l = 0; l < layers; ++l) sync_and_update(w, l, m);
      m.end_s = sg4::Engine::get_clock();
      timeline_.marks[static_cast<std::size_t>(w.rank)].push_back(m);
    }
  }

  void sync_and_update(WorkerState& w, int layer, run::IterationMarks& m) {
    if (buckets_per_layer_[static_cast<std::size_t>(layer)] > 0) {
      const double wait_start = sg4::Engine::get_clock();
      w.layer_synced[static_cast<std::size_t>(layer)]->acquire();
      m.comm_wait_s += sg4::Engine::get_clock() - wait_start;
    }
    const auto& phase_layer = plan_.layers[static_cast<std::size_t>(layer)];
    m.update_s += phase(w.rank, "update " + phase_layer.name, "update", phase_layer.update_s);
  }

  /// A worker's gradients for bucket b of iteration it are ready. Once every worker's are (the negotiation of
  /// Horovod and ByteScheduler), the bucket joins the priority queue.
  void bucket_ready(int it, std::size_t b) {
    const std::size_t key = static_cast<std::size_t>(it) * plan_.buckets.size() + b;
    if (++ready_count_[key] < workers_) return;
    queue_.push({plan_.buckets[b].ready_layer, it, b});
    dispatch();
  }

  /// Starts queued buckets, lowest layer first, while credit remains (one bucket may overdraw it).
  void dispatch() {
    while (!queue_.empty() && in_flight_bytes_ < plan_.credit_bytes) {
      const auto [layer, it, b] = queue_.top();
      queue_.pop();
      in_flight_bytes_ += plan_.buckets[b].bytes;
      const std::string channel = "i" + std::to_string(it) + "b" + std::to_string(b) + ":";
      for (int r = 0; r < workers_; ++r)
        sg4::Actor::create("bucket", hosts_[static_cast<std::size_t>(r)], [this, r, it, b, channel] {
          run_bucket(r, it, b, channel);
          WorkerState& w = states_[static_cast<std::size_t>(r)];
          const auto l = static_cast<std::size_t>(plan_.buckets[b].ready_layer);
          if (--w.layer_pending[l] == 0) {
            w.layer_pending[l] = buckets_per_layer_[l];
            w.layer_synced[l]->release();
          }
          if (++done_count_[static_cast<std::size_t>(it) * plan_.buckets.size() + b] == workers_) {
            in_flight_bytes_ -= plan_.buckets[b].bytes;
            dispatch();
          }
        });
    }
  }

  /// One rank's part of bucket b of iteration it. At the flow level the ranks then wait for each other: fused
  /// flows finish at different times on different ranks, where the plan's step-by-step dependencies keep
  /// the ranks of a real collective within a step of each other.
  void run_bucket(int rank, int it, std::size_t b, const std::string& channel) {
    const BucketRun& work = steps_[b];
    if (work.compress_s > 0) lane_phase(rank, "compress", run::compress_event(static_cast<int>(b)), work.compress_s);
    const double start = sg4::Engine::get_clock();
    std::int64_t bytes = 0;
    for (std::size_t e = 0; e < work.exchanges.size(); ++e) {
      const ExchangeFlows& exchange = work.exchanges[e];
      if (exchange.before_s > 0) sg4::this_actor::sleep_for(exchange.before_s);
      const auto& mine = (*exchange.flows)[static_cast<std::size_t>(rank)];
      bytes += exchange.bytes;
      // Message arrows: the message level, the first iteration, between traced workers.
      const bool arrows = !fuse_ && it == 0 && rank < trace_workers_;
      execute_steps(rank, mine, fabric_, channel + "e" + std::to_string(e),
                    timeline_.traffic[static_cast<std::size_t>(rank)], arrows ? &timeline_.messages : nullptr,
                    trace_workers_);
      if (fuse_) {
        auto& barrier = bucket_barriers_[{it, b, e}];
        if (!barrier) barrier = sg4::Barrier::create(static_cast<unsigned>(workers_));
        barrier->wait();
      }
    }
    if (rank < trace_workers_)
      timeline_.events.push_back({rank, "comm", run::bucket_event(static_cast<int>(b)), "comm", start,
                                  sg4::Engine::get_clock(), bytes});
    if (work.decompress_s > 0)
      lane_phase(rank, "compress", run::decompress_event(static_cast<int>(b)), work.decompress_s);
  }

  /// Replays local work of the communication stream on the worker's compression lane.
  void lane_phase(int rank, const char* category, std::string name, double duration_s) {
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::sleep_for(duration_s);
    if (rank < trace_workers_)
      timeline_.events.push_back({rank, "compress", std::move(name), category, start, sg4::Engine::get_clock(), 0});
  }

  /// Replays a compute phase on the worker's compute lane; returns its duration.
  double phase(int rank, std::string name, const char* category, double duration_s) {
    if (!slowdown_.empty())
      duration_s *= slowdown_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(iteration_of_[static_cast<std::size_t>(rank)])];
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::sleep_for(duration_s);
    if (rank < trace_workers_)
      timeline_.events.push_back({rank, "compute", std::move(name), category, start, sg4::Engine::get_clock(), 0});
    return duration_s;
  }

  using Queued = std::tuple<int, int, std::size_t>;  ///< (layer, iteration, bucket): lowest first

  const scheduling::IterationPlan& plan_;
  const BucketFlows& steps_;
  const platform::Fabric& fabric_;
  bool fuse_;
  std::map<std::tuple<int, std::size_t, std::size_t>, sg4::BarrierPtr> bucket_barriers_;
  int workers_;
  int iterations_;
  int trace_workers_;
  const run::Slowdown& slowdown_;
  std::vector<int> iteration_of_;  ///< the iteration each worker's compute stream is in
  std::vector<WorkerState> states_;
  std::vector<sg4::Host*> hosts_;
  std::vector<int> buckets_per_layer_;
  std::vector<int> ready_count_;
  std::vector<int> done_count_;
  std::priority_queue<Queued, std::vector<Queued>, std::greater<>> queue_;
  std::int64_t in_flight_bytes_ = 0;
  run::Timeline timeline_;
};

}  // namespace

std::vector<double> simulate_schedules_s(const platform::PlatformSpec& platform,
                                         const std::vector<collectives::Schedule>& schedules, bool fuse) {
  if (schedules.empty()) return {};
  const int ranks = schedules.front().ranks;
  DTSIM_CHECK(ranks >= 1 && ranks <= platform.hosts(), "ranks must fit on the platform");
  sg4::Engine engine = make_engine();
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

run::Timeline simulate_iterations(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                  const BucketFlows& flows, const std::vector<std::pair<int, int>>& pairs,
                                  int workers, int iterations, bool fuse, int trace_workers,
                                  const run::Slowdown& slowdown) {
  DTSIM_CHECK(workers >= 1 && workers <= platform.hosts(), "workers must fit on the platform");
  DTSIM_CHECK(flows.size() == plan.buckets.size(), "one plan per bucket");
  sg4::Engine engine = make_engine();
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform, pairs);
  const platform::Fabric fabric(platform);
  IterationRun sim(plan, flows, fabric, fuse, workers, iterations, trace_workers, slowdown);
  sim.start(hosts);
  engine.run();
  return sim.take();
}

}  // namespace dtsim::actors
