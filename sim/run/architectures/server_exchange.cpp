// The server architectures' shared exchange (ps and byteps; server_exchange.hpp). At the analytic level a
// bucket is a push on the data stream, the servers' sum on the server stream and a pull on the gather stream,
// push and pull spanning the workers (a round: every push of the bucket before its pull), in closed form over the
// fabric:
//   push = gather + pushes,   sum,   pull = pulls + scatter   (an exchange before the bucket's last: all of it in
//                                                             the push, which then waits for it, as PowerSGD's Q)
// each transfer phase timed as one step of concurrent transfers (collectives::schedule_time_s: a transfer's
// bytes over its busiest link's bandwidth shared equally by the transfers on it, plus its path latency: a
// server's incast of n pushes of N/S takes n N / (S B)), the sum as the busiest server's summed bytes over its
// summation throughput. With node stages (BytePS) there is no gather or scatter: the pieces go through the
// stages before their push and after their pull, pipelined with the network (staged_push_s, staged_pull_s).
#include "sim/run/architectures/server_exchange.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/link_traffic.hpp"
#include "sim/run/capacity.hpp"
#include "sim/run/run_simulation.hpp"

namespace dtsim::run {

actors::PsSetup server_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                         const std::vector<scheduling::BucketWork>& work) {
  actors::PsSetup setup;
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


std::vector<int> dedicated_server_hosts(const scenario::Scenario& s) {
  std::vector<int> free;
  for (int h = s.workers; h < s.platform.hosts(); ++h) free.push_back(h);
  const int g = s.platform.gpus_per_node;
  std::stable_sort(free.begin(), free.end(), [g](int a, int b) { return a % g < b % g; });
  return {free.begin(), free.begin() + s.ps.servers};
}

namespace {

/// A stage's time for a piece of `bytes`; only its latency for the latency-only timing.
double stage_s(const actors::NodeStage& stage, std::int64_t bytes, bool latency_only) {
  return latency_only ? stage.latency_s : stage.time_s(bytes);
}

/// The push of one exchange behind the node's stages: the pieces go through the stages one at a time each
/// (a flow shop: piece k leaves stage i at c[i][k] = max(c[i-1][k], c[i][k-1]) + t_i(k)), and the network, which
/// takes all pieces' pushes in `network_s` when they start together, serves them as a fluid queue: each piece's
/// share is network_s times its share of the bytes, and the push ends at max_k (c_k + the shares of pieces k on).
double staged_push_s(const std::vector<actors::NodeStage>& stages, const std::vector<actors::PsPiece>& pieces,
                     double network_s, bool latency_only) {
  if (stages.empty() || pieces.empty()) return network_s;
  std::vector<double> done(stages.size(), 0.0);
  std::vector<double> ready;
  double total = 0;
  for (const actors::PsPiece& piece : pieces) {
    double t = 0;
    for (std::size_t i = 0; i < stages.size(); ++i) t = done[i] = std::max(t, done[i]) + stage_s(stages[i], piece.push_bytes, latency_only);
    ready.push_back(t);
    total += static_cast<double>(piece.push_bytes);
  }
  double end = 0, after = 0;  // after: the network's shares of pieces k .. P-1
  for (std::size_t k = pieces.size(); k-- > 0;) {
    after += total > 0 ? network_s * static_cast<double>(pieces[k].push_bytes) / total : network_s / static_cast<double>(pieces.size());
    end = std::max(end, ready[k] + after);
  }
  return end;
}

/// The pull of one exchange before the node's stages: the network delivers the pieces in turn, each after its
/// share of `network_s` (as staged_push_s), and each then goes through the stages as a flow shop.
double staged_pull_s(const std::vector<actors::NodeStage>& stages, const std::vector<actors::PsPiece>& pieces,
                     double network_s, bool latency_only) {
  if (stages.empty() || pieces.empty()) return network_s;
  double total = 0;
  for (const actors::PsPiece& piece : pieces) total += static_cast<double>(piece.pull_bytes);
  std::vector<double> done(stages.size(), 0.0);
  double arrived = 0, end = 0;
  for (const actors::PsPiece& piece : pieces) {
    arrived += total > 0 ? network_s * static_cast<double>(piece.pull_bytes) / total : network_s / static_cast<double>(pieces.size());
    double t = arrived;
    for (std::size_t i = 0; i < stages.size(); ++i) t = done[i] = std::max(t, done[i]) + stage_s(stages[i], piece.pull_bytes, latency_only);
    end = t;
  }
  return end;
}

/// BytePS's connections in order (PsSetup::fifo_connections): piece k leaves the stages at ready_k (a flow shop,
/// as staged_push_s) and the network in turn after its share s_k, d_k = max(ready_k, d_k-1) + s_k; its pull
/// follows on the other direction once it is pushed, p_k = max(d_k, p_k-1) + u_k, then the stages after the pull
/// as a flow shop, ending at e_k. A share is the path latency plus the piece's part of the rest of the network's
/// time (`push` = {network seconds, of which latency}): each message pays the latency, as the flow level's comms
/// do one after another on a connection. Returns {d_last, e_last}, from the push's start: the pulls of the first
/// pieces overlap the pushes of the last ones.
std::pair<double, double> in_order_exchange_s(const std::vector<actors::NodeStage>& before,
                                              const std::vector<actors::NodeStage>& after,
                                              const std::vector<actors::PsPiece>& pieces,
                                              std::pair<double, double> push, std::pair<double, double> pull,
                                              bool latency_only) {
  double push_total = 0, pull_total = 0;
  for (const actors::PsPiece& piece : pieces) {
    push_total += static_cast<double>(piece.push_bytes);
    pull_total += static_cast<double>(piece.pull_bytes);
  }
  const auto share = [&](std::pair<double, double> network, std::int64_t bytes, double total) {
    const auto [network_s, latency_s] = network;
    const double part = total > 0 ? static_cast<double>(bytes) / total : 1.0 / static_cast<double>(pieces.size());
    return latency_s + (network_s - latency_s) * part;
  };
  std::vector<double> before_done(before.size(), 0.0), after_done(after.size(), 0.0);
  double pushed = 0, pulled = 0, end = 0;
  for (const actors::PsPiece& piece : pieces) {
    double t = 0;
    for (std::size_t i = 0; i < before.size(); ++i)
      t = before_done[i] = std::max(t, before_done[i]) + stage_s(before[i], piece.push_bytes, latency_only);
    pushed = std::max(t, pushed) + share(push, piece.push_bytes, push_total);
    pulled = std::max(pushed, pulled) + share(pull, piece.pull_bytes, pull_total);
    t = pulled;
    for (std::size_t i = 0; i < after.size(); ++i)
      t = after_done[i] = std::max(t, after_done[i]) + stage_s(after[i], piece.pull_bytes, latency_only);
    end = std::max(end, t);
  }
  return {pushed, end};
}

/// The workers as groups of hosts that push at once (AnalyticInput::groups; none: one group, worker r on host r
/// for r < workers).
std::vector<std::vector<int>> groups_of(int workers, const std::vector<std::vector<int>>& groups) {
  if (!groups.empty()) return groups;
  std::vector<int> all(static_cast<std::size_t>(workers));
  for (std::size_t r = 0; r < all.size(); ++r) all[r] = static_cast<int>(r);
  return {all};
}

/// The host that pushes and pulls for `host` of `group`: itself, or with per-node aggregation the group's first
/// member on its node.
int root_of(const actors::PsSetup& setup, const std::vector<int>& group, int host) {
  if (!setup.hierarchical) return host;
  const int node = host / setup.gpus_per_node;
  return *std::find_if(group.begin(), group.end(), [&](int h) { return h / setup.gpus_per_node == node; });
}

/// The servers' sum of one exchange: the busiest server's summed bytes over the summation throughput (none: free).
double sum_s_of(const actors::PsSetup& setup, const std::vector<std::int64_t>& summed) {
  double sum_s = 0;
  if (setup.summation_Bps)
    for (const std::int64_t bytes : summed) sum_s = std::max(sum_s, static_cast<double>(bytes) / *setup.summation_Bps);
  return sum_s;
}

/// One exchange of a parameter-server run phase by phase, hosts as ranks: the node's other GPUs to its first
/// (per-node aggregation), each participant's pieces to their servers, the pulls back, the first GPU back to the
/// others; and the bytes each server sums (every participant's push of each piece it holds, a colocated
/// server's own host's included). Every group pushes at once, each its own sum of the same pieces.
struct PsPhases {
  collectives::Step gather, push, pull, scatter;
  std::vector<std::int64_t> summed;  ///< per server
};
PsPhases ps_phases(const actors::PsSetup& setup, const std::vector<std::vector<int>>& groups,
                   const std::vector<actors::PsPiece>& pieces, const actors::PsExchange& exchange) {
  PsPhases phases;
  phases.summed.assign(setup.server_hosts.size(), 0);
  for (const std::vector<int>& group : groups)
    for (const int r : group) {
      const int root = root_of(setup, group, r);
      if (r != root) {
        if (setup.before_push.empty() && setup.after_pull.empty()) {
          phases.gather.transfers.push_back({r, root, exchange.push_bytes});
          phases.scatter.transfers.push_back({root, r, exchange.pull_bytes});
        }
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
collectives::Schedule ps_traffic(const actors::PsSetup& setup, const std::vector<std::vector<int>>& groups, int hosts) {
  collectives::Schedule schedule;
  schedule.ranks = hosts;
  const auto pieces = actors::ps_pieces(setup);
  for (std::size_t b = 0; b < setup.buckets.size(); ++b)
    for (std::size_t e = 0; e < setup.buckets[b].size(); ++e) {
      const PsPhases phases = ps_phases(setup, groups, pieces[b][e], setup.buckets[b][e]);
      collectives::Step& step = schedule.steps.emplace_back();
      for (const collectives::Step* phase : {&phases.gather, &phases.push, &phases.pull, &phases.scatter})
        step.transfers.insert(step.transfers.end(), phase->transfers.begin(), phase->transfers.end());
    }
  return schedule;
}

/// The push and pull tasks' costs of one bucket (its exchanges and their pieces), and the bytes each worker moves
/// as the simulated levels count them (a colocated server's own piece too); `sum_s`: its last exchange's sum.
/// Queued pushes (PsSetup::queued_pushes): the network's seconds per byte of exchange when every bucket's pushes
/// (pulls) of the iteration share it at once, a fluid queue across buckets; none: each exchange's own step.
struct QueuedRate {
  double push_s_per_byte = 0, pull_s_per_byte = 0;
};

BucketCost bucket_cost(const actors::PsSetup& setup, const std::vector<std::vector<int>>& groups,
                       const std::vector<actors::PsExchange>& exchanges,
                       const std::vector<std::vector<actors::PsPiece>>& pieces, const scheduling::BucketWork& work,
                       int hosts, const platform::Fabric& fabric, const std::optional<QueuedRate>& queued,
                       const std::optional<QueuedRate>& queued_latency, double& sum_s) {
  const collectives::LatencyOnly latency_only_network(fabric);
  BucketCost cost;
  cost.compress_s = work.compress_s;
  cost.decompress_s = work.decompress_s;
  cost.traffic.assign(static_cast<std::size_t>(setup.workers), {});
  for (std::size_t e = 0; e < exchanges.size(); ++e) {
    const PsPhases phases = ps_phases(setup, groups, pieces[e], exchanges[e]);
    sum_s = sum_s_of(setup, phases.summed);
    // The push's and the pull's network seconds over `network` (queued: their share of the iteration's).
    const auto network_s = [&](const core::PathModel& network, const std::optional<QueuedRate>& rate) {
      const auto step_s = [&](const collectives::Step& step) { return collectives::step_time_s(step, hosts, network); };
      const auto bytes = [&](std::int64_t b) { return static_cast<double>(b); };
      return std::pair{rate ? rate->push_s_per_byte * bytes(exchanges[e].push_bytes) : step_s(phases.push),
                       rate ? rate->pull_s_per_byte * bytes(exchanges[e].pull_bytes) : step_s(phases.pull)};
    };
    const auto time = [&](const core::PathModel& network, bool latency_only) {
      const auto step_s = [&](const collectives::Step& step) { return collectives::step_time_s(step, hosts, network); };
      const auto [push_s, pull_s] = network_s(network, latency_only ? queued_latency : queued);
      if (setup.fifo_connections && !pieces[e].empty()) {  // the pull task: what is left of the pull after the push
        const auto [push_latency_s, pull_latency_s] = network_s(latency_only_network, queued_latency);
        const auto [pushed, pulled] = in_order_exchange_s(setup.before_push, setup.after_pull, pieces[e],
                                                          {push_s, push_latency_s}, {pull_s, pull_latency_s},
                                                          latency_only);
        return std::pair{step_s(phases.gather) + pushed, pulled - pushed + step_s(phases.scatter)};
      }
      return std::pair{step_s(phases.gather) + staged_push_s(setup.before_push, pieces[e], push_s, latency_only),
                       staged_pull_s(setup.after_pull, pieces[e], pull_s, latency_only) + step_s(phases.scatter)};
    };
    const auto [push_s, pull_s] = time(fabric, false);
    const auto [push_latency_s, pull_latency_s] = time(latency_only_network, true);
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
    for (const std::vector<int>& group : groups)
      for (const int r : group) {
        if (root_of(setup, group, r) != r) continue;
        for (const actors::PsPiece& piece : pieces[e]) {
          cost.traffic[static_cast<std::size_t>(r)].sent += piece.push_bytes;
          cost.traffic[static_cast<std::size_t>(r)].received += piece.pull_bytes;
        }
      }
    for (const collectives::Step* phase : {&phases.gather, &phases.scatter})
      for (const collectives::Transfer& t : phase->transfers) {
        cost.traffic[static_cast<std::size_t>(t.from)].sent += t.bytes;
        cost.traffic[static_cast<std::size_t>(t.to)].received += t.bytes;
      }
  }
  return cost;
}


}  // namespace

SimulatedExchange server_simulated(std::shared_ptr<actors::PsSetup> setup, ExchangeInput& in) {
  const scenario::Scenario& s = in.scenario;
  setup->skip = in.skip;
  const ActorCount actors = ps_actors(*setup);
  refuse_oversized(s, actors, core::read_process_limits(),
                   "fuse buckets (scheduler = \"ddp\" or \"fusion\"), fewer servers or larger partitions, "
                   "per-node aggregation, or fewer workers");
  platform::add_link_bytes(ps_traffic(*setup, groups_of(s.workers, {}), s.platform.hosts()), 1, in.fabric, in.link_bytes);
  return {[setup](actors::RunContext& c) { return std::make_unique<actors::PsExchanger>(c, *setup); },
          actors::ps_pairs(*setup), actors.actors};
}

namespace {

/// Transfers that all run at once as a fluid: the busiest link's bytes over its bandwidth, plus the longest path
/// latency (a link stays busy until its last byte whatever the sizes sharing it; collectives::step_time_s's
/// equal share per transfer would hold a large partition to the share of every small one on its link).
double fluid_step_s(const collectives::Step& step, const core::PathModel& network) {
  std::vector<double> bytes(static_cast<std::size_t>(network.link_count()), 0.0);
  std::map<std::pair<int, int>, core::Path> paths;
  double latency_s = 0;
  for (const collectives::Transfer& t : step.transfers) {
    if (t.from == t.to) continue;
    auto [at, added] = paths.try_emplace({t.from, t.to});
    if (added) at->second = network.path(t.from, t.to);
    latency_s = std::max(latency_s, at->second.latency_s);
    for (const int link : at->second.links) bytes[static_cast<std::size_t>(link)] += static_cast<double>(t.bytes);
  }
  double busiest_s = 0;
  for (std::size_t l = 0; l < bytes.size(); ++l)
    if (bytes[l] > 0) busiest_s = std::max(busiest_s, bytes[l] / network.link_bandwidth_Bps(static_cast<int>(l)));
  return latency_s + busiest_s;
}

/// The fluid rates of queued pushes: every exchange's pushes (pulls) of the iteration as one fluid step
/// (fluid_step_s), its time over the bytes of all exchanges; a bucket's push then takes its bytes' share, its
/// partitions queued with every other bucket's on links they share with them (the flow level runs them at once).
QueuedRate queued_rate(const actors::PsSetup& setup, const std::vector<std::vector<int>>& groups,
                       const std::vector<std::vector<std::vector<actors::PsPiece>>>& pieces,
                       const core::PathModel& network) {
  collectives::Step push, pull;
  double push_bytes = 0, pull_bytes = 0;
  for (std::size_t b = 0; b < setup.buckets.size(); ++b)
    for (std::size_t e = 0; e < setup.buckets[b].size(); ++e) {
      const PsPhases phases = ps_phases(setup, groups, pieces[b][e], setup.buckets[b][e]);
      push.transfers.insert(push.transfers.end(), phases.push.transfers.begin(), phases.push.transfers.end());
      pull.transfers.insert(pull.transfers.end(), phases.pull.transfers.begin(), phases.pull.transfers.end());
      push_bytes += static_cast<double>(setup.buckets[b][e].push_bytes);
      pull_bytes += static_cast<double>(setup.buckets[b][e].pull_bytes);
    }
  return {push_bytes > 0 ? fluid_step_s(push, network) / push_bytes : 0,
          pull_bytes > 0 ? fluid_step_s(pull, network) / pull_bytes : 0};
}

}  // namespace

AnalyticExchange server_analytic(const actors::PsSetup& setup, AnalyticInput& in) {
  const auto pieces = actors::ps_pieces(setup);
  const int hosts = in.scenario.platform.hosts();
  const std::vector<std::vector<int>> groups = groups_of(in.scenario.workers, in.groups);
  platform::add_link_bytes(ps_traffic(setup, groups, hosts), 1, in.fabric, in.link_bytes);
  std::optional<QueuedRate> queued, queued_latency;
  if (setup.queued_pushes) {
    queued = queued_rate(setup, groups, pieces, in.fabric);
    queued_latency = queued_rate(setup, groups, pieces, collectives::LatencyOnly(in.fabric));
  }
  AnalyticExchange exchange{{parallel::ExchangeFragment::Kind::push_pull, {}}, {}};
  for (std::size_t b = 0; b < setup.buckets.size(); ++b)
    exchange.costs.push_back(bucket_cost(setup, groups, setup.buckets[b], pieces[b], in.work[b], hosts, in.fabric, queued,
                                         queued_latency, exchange.fragment.sum_s.emplace_back(0.0)));
  return exchange;
}

actors::ServerExchange layout_server_exchange(actors::PsSetup setup, const std::vector<std::vector<int>>& groups) {
  actors::ServerExchange out;
  out.pieces = actors::ps_pieces(setup);
  for (std::size_t b = 0; b < setup.buckets.size(); ++b) {
    std::vector<double>& sums = out.sum_s.emplace_back();
    for (std::size_t e = 0; e < setup.buckets[b].size(); ++e)
      sums.push_back(sum_s_of(setup, ps_phases(setup, groups, out.pieces[b][e], setup.buckets[b][e]).summed));
  }
  out.setup = std::move(setup);
  return out;
}

std::vector<actors::ServerRole> server_roles(const actors::PsSetup& setup, const std::vector<int>& group) {
  std::vector<actors::ServerRole> roles;
  std::map<int, std::size_t> of;  // by node (per-node aggregation: root_of's node), else by host
  for (const int h : group) {
    const auto [at, added] = of.try_emplace(setup.hierarchical ? h / setup.gpus_per_node : h, roles.size());
    if (added) roles.emplace_back();
    roles[at->second].node.push_back(h);
  }
  for (actors::ServerRole& role : roles) {
    role.first_root = roles.front().node.front();
    role.roots = static_cast<int>(roles.size());
  }
  return roles;
}

std::pair<double, int> fullest_server(const actors::PsSetup& setup) {
  std::vector<double> held(setup.server_hosts.size(), 0.0);
  for (const auto& bucket : actors::ps_pieces(setup))
    for (const auto& exchange : bucket)
      for (const actors::PsPiece& piece : exchange) held[static_cast<std::size_t>(piece.server)] += static_cast<double>(piece.push_bytes);
  const auto fullest = std::max_element(held.begin(), held.end());
  return {*fullest, static_cast<int>(fullest - held.begin())};
}

}  // namespace dtsim::run
