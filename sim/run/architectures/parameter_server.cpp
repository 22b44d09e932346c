// ps and byteps: workers push their gradients to servers that sum them and pull the aggregate back (Li et al.,
// OSDI 2014); BytePS places the servers on CPU machines of their own and partitions the tensors across them
// (Jiang et al., OSDI 2020). The two differ only in their name and the defaults the loader gives them.
//
// At the analytic level a bucket is a push on the data stream, the servers' sum on the server stream and a pull
// on the gather stream, push and pull spanning the workers (a round: every push of the bucket before its pull),
// in closed form over the fabric:
//   push = gather + pushes,   sum,   pull = pulls + scatter   (an exchange before the bucket's last: all of it in
//                                                             the push, which then waits for it, as PowerSGD's Q)
// each transfer phase timed as one step of concurrent transfers (collectives::schedule_time_s: a transfer's
// bytes over its busiest link's bandwidth shared equally by the transfers on it, plus its path latency: a
// server's incast of n pushes of N/S takes n N / (S B)), the sum as the busiest server's summed bytes over its
// summation throughput.
#include "sim/run/architecture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "sim/actors/ps_exchanger.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/link_traffic.hpp"
#include "sim/run/capacity.hpp"
#include "sim/run/run_simulation.hpp"

namespace dtsim::run {
namespace {

/// Servers on the hosts after the workers, one node after another (dedicated), or on the first workers' hosts
/// (colocated). A push carries each exchange's payload; a pull carries the same for summable formats (dense,
/// fp16, ...), and for gathered payloads (sparse, signs) the dense bucket or, with pull = "compressed", one
/// payload.
actors::PsSetup ps_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                         const std::vector<scheduling::BucketWork>& work) {
  actors::PsSetup setup;
  if (s.ps.dedicated) {
    // The hosts after the workers, spread over nodes first (slot 0 of every free node, then slot 1, ...):
    // servers on machines of their own, as BytePS deploys its CPU servers, while there are machines.
    std::vector<int> free;
    for (int h = s.workers; h < s.platform.hosts(); ++h) free.push_back(h);
    const int g = s.platform.gpus_per_node;
    std::stable_sort(free.begin(), free.end(), [g](int a, int b) { return a % g < b % g; });
    setup.server_hosts.assign(free.begin(), free.begin() + s.ps.servers);
  } else {
    for (int k = 0; k < s.ps.servers; ++k) setup.server_hosts.push_back(k);
  }
  setup.summation_Bps = s.ps.summation_Bps;
  setup.hierarchical = s.ps.hierarchical;
  setup.gpus_per_node = s.platform.gpus_per_node;
  setup.credit_bytes = s.ps.credit_bytes;
  setup.partition_bytes = s.ps.partition_bytes;
  setup.sync = s.sync;
  setup.workers = s.workers;
  setup.iterations = s.iterations;
  for (std::size_t b = 0; b < work.size(); ++b) {
    auto& exchanges = setup.buckets.emplace_back();
    for (const scheduling::Exchange& e : work[b].exchanges) {
      const bool gathered = e.kind != scheduling::Exchange::Kind::allreduce;
      const std::int64_t pull = gathered && s.ps.pull == "dense" ? plan.buckets[b].bytes : e.bytes;
      exchanges.push_back({e.before_s, e.bytes, pull});
    }
    setup.bucket_layers.push_back(plan.buckets[b].ready_layer);
  }
  return setup;
}

/// One exchange of a parameter-server run phase by phase, hosts as ranks: the node's other GPUs to its first
/// (per-node aggregation), each participant's pieces to their servers, the pulls back, the first GPU back to the
/// others; and the bytes each server sums (every participant's push of each piece it holds, a colocated
/// server's own host's included).
struct PsPhases {
  collectives::Step gather, push, pull, scatter;
  std::vector<std::int64_t> summed;  ///< per server
};
PsPhases ps_phases(const actors::PsSetup& setup, const std::vector<actors::PsPiece>& pieces,
                   const actors::PsExchange& exchange) {
  PsPhases phases;
  phases.summed.assign(setup.server_hosts.size(), 0);
  for (int r = 0; r < setup.workers; ++r) {
    const int root = setup.hierarchical ? r - r % setup.gpus_per_node : r;
    if (r != root) {
      phases.gather.transfers.push_back({r, root, exchange.push_bytes});
      phases.scatter.transfers.push_back({root, r, exchange.pull_bytes});
      continue;
    }
    for (const actors::PsPiece& piece : pieces) {
      phases.summed[static_cast<std::size_t>(piece.server)] += piece.push_bytes;
      const int server = setup.server_hosts[static_cast<std::size_t>(piece.server)];
      if (server == r) continue;  // a colocated server takes its own host's push from memory
      phases.push.transfers.push_back({r, server, piece.push_bytes});
      phases.pull.transfers.push_back({server, r, piece.pull_bytes});
    }
  }
  return phases;
}

/// One iteration's pushes, pulls and per-node transfers, one step per bucket exchange (hosts as ranks).
collectives::Schedule ps_traffic(const actors::PsSetup& setup, int hosts) {
  collectives::Schedule schedule;
  schedule.ranks = hosts;
  const auto pieces = actors::ps_pieces(setup);
  for (std::size_t b = 0; b < setup.buckets.size(); ++b)
    for (std::size_t e = 0; e < setup.buckets[b].size(); ++e) {
      const PsPhases phases = ps_phases(setup, pieces[b][e], setup.buckets[b][e]);
      collectives::Step& step = schedule.steps.emplace_back();
      for (const collectives::Step* phase : {&phases.gather, &phases.push, &phases.pull, &phases.scatter})
        step.transfers.insert(step.transfers.end(), phase->transfers.begin(), phase->transfers.end());
    }
  return schedule;
}

/// The push and pull tasks' costs of one bucket (its exchanges and their pieces), and the bytes each worker moves
/// as the simulated levels count them (a colocated server's own piece too); `sum_s`: its last exchange's sum.
BucketCost bucket_cost(const actors::PsSetup& setup, const std::vector<actors::PsExchange>& exchanges,
                       const std::vector<std::vector<actors::PsPiece>>& pieces, const scheduling::BucketWork& work,
                       int hosts, const platform::Fabric& fabric, double& sum_s) {
  const collectives::LatencyOnly latency_only(fabric);
  BucketCost cost;
  cost.compress_s = work.compress_s;
  cost.decompress_s = work.decompress_s;
  cost.traffic.assign(static_cast<std::size_t>(setup.workers), {});
  for (std::size_t e = 0; e < exchanges.size(); ++e) {
    const PsPhases phases = ps_phases(setup, pieces[e], exchanges[e]);
    sum_s = 0;
    if (setup.summation_Bps)
      for (const std::int64_t bytes : phases.summed)
        sum_s = std::max(sum_s, static_cast<double>(bytes) / *setup.summation_Bps);
    const auto time = [&](const core::PathModel& network) {
      const auto step_s = [&](const collectives::Step& step) { return collectives::step_time_s(step, hosts, network); };
      return std::pair{step_s(phases.gather) + step_s(phases.push), step_s(phases.pull) + step_s(phases.scatter)};
    };
    const auto [push_s, pull_s] = time(fabric);
    const auto [push_latency_s, pull_latency_s] = time(latency_only);
    cost.time_s += exchanges[e].before_s + push_s;
    cost.latency_s += push_latency_s;
    if (e + 1 < exchanges.size()) {  // the next exchange needs this one's sum
      cost.time_s += sum_s + pull_s;
      cost.latency_s += pull_latency_s;
    } else {
      cost.pull_s = pull_s;
      cost.pull_latency_s = pull_latency_s;
    }
    cost.payload_bytes += exchanges[e].push_bytes;
    for (const actors::PsPiece& piece : pieces[e])
      for (int r = 0; r < setup.workers; r += setup.hierarchical ? setup.gpus_per_node : 1) {
        cost.traffic[static_cast<std::size_t>(r)].sent += piece.push_bytes;
        cost.traffic[static_cast<std::size_t>(r)].received += piece.pull_bytes;
      }
    for (const collectives::Step* phase : {&phases.gather, &phases.scatter})
      for (const collectives::Transfer& t : phase->transfers) {
        cost.traffic[static_cast<std::size_t>(t.from)].sent += t.bytes;
        cost.traffic[static_cast<std::size_t>(t.to)].received += t.bytes;
      }
  }
  return cost;
}

class ParameterServer final : public Architecture {
 public:
  explicit ParameterServer(const char* title) : title_(title) {}

