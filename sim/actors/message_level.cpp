#include "sim/actors/message_level.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "sim/actors/rank_steps.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/simgrid_platform.hpp"
#include "sim/run/trace_names.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;
namespace {

/// Every bucket's collective, split by rank once and shared by all ranks and iterations.
using BucketSteps = std::vector<std::shared_ptr<const std::vector<std::vector<RankStep>>>>;

BucketSteps plan_buckets(const scheduling::IterationPlan& plan, const collectives::Collective& collective,
                         const collectives::Group& group) {
  std::map<std::int64_t, std::shared_ptr<const std::vector<std::vector<RankStep>>>> by_size;
  BucketSteps steps;
  for (const scheduling::Bucket& b : plan.buckets) {
    auto& cached = by_size[b.bytes];
    if (!cached)
      cached = std::make_shared<const std::vector<std::vector<RankStep>>>(
          split_by_rank(collective.plan(group, b.bytes)));
    steps.push_back(cached);
  }
  return steps;
}

sg4::Mailbox* mailbox(int to, int from) {
  return sg4::Mailbox::by_name("m" + std::to_string(to) + "<" + std::to_string(from));
}

/// Executes one rank's part of a plan: per step, post every receive and send, then wait for all of them.
void execute_steps(int rank, const std::vector<RankStep>& steps, run::WorkerTraffic& traffic) {
  static char payload = 0;
  static char* sink = nullptr;
  for (const RankStep& step : steps) {
    std::vector<sg4::CommPtr> pending;
    for (const auto& t : step.receives) {
      pending.push_back(mailbox(rank, t.from)->get_async<char>(&sink));
      traffic.bytes_received += t.bytes;
    }
    for (const auto& t : step.sends) {
      pending.push_back(mailbox(t.to, rank)->put_async(&payload, static_cast<uint64_t>(t.bytes)));
      traffic.bytes_sent += t.bytes;
    }
    sg4::Comm::wait_all(pending);
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

/// Shared between one worker's compute and communication actors.
struct WorkerState {
  int rank = 0;
  sg4::SemaphorePtr bucket_ready = sg4::Semaphore::create(0);
  sg4::SemaphorePtr comm_done = sg4::Semaphore::create(0);
};

class MessageLevel {
 public:
  MessageLevel(const scheduling::IterationPlan& plan, BucketSteps steps, int workers, int iterations)
      : plan_(plan), steps_(std::move(steps)), iterations_(iterations) {
    timeline_.marks.assign(static_cast<std::size_t>(workers), {});
    timeline_.traffic.assign(static_cast<std::size_t>(workers), {});
  }

  void compute(WorkerState& w) {
    const int layers = static_cast<int>(plan_.layers.size());
    for (int it = 0; it < iterations_; ++it) {
      run::IterationMarks m;
      m.start_s = sg4::Engine::get_clock();
      for (const auto& layer : plan_.layers) phase(w.rank, "compute", run::forward_event(layer), "forward", layer.forward_s);
      m.forward_end_s = sg4::Engine::get_clock();
      std::size_t next_bucket = 0;
      for (int l = layers - 1; l >= 0; --l) {
        const auto& layer = plan_.layers[static_cast<std::size_t>(l)];
        phase(w.rank, "compute", run::backward_event(layer), "backward", layer.backward_s);
        while (next_bucket < plan_.buckets.size() && plan_.buckets[next_bucket].ready_layer == l) {
          w.bucket_ready->release();
          ++next_bucket;
        }
      }
      DTSIM_CHECK(next_bucket == plan_.buckets.size(), "buckets must be in non-increasing ready_layer order");
      m.backward_end_s = sg4::Engine::get_clock();
      w.comm_done->acquire();
      m.comm_end_s = sg4::Engine::get_clock();
      double update_s = 0;
      for (const auto& layer : plan_.layers) update_s += layer.update_s;
      phase(w.rank, "compute", "update", "update", update_s);
      m.end_s = sg4::Engine::get_clock();
      timeline_.marks[static_cast<std::size_t>(w.rank)].push_back(m);
    }
  }

  void communicate(WorkerState& w) {
    auto& traffic = timeline_.traffic[static_cast<std::size_t>(w.rank)];
    for (int it = 0; it < iterations_; ++it) {
      for (std::size_t b = 0; b < plan_.buckets.size(); ++b) {
        w.bucket_ready->acquire();
        const double start = sg4::Engine::get_clock();
        execute_steps(w.rank, (*steps_[b])[static_cast<std::size_t>(w.rank)], traffic);
        timeline_.events.push_back({w.rank, "comm", run::bucket_event(static_cast<int>(b)), "comm", start,
                                    sg4::Engine::get_clock(), plan_.buckets[b].bytes});
      }
      w.comm_done->release();
    }
  }

  run::Timeline take() { return std::move(timeline_); }

 private:
  void phase(int rank, const char* lane, std::string name, const char* category, double duration_s) {
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::sleep_for(duration_s);
    timeline_.events.push_back({rank, lane, std::move(name), category, start, sg4::Engine::get_clock(), 0});
  }

  const scheduling::IterationPlan& plan_;
  BucketSteps steps_;
  int iterations_;
  run::Timeline timeline_;
};

}  // namespace

double simulate_schedule_s(const platform::PlatformSpec& platform, const collectives::Schedule& schedule) {
  DTSIM_CHECK(schedule.ranks >= 1 && schedule.ranks <= platform.hosts(), "ranks must fit on the platform");
  sg4::Engine engine = make_engine();
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform);
  const auto by_rank = split_by_rank(schedule);
  std::vector<run::WorkerTraffic> traffic(static_cast<std::size_t>(schedule.ranks));
  double end_s = 0;
  for (int r = 0; r < schedule.ranks; ++r)
    sg4::Actor::create("rank" + std::to_string(r), hosts[static_cast<std::size_t>(r)], [&, r] {
      execute_steps(r, by_rank[static_cast<std::size_t>(r)], traffic[static_cast<std::size_t>(r)]);
      end_s = std::max(end_s, sg4::Engine::get_clock());
    });
  engine.run();
  return end_s;
}

run::Timeline simulate_message_level(const platform::PlatformSpec& platform, const scheduling::IterationPlan& plan,
                                     const collectives::Collective& collective, int workers, int iterations) {
  DTSIM_CHECK(workers >= 1 && workers <= platform.hosts(), "workers must fit on the platform");
  sg4::Engine engine = make_engine();
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(platform);
  const collectives::Group group{workers, platform.gpus_per_node};
  MessageLevel sim(plan, plan_buckets(plan, collective, group), workers, iterations);
  std::vector<WorkerState> states(static_cast<std::size_t>(workers));
  for (int r = 0; r < workers; ++r) {
    WorkerState& w = states[static_cast<std::size_t>(r)];
    w.rank = r;
    sg4::Actor::create("compute" + std::to_string(r), hosts[static_cast<std::size_t>(r)],
                       [&sim, &w] { sim.compute(w); });
    sg4::Actor::create("comm" + std::to_string(r), hosts[static_cast<std::size_t>(r)],
                       [&sim, &w] { sim.communicate(w); });
  }
  engine.run();
  return sim.take();
}

}  // namespace dtsim::actors
