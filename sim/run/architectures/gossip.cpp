// gossip: no global model; each worker averages with its neighbours on a graph (D-PSGD, Lian et al. 2017) or,
// asynchronously, pushes to one peer of a directed exponential graph (SGP, Assran et al. 2019).
//
// At the analytic level (D-PSGD, in rounds) a bucket is one neighbour exchange on the data stream spanning the
// workers: per exchange (PowerGossip: per round) its local work, then every worker's sends to each neighbour
// started together, timed as one step (collectives::schedule_time_s: with d neighbours a host's link carries d
// copies each way, a + d N / B on a uniform fabric). Mixing the received models takes no time, as in the
// simulated levels.
#include "sim/run/architecture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "sim/actors/gossip_exchanger.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/link_traffic.hpp"
#include "numerics/power_gossip.hpp"
#include "sim/run/capacity.hpp"
#include "sim/sync/gossip_graph.hpp"

namespace dtsim::run {
namespace {

/// PowerGossip's rounds per bucket of `plan`, in bytes one edge direction carries: X^T p of each matrix and
/// each vector whole, then X q of each matrix (numerics::power_gossip_edge_bytes; shape[0] rows, the rest
/// columns), each tensor with the first bucket that holds it, a round of no bytes left out.
std::vector<std::vector<std::int64_t>> power_gossip_rounds(const scenario::Scenario& s,
                                                           const scheduling::IterationPlan& plan) {
  std::vector<numerics::PowerGossipBytes> tensors;
  for (const models::Layer& layer : s.model.layers)
    for (const models::Tensor& t : layer.tensors) {
      const std::int64_t rows = t.shape.empty() ? 1 : t.shape.front();
      tensors.push_back(numerics::power_gossip_edge_bytes(rows, rows > 0 ? t.numel() / rows : 0));
    }
  std::vector<char> sent(tensors.size(), 0);  // a partitioned tensor goes with its first bucket
  std::vector<std::vector<std::int64_t>> rounds;
  for (const scheduling::Bucket& b : plan.buckets) {
    numerics::PowerGossipBytes bytes;
    for (const int t : b.tensors) {
      if (sent[static_cast<std::size_t>(t)]) continue;
      sent[static_cast<std::size_t>(t)] = 1;
      bytes.first_round += tensors[static_cast<std::size_t>(t)].first_round;
      bytes.second_round += tensors[static_cast<std::size_t>(t)].second_round;
    }
    auto& round = rounds.emplace_back();
    for (const std::int64_t r : {bytes.first_round, bytes.second_round})
      if (r > 0) round.push_back(r);
  }
  return rounds;
}

/// The scenario's graph on `replicas` workers; every exchange sends its payload to each neighbour (SGP: to one
/// peer). With PowerGossip, each bucket's exchanges are its power_gossip_rounds.
actors::GossipSetup gossip_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                                 const std::vector<scheduling::BucketWork>& work, int replicas) {
  actors::GossipSetup setup;
  setup.graph = sync::make_gossip_graph(s.gossip.topology, replicas, s.gossip.degree, s.gossip.seed);
  setup.push_sum = !s.sync.staleness_bound();  // asp on gossip: SGP
  setup.iterations = s.iterations;
  if (s.gossip.power_gossip) {
    setup.bucket_bytes = power_gossip_rounds(s, plan);
    for (const auto& rounds : setup.bucket_bytes) setup.before_s.emplace_back(rounds.size(), 0.0);
    return setup;
  }
  for (const scheduling::BucketWork& w : work) {
    auto& bytes = setup.bucket_bytes.emplace_back();
    auto& before = setup.before_s.emplace_back();
    for (const scheduling::Exchange& e : w.exchanges) {
      bytes.push_back(e.bytes);
      before.push_back(e.before_s);
    }
  }
  return setup;
}

/// One iteration's gossip messages (SGP: iteration 0's peers) among the hosts of each of `groups` at once (graph
/// vertex w of a group on its host w; none: one group, worker w on host w), on `hosts` hosts.
collectives::Schedule gossip_traffic(const actors::GossipSetup& setup, const std::vector<std::vector<int>>& groups,
                                     int hosts) {
  collectives::Schedule schedule;
  schedule.ranks = hosts;
  const int n = setup.graph.size();
  for (const auto& bucket : setup.bucket_bytes)
    for (const std::int64_t bytes : bucket) {
      collectives::Step& step = schedule.steps.emplace_back();
      for (std::size_t g = 0; g < std::max<std::size_t>(groups.size(), 1); ++g) {
        const auto host = [&](int w) { return groups.empty() ? w : groups[g][static_cast<std::size_t>(w)]; };
        for (int w = 0; w < n && n > 1; ++w) {
          if (setup.push_sum) {
            step.transfers.push_back({host(w), host(sync::push_sum_peer(w, 0, n)), bytes});
            continue;
          }
          for (int j : setup.graph.neighbours[static_cast<std::size_t>(w)]) step.transfers.push_back({host(w), host(j), bytes});
        }
      }
    }
  return schedule;
}


/// SGP: an unbounded staleness (asp) on gossip.
bool push_sum(const scenario::Scenario& s) { return !s.sync.staleness_bound(); }

class Gossip final : public Architecture {
 public:
  std::string describe(const scenario::Scenario& s) const override {
    return push_sum(s) ? "gossip SGP (push-sum, directed exponential graph)"
                       : std::string(s.gossip.power_gossip ? "gossip PowerGossip (rank-1 edge differences)" : "gossip D-PSGD") +
                             " on a " + s.gossip.topology + " graph";
  }