  std::string describe(const scenario::Scenario& s) const override {
    const scenario::ParameterServer& ps = s.ps;
    std::string words = title_ + " (" + std::to_string(ps.servers) + (ps.dedicated ? " dedicated" : " colocated") +
                        (ps.servers == 1 ? " server" : " servers") + ", partitions " +
                        (ps.partition_bytes > 0 ? core::format_bytes(static_cast<double>(ps.partition_bytes))
                                                : std::string("1 per server")) +
                        ", summation " +
                        (ps.summation_Bps ? fmt::format("{:.3g} GB/s", *ps.summation_Bps / 1e9) : std::string("free"));
    if (ps.hierarchical) words += ", per-node aggregation";
    if (ps.credit_bytes > 0) words += ", credit " + core::format_bytes(static_cast<double>(ps.credit_bytes));
    if (ps.pull == "compressed") words += ", compressed pull";
    return words + ")";
  }


  SimulatedExchange simulated(ExchangeInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    auto setup = std::make_shared<actors::PsSetup>(ps_setup(s, in.plan, in.work));
    setup->skip = in.skip;
    const ActorCount actors = ps_actors(*setup);
    refuse_oversized(s, actors, core::read_process_limits(),
                     "fuse buckets (scheduler = \"ddp\" or \"fusion\"), fewer servers or larger partitions, "
                     "per-node aggregation, or fewer workers");
    platform::add_link_bytes(ps_traffic(*setup, s.platform.hosts()), 1, in.fabric, in.link_bytes);
    return {[setup](actors::RunContext& c) { return std::make_unique<actors::PsExchanger>(c, *setup); },
            actors::ps_pairs(*setup), actors.actors};
  }

