// The pure parts of synchronisation: policies, the scheme/architecture table, gossip graphs and their mixing
// matrices, parameter-server partitions and the push ledger.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "sim/core/error.hpp"
#include "sim/sync/gossip_graph.hpp"
#include "sim/sync/ps_partitions.hpp"
#include "sim/sync/push_ledger.hpp"
#include "sim/sync/scheme.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::sync {
namespace {

SyncPolicy policy(const std::string& scheme, int staleness = 0, int backup = 0) {
  SyncPolicy p;
  p.scheme = scheme;
  p.staleness = staleness;
  p.backup_workers = backup;
  return p;
}

TEST(SyncPolicy, LocalSgdExchangesExactlyEveryPeriod) {
  SyncPolicy p = policy("local_sgd");
  p.period = 4;
  std::vector<int> exchanging;
  for (int it = 0; it < 12; ++it)
    if (p.exchanges(it)) exchanging.push_back(it);
  EXPECT_EQ(exchanging, (std::vector<int>{3, 7, 11}));
  p.scheme = "post_local_sgd";
  p.switch_after = 3;
  exchanging.clear();
  for (int it = 0; it < 12; ++it)
    if (p.exchanges(it)) exchanging.push_back(it);
  EXPECT_EQ(exchanging, (std::vector<int>{0, 1, 2, 6, 10}));
  for (const char* every : {"bsp", "ssp", "asp"})
    for (int it = 0; it < 5; ++it) EXPECT_TRUE(policy(every).exchanges(it));
}

TEST(SyncPolicy, StalenessBounds) {
  EXPECT_EQ(policy("bsp").staleness_bound(), 0);
  EXPECT_EQ(policy("ssp", 3).staleness_bound(), 3);
  EXPECT_FALSE(policy("asp").staleness_bound().has_value());
  EXPECT_EQ(policy("local_sgd").staleness_bound(), 0);
}

TEST(SyncPolicy, TableFiveOfTheSurvey) {
  // Supported (survey Table 5, rows with entries): every scheme on a parameter server, bsp and local SGD
  // everywhere, asp on gossip.
  for (const char* arch : {"ps", "byteps"})
    for (const std::string& scheme : sync_names()) {
      if (scheme == "fedavg") continue;  // client sampling is modelled on all-reduce only (fedavg_test.cpp)
      EXPECT_EQ(incompatibility(policy(scheme), arch), "") << arch << scheme;
    }
  for (const char* scheme : {"bsp", "local_sgd", "post_local_sgd"})
    for (const char* arch : {"allreduce", "gossip"}) EXPECT_EQ(incompatibility(policy(scheme), arch), "");
  EXPECT_EQ(incompatibility(policy("asp"), "gossip"), "");
  // "-" cells.
  EXPECT_NE(incompatibility(policy("asp"), "allreduce").find("not applicable"), std::string::npos);
  EXPECT_NE(incompatibility(policy("ssp", 2), "allreduce"), "");
  EXPECT_NE(incompatibility(policy("ssp", 2), "gossip"), "");
  // Backup workers need a server closing rounds.
  EXPECT_EQ(incompatibility(policy("bsp", 0, 1), "ps"), "");
  EXPECT_NE(incompatibility(policy("bsp", 0, 1), "allreduce"), "");
  EXPECT_NE(incompatibility(policy("ssp", 1, 1), "ps"), "");
}

TEST(SchemeRegistry, EverySchemeAnswersConsistently) {
  for (const SchemeEntry& e : scheme_registry()) {
    SCOPED_TRACE(std::string(e.name));
    SyncPolicy p = policy(std::string(e.name));
    for (const SchemeOption& o : e.scheme().options()) {
      if (o.field) p.*o.field = o.default_text == "required" ? 2 : std::stoi(o.default_text);
      else if (o.default_text == "required") p.parameters[o.key] = 2;
      else EXPECT_EQ(p.parameter(o.key), default_value(o)) << o.key;  // the documented default
      EXPECT_TRUE(o.type == "integer" || o.type == "number" || o.type == "boolean") << o.key;
      if (o.type == "boolean") {
        EXPECT_TRUE(o.default_text == "true" || o.default_text == "false") << o.key;
      }
      EXPECT_EQ(o.default_text == "required", !o.needed.empty() && !o.placeholder.empty()) << o.key;
      EXPECT_LE(o.min, o.max) << o.key;
    }
    e.scheme().derive(p, 32);
    EXPECT_GE(p.period, 1);
    for (int it : {0, 7}) {
      const std::vector<int> taking_part = p.participants(8, it);
      EXPECT_FALSE(taking_part.empty());
      EXPECT_TRUE(std::is_sorted(taking_part.begin(), taking_part.end()));
      EXPECT_TRUE(taking_part.front() >= 0 && taking_part.back() < 8);
    }
    EXPECT_EQ(&p.rules(), &e.scheme());
    EXPECT_EQ(describe(p).rfind(std::string(e.name), 0), 0u) << describe(p);
    EXPECT_FALSE(e.scheme().check(p, 8).has_value());
    const int in_flight = p.exchanges_in_flight();
    EXPECT_TRUE(in_flight == 0 || in_flight == 1);
    for (int n : {1, 5, 17}) {
      const int whole = e.scheme().whole_iterations(p, n);
      EXPECT_GE(whole, n);
      if (e.scheme().repeating_period(p) && !e.scheme().loss_rule(p)) {
        EXPECT_TRUE(p.exchanges(whole - 1)) << n;
      }
    }
    std::vector<std::string> names = sync_names();
    EXPECT_EQ(std::count(names.begin(), names.end(), std::string(e.name)), 1);
  }
  EXPECT_EQ(sync_names().front(), "bsp");  // the default scheme
}

TEST(OverlapLocalSgd, AveragesEveryPeriodAndLeavesOneAverageInFlight) {
  SyncPolicy p = policy("overlap_local_sgd");
  p.period = 3;
  std::vector<int> exchanging;
  for (int it = 0; it < 9; ++it)
    if (p.exchanges(it)) exchanging.push_back(it);
  EXPECT_EQ(exchanging, (std::vector<int>{2, 5, 8}));
  EXPECT_EQ(p.exchanges_in_flight(), 1);
  EXPECT_EQ(policy("local_sgd").exchanges_in_flight(), 0);
  EXPECT_EQ(p.staleness_bound(), 0);
  for (const char* arch : {"allreduce", "ps", "byteps"}) EXPECT_EQ(incompatibility(p, arch), "") << arch;
  EXPECT_NE(incompatibility(p, "gossip"), "");
  for (const double alpha : {0.0, 1.0}) {
    p.parameters["alpha"] = alpha;
    ASSERT_TRUE(p.rules().check(p, 8).has_value());
    EXPECT_EQ(p.rules().check(p, 8)->key, "alpha");
  }
  p.parameters["alpha"] = 0.6;
  EXPECT_EQ(describe(p), "overlap_local_sgd (period 3, alpha 0.6)");
}

TEST(AdaComm, PeriodIsTheCeilingOfTheSquareRootOfTheLossRatioTimesTheFirst) {
  // tau_0 = 8, intervals of 10 iterations; the loss drops to a quarter after iteration 7. The period start at
  // 8 is inside the first interval (tau stays 8); the one at 16 starts the next: tau = ceil(sqrt(1/4) 8) = 4.
  SyncPolicy p = policy("adacomm");
  p.period = 8;
  p.parameters["interval"] = 10;
  std::vector<double> losses(40, 0.25);
  std::fill(losses.begin(), losses.begin() + 8, 1.0);
  const std::vector<bool> decided = decided_exchanges(p, losses);
  std::vector<int> exchanging;
  for (int it = 0; it < 40; ++it)
    if (decided[static_cast<std::size_t>(it)]) exchanging.push_back(it);
  EXPECT_EQ(exchanging, (std::vector<int>{7, 15, 19, 23, 27, 31, 35, 39}));
  // A loss above the first lengthens the period: sqrt(4) 8 = 16.
  std::vector<double> rising(40, 4.0);
  rising[0] = 1.0;
  const std::vector<bool> longer = decided_exchanges(p, rising);
  EXPECT_TRUE(longer[7] && longer[31] && !longer[23]);
  // The time line takes the decisions, and past their end repeats the last period.
  p.decided = std::make_shared<const std::vector<bool>>(decided);
  for (int it = 0; it < 40; ++it) EXPECT_EQ(p.exchanges(it), static_cast<bool>(decided[static_cast<std::size_t>(it)]));
  EXPECT_TRUE(p.exchanges(43) && p.exchanges(47) && !p.exchanges(44));
  EXPECT_EQ(p.rules().repeating_period(p), 4);
  EXPECT_TRUE(decided_exchanges(policy("local_sgd"), losses).empty());  // a fixed rule reads no loss
}

TEST(R2sp, PushesReachTheServerInRoundRobinOrder) {
  const SyncPolicy r2sp = policy("r2sp");
  EXPECT_FALSE(r2sp.staleness_bound().has_value());
  for (const char* arch : {"ps", "byteps"}) EXPECT_EQ(incompatibility(r2sp, arch), "") << arch;
  for (const char* arch : {"allreduce", "gossip"}) EXPECT_NE(incompatibility(r2sp, arch), "") << arch;
  PushLedger ledger(1, 3, r2sp);
  // Round 0: only worker 0 may push; then 1; then 2; then 0 again.
  const auto allowed = [&] {
    std::vector<int> who;
    for (int w = 0; w < 3; ++w)
      if (ledger.may_push(0, w)) who.push_back(w);
    return who;
  };
  EXPECT_EQ(allowed(), (std::vector<int>{0}));
  ASSERT_TRUE(ledger.apply(0, 0, 0));
  EXPECT_EQ(allowed(), (std::vector<int>{1}));
  EXPECT_TRUE(ledger.may_pull(0, 0, 0));  // a pull waits for its own push only
  ASSERT_TRUE(ledger.apply(0, 1, 0));
  EXPECT_EQ(allowed(), (std::vector<int>{2}));
  ASSERT_TRUE(ledger.apply(0, 2, 0));
  EXPECT_EQ(allowed(), (std::vector<int>{0}));
  // A retired worker leaves the ring: 0 then 2.
  ledger.retire(1);
  ASSERT_TRUE(ledger.apply(0, 0, 1));
  EXPECT_FALSE(ledger.may_push(0, 0));
  EXPECT_TRUE(ledger.may_push(0, 2));
  PushLedger asp(1, 3, policy("asp"));
  EXPECT_EQ(asp.may_push(0, 2), true);
}

TEST(GossipGraph, FamiliesHaveTheirDegrees) {
  const GossipGraph ring = make_gossip_graph("ring", 8, 0, 0);
  for (const auto& n : ring.neighbours) EXPECT_EQ(n.size(), 2u);
  EXPECT_EQ(ring.neighbours[0], (std::vector<int>{1, 7}));
  const GossipGraph torus = make_gossip_graph("torus", 16, 0, 0);
  for (const auto& n : torus.neighbours) EXPECT_EQ(n.size(), 4u);
  const GossipGraph exp = make_gossip_graph("exponential", 16, 0, 0);
  EXPECT_EQ(exp.neighbours[0], (std::vector<int>{1, 2, 4, 8, 12, 14, 15}));
  const GossipGraph random = make_gossip_graph("random", 32, 4, 7);
  std::size_t edges = 0;
  for (const auto& n : random.neighbours) edges += n.size();
  EXPECT_NEAR(static_cast<double>(edges) / 32, 4.0, 1.5);
  EXPECT_EQ(make_gossip_graph("random", 32, 4, 7).neighbours, random.neighbours);
  EXPECT_NE(make_gossip_graph("random", 32, 4, 8).neighbours, random.neighbours);
  EXPECT_THROW(make_gossip_graph("hypercube", 8, 0, 0), core::InputError);
}

TEST(GossipGraph, MetropolisHastingsIsDoublyStochasticAndSymmetric) {
  for (const std::string& topology : gossip_topology_names())
    for (int n : {1, 2, 3, 8, 12, 17}) {
      const MixingMatrix w = metropolis_hastings(make_gossip_graph(topology, n, 3, 1));
      EXPECT_LT(doubly_stochastic_error(w), 1e-12) << topology << n;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) EXPECT_EQ(w.at(i, j), w.at(j, i));
    }
  MixingMatrix bad = metropolis_hastings(make_gossip_graph("ring", 4, 0, 0));
  bad.w[1] += 0.1;
  EXPECT_NEAR(doubly_stochastic_error(bad), 0.1, 1e-12);
}

