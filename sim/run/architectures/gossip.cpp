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
#include "sim/run/architecture_setup.hpp"
#include "sim/run/capacity.hpp"
#include "sim/sync/gossip_graph.hpp"

namespace dtsim::run {
namespace {

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
    auto setup = std::make_shared<actors::GossipSetup>(gossip_setup(s, in.plan, in.work));
    const ActorCount actors = gossip_actors(*setup);
    refuse_oversized(s, actors, core::read_process_limits(), "fewer workers, or a graph of lower degree");
    platform::add_link_bytes(gossip_traffic(*setup), 1, in.fabric, in.link_bytes);
    return {[setup](actors::RunContext& c) { return std::make_unique<actors::GossipExchanger>(c, *setup); },
            actors::gossip_pairs(*setup), actors.actors};
  }

  std::optional<AnalyticExchange> analytic(AnalyticInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    const actors::GossipSetup setup = gossip_setup(s, in.plan, in.work);
    const collectives::Schedule sends = gossip_traffic(setup);  // a step per exchange, bucket after bucket
    platform::add_link_bytes(sends, 1, in.fabric, in.link_bytes);
    const collectives::LatencyOnly latency_only(in.fabric);
    const int hosts = s.platform.hosts();
    AnalyticExchange exchange{{parallel::ExchangeFragment::Kind::neighbours, {}}, {}};
    std::size_t step = 0;
    for (std::size_t b = 0; b < setup.bucket_bytes.size(); ++b) {
      BucketCost& cost = exchange.costs.emplace_back();
      cost.compress_s = in.work[b].compress_s;
      cost.decompress_s = in.work[b].decompress_s;
      cost.traffic.assign(static_cast<std::size_t>(s.workers), {});
      for (std::size_t e = 0; e < setup.bucket_bytes[b].size(); ++e) {
        const collectives::Step& round = sends.steps[step++];
        cost.time_s += setup.before_s[b][e] + step_time_s(round, hosts, in.fabric);
        cost.latency_s += step_time_s(round, hosts, latency_only);
        cost.payload_bytes += setup.bucket_bytes[b][e];
        for (const collectives::Transfer& t : round.transfers) {
          cost.traffic[static_cast<std::size_t>(t.from)].sent += t.bytes;
          cost.traffic[static_cast<std::size_t>(t.to)].received += t.bytes;
        }
      }
    }
    return exchange;
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
  void add_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, memory::MemoryItem& item,
                   std::string&) const override {
    const bool sgp = push_sum(s);
    std::size_t peers = 1;
    if (!sgp)
      for (const auto& n : sync::make_gossip_graph(s.gossip.topology, s.workers, s.gossip.degree, s.gossip.seed).neighbours)
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