  std::optional<AnalyticExchange> analytic(AnalyticInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    const actors::PsSetup setup = ps_setup(s, in.plan, in.work);
    const auto pieces = actors::ps_pieces(setup);
    const int hosts = s.platform.hosts();
    platform::add_link_bytes(ps_traffic(setup, hosts), 1, in.fabric, in.link_bytes);
    AnalyticExchange exchange{{parallel::ExchangeFragment::Kind::push_pull, {}}, {}};
    for (std::size_t b = 0; b < setup.buckets.size(); ++b)
      exchange.costs.push_back(bucket_cost(setup, setup.buckets[b], pieces[b], in.work[b], hosts, in.fabric,
                                           exchange.fragment.sum_s.emplace_back(0.0)));
    return exchange;
  }

  /// The aggregate a worker pulls (one gradient's bytes); a colocated server also sums its partitions in the GPU
  /// of its host. Dedicated servers run on hosts of their own (BytePS: CPU machines).
  void add_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, memory::MemoryItem& item,
                   std::string& where) const override {
    add_to(item, gradient_wire_bytes(plan), "the pulled aggregate");
    if (s.ps.dedicated) return;
    std::vector<double> held(static_cast<std::size_t>(s.ps.servers), 0.0);
    const actors::PsSetup setup = ps_setup(s, plan, bucket_work(plan));
    for (const auto& bucket : actors::ps_pieces(setup))
      for (const auto& exchange : bucket)
        for (const actors::PsPiece& piece : exchange)
          held[static_cast<std::size_t>(piece.server)] += static_cast<double>(piece.push_bytes);
    const auto fullest = std::max_element(held.begin(), held.end());
    add_to(item, *fullest, "its colocated server's sums");
    where = fmt::format("worker {0}, with server {0}", fullest - held.begin());
  }

 private:
  std::string title_;
};

}  // namespace

const Architecture& ps_architecture() {
  static const ParameterServer architecture("parameter server");
  return architecture;
}

const Architecture& byteps_architecture() {
  static const ParameterServer architecture("BytePS");
  return architecture;
}

}  // namespace dtsim::run