TEST(GossipGraph, PushSumPeersCycleThroughPowersOfTwo) {
  std::vector<int> peers;
  for (int t = 0; t < 5; ++t) peers.push_back(push_sum_peer(3, t, 16));
  EXPECT_EQ(peers, (std::vector<int>{4, 5, 7, 11, 4}));
}

TEST(PsPartitions, EvenSplitAndFixedSizePiecesDealtRoundRobin) {
  const auto even = partition_buckets({10, 3}, 3, 0);
  ASSERT_EQ(even.size(), 2u);
  EXPECT_EQ(even[0].size(), 3u);
  EXPECT_EQ(even[0][0].bytes + even[0][1].bytes + even[0][2].bytes, 10);
  EXPECT_EQ(even[0][0].bytes, 4);
  EXPECT_EQ(even[1][0].server, 0);  // the deal goes on across buckets: 0 1 2 | 0 1 2
  const auto fixed = partition_buckets({9, 4}, 2, 4);
  ASSERT_EQ(fixed[0].size(), 3u);
  EXPECT_EQ(fixed[0][2].bytes, 1);
  EXPECT_EQ(fixed[1][0].server, 1);
  std::int64_t total = 0;
  for (const auto& b : fixed)
    for (const Partition& p : b) total += p.bytes;
  EXPECT_EQ(total, 13);
}