  SimulatedExchange simulated(ExchangeInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    auto setup = std::make_shared<actors::GossipSetup>(gossip_setup(s, in.plan, in.work, s.workers));
    const ActorCount actors = gossip_actors(*setup);
    refuse_oversized(s, actors, core::read_process_limits(), "fewer workers, or a graph of lower degree");
    platform::add_link_bytes(gossip_traffic(*setup, {}, s.workers), 1, in.fabric, in.link_bytes);
    return {[setup](actors::RunContext& c) { return std::make_unique<actors::GossipExchanger>(c, *setup); },
            actors::gossip_pairs(*setup), actors.actors};
  }

  std::optional<AnalyticExchange> analytic(AnalyticInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    // A layout's replicas: the same rank of each, one group per rank of a replica's stage.
    const int replicas = in.groups.empty() ? s.workers : static_cast<int>(in.groups.front().size());
    const actors::GossipSetup setup = gossip_setup(s, in.plan, in.work, replicas);
    const int hosts = s.platform.hosts();
    const collectives::Schedule sends = gossip_traffic(setup, in.groups, hosts);  // a step per exchange, bucket after bucket
    platform::add_link_bytes(sends, 1, in.fabric, in.link_bytes);
    const collectives::LatencyOnly latency_only(in.fabric);
    AnalyticExchange exchange{{parallel::ExchangeFragment::Kind::neighbours, {}}, {}};
    std::size_t step = 0;
    for (std::size_t b = 0; b < setup.bucket_bytes.size(); ++b) {
      BucketCost& cost = exchange.costs.emplace_back();
      cost.compress_s = in.work[b].compress_s;
      cost.decompress_s = in.work[b].decompress_s;
      cost.traffic.assign(static_cast<std::size_t>(s.workers), {});
      for (std::size_t e = 0; e < setup.bucket_bytes[b].size(); ++e) {
        const collectives::Step& round = sends.steps[step++];
        cost.time_s += setup.before_s[b][e] + collectives::step_time_s(round, hosts, in.fabric);
        cost.latency_s += collectives::step_time_s(round, hosts, latency_only);
        cost.payload_bytes += setup.bucket_bytes[b][e];
        for (const collectives::Transfer& t : round.transfers) {
          cost.traffic[static_cast<std::size_t>(t.from)].sent += t.bytes;
          cost.traffic[static_cast<std::size_t>(t.to)].received += t.bytes;
        }
      }
    }
    return exchange;
  }

  /// D-PSGD in rounds among a layout's replicas: each exchange a step of sends to every neighbour.
  std::optional<std::vector<std::vector<actors::Flow>>> layout_flows(const scenario::Scenario& s,
                                                                     const scheduling::BucketWork& work, int ranks,
                                                                     bool fuse) const override {
    actors::GossipSetup setup;
    setup.graph = sync::make_gossip_graph(s.gossip.topology, ranks, s.gossip.degree, s.gossip.seed);
    auto& bytes = setup.bucket_bytes.emplace_back();
    for (const scheduling::Exchange& e : work.exchanges) bytes.push_back(e.bytes);
    collectives::Schedule rounds = gossip_traffic(setup, {}, ranks);
    for (std::size_t e = 0; e < rounds.steps.size(); ++e) rounds.steps[e].latency_s = work.exchanges[e].before_s;
    return actors::flow_steps(rounds, fuse);
  }

  /// Numerics: SGP's push-sum with one peer of the directed exponential graph, or D-PSGD's mixing with the
  /// neighbours by Metropolis-Hastings weights (PowerGossip: rank-1 differences on those edges).
  bool set_meeting(numerics::SyncConfig& c, const scenario::Scenario& s, sync::Meeting meeting) const override {
    if (meeting == sync::Meeting::kAsyncPushes) {
      c.scheme = numerics::Scheme::kPushSum;
      c.peer = [n = s.workers](int worker, std::int64_t iteration) {
        return sync::push_sum_peer(worker, static_cast<int>(iteration), n);
      };
      return true;
    }
    c.scheme = numerics::Scheme::kGossip;
    const sync::MixingMatrix mixing =
        sync::metropolis_hastings(sync::make_gossip_graph(s.gossip.topology, s.workers, s.gossip.degree, s.gossip.seed));
    // Averaging preserves the mean model only with a doubly stochastic matrix.
    DTSIM_CHECK(sync::doubly_stochastic_error(mixing) < 1e-12, "the gossip mixing matrix is doubly stochastic");
    c.mixing = mixing.w;
    c.power_gossip = s.gossip.power_gossip;
    // PowerGossip needs no tuned step (Vogels et al. use 1); CHOCO-SGD's is required with compression.
    c.consensus_step = s.gossip.consensus_step > 0.0 || !c.power_gossip ? s.gossip.consensus_step : 1.0;
    return true;
  }

  /// D-PSGD receives every neighbour's model (PowerGossip its factors), SGP one peer's.
  void add_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, int replicas,
                   memory::MemoryItem& item, std::string&) const override {
    const bool sgp = push_sum(s);
    std::size_t peers = 1;
    if (!sgp)
      for (const auto& n : sync::make_gossip_graph(s.gossip.topology, replicas, s.gossip.degree, s.gossip.seed).neighbours)
        peers = std::max(peers, n.size());
    double received = gradient_wire_bytes(plan);
    if (s.gossip.power_gossip) {
      received = 0;
      for (const auto& rounds : power_gossip_rounds(s, plan))
        for (const std::int64_t bytes : rounds) received += static_cast<double>(bytes);
    }
    const char* how = sgp ? "SGP" : s.gossip.power_gossip ? "PowerGossip factors" : "D-PSGD";
    add_to(item, static_cast<double>(peers) * received,
           fmt::format("{} neighbour model{} received ({})", peers, peers == 1 ? "" : "s", how));
  }
};

}  // namespace

const Architecture& gossip_architecture() {
  static const Gossip architecture;
  return architecture;
}

}  // namespace dtsim::run
