#include "sim/run/architecture_setup.hpp"

#include <algorithm>

#include "numerics/power_gossip.hpp"
#include "sim/collectives/schedule_time.hpp"

namespace dtsim::run {

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

actors::GossipSetup gossip_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                                 const std::vector<scheduling::BucketWork>& work) {
  actors::GossipSetup setup;
  setup.graph = sync::make_gossip_graph(s.gossip.topology, s.workers, s.gossip.degree, s.gossip.seed);
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

double step_time_s(const collectives::Step& step, int hosts, const core::PathModel& network) {
  if (step.transfers.empty()) return 0;
  collectives::Schedule one;
  one.ranks = hosts;
  one.steps = {step};
  return collectives::schedule_time_s(one, network);
}

collectives::Schedule gossip_traffic(const actors::GossipSetup& setup) {
  collectives::Schedule schedule;
  schedule.ranks = setup.graph.size();
  const int n = setup.graph.size();
  for (const auto& bucket : setup.bucket_bytes)
    for (const std::int64_t bytes : bucket) {
      collectives::Step& step = schedule.steps.emplace_back();
      for (int w = 0; w < n && n > 1; ++w) {
        if (setup.push_sum) {
          step.transfers.push_back({w, sync::push_sum_peer(w, 0, n), bytes});
          continue;
        }
        for (int j : setup.graph.neighbours[static_cast<std::size_t>(w)]) step.transfers.push_back({w, j, bytes});
      }
    }
  return schedule;
}

}  // namespace dtsim::run