TEST(PushLedger, BspPullsOnceEveryWorkerPushed) {
  PushLedger ledger(1, 3, policy("bsp"));
  EXPECT_TRUE(ledger.apply(0, 0, 0));
  EXPECT_TRUE(ledger.apply(0, 1, 0));
  EXPECT_FALSE(ledger.may_pull(0, 0, 0));
  EXPECT_TRUE(ledger.apply(0, 2, 0));
  EXPECT_TRUE(ledger.may_pull(0, 0, 0));
  EXPECT_EQ(ledger.version(), 1);
}

TEST(PushLedger, BackupWorkersCloseTheRoundEarlyAndDropTheLast) {
  PushLedger ledger(1, 4, policy("bsp", 0, 1));
  for (int w = 0; w < 3; ++w) EXPECT_TRUE(ledger.apply(0, w, 0));
  EXPECT_TRUE(ledger.may_pull(0, 3, 0));  // the round closed without worker 3
  EXPECT_FALSE(ledger.apply(0, 3, 0));
  EXPECT_EQ(ledger.dropped(), 1);
}

TEST(PushLedger, SspBoundsStalenessAndZeroIsBsp) {
  for (int s : {0, 1, 2}) {
    PushLedger ledger(1, 2, policy("ssp", s));
    // Worker 0 runs ahead alone: it may pull iteration i while worker 1 has pushed nothing, for i < s.
    int i = 0;
    for (; ledger.apply(0, 0, i), ledger.may_pull(0, 0, i); ++i) EXPECT_LE(ledger.staleness(0, i), s);
    EXPECT_EQ(i, s);
    ledger.apply(0, 1, 0);
    EXPECT_TRUE(ledger.may_pull(0, 0, s));
    EXPECT_EQ(ledger.staleness(0, s), s);
  }
}

TEST(PushLedger, AspNeverWaitsAndRetiredWorkersReleaseSsp) {
  PushLedger asp(1, 2, policy("asp"));
  for (int i = 0; i < 5; ++i) {
    asp.apply(0, 0, i);
    EXPECT_TRUE(asp.may_pull(0, 0, i));
  }
  EXPECT_EQ(asp.staleness(0, 4), 5);
  PushLedger ssp(1, 2, policy("ssp", 1));
  ssp.apply(0, 0, 0);
  ssp.apply(0, 0, 1);
  EXPECT_FALSE(ssp.may_pull(0, 0, 1));
  ssp.retire(1);  // worker 1's run ended: nothing more to wait for
  EXPECT_TRUE(ssp.may_pull(0, 0, 1));
}

}  // namespace
}  // namespace dtsim::sync
