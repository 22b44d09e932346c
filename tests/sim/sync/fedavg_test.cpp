// FedAvg's client sampling (McMahan et al. 2017): m = max(floor(C K), 1) distinct clients a round, the same
// throughout a round, drawn afresh each round from the seed alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sim/sync/scheme.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::sync {
namespace {

SyncPolicy fedavg(double fraction, int epochs, int shard, int seed, int batch) {
  SyncPolicy p;
  p.scheme = "fedavg";
  p.parameters = {{"fraction", fraction}, {"epochs", epochs}, {"shard", shard}, {"seed", seed}};
  p.rules().derive(p, batch);
  return p;
}

TEST(FedAvg, ARoundIsEpochsOverTheShardInMiniBatches) {
  EXPECT_EQ(fedavg(0.1, 5, 600, 1, 10).period, 300);  // McMahan et al.'s MNIST setting: u = E n / B
  EXPECT_EQ(fedavg(0.1, 1, 601, 1, 10).period, 61);   // a last, partial mini-batch is a step
  const SyncPolicy p = fedavg(0.1, 2, 64, 1, 32);
  std::vector<int> exchanging;
  for (int it = 0; it < 12; ++it)
    if (p.exchanges(it)) exchanging.push_back(it);
  EXPECT_EQ(exchanging, (std::vector<int>{3, 7, 11}));
  EXPECT_EQ(p.rules().whole_iterations(p, 5), 8);
}

TEST(FedAvg, SamplesFloorOfCKDistinctClientsOncePerRound) {
  const SyncPolicy p = fedavg(0.25, 1, 64, 7, 32);  // rounds of 2 iterations
  for (const auto& [workers, m] : {std::pair{100, 25}, std::pair{10, 2}, std::pair{3, 1}, std::pair{1, 1}})
    for (int it = 0; it < 40; ++it) {
      const std::vector<int> clients = p.participants(workers, it);
      ASSERT_EQ(static_cast<int>(clients.size()), m) << workers;
      EXPECT_TRUE(std::is_sorted(clients.begin(), clients.end()));
      EXPECT_EQ(std::set<int>(clients.begin(), clients.end()).size(), clients.size());
      EXPECT_GE(clients.front(), 0);
      EXPECT_LT(clients.back(), workers);
      EXPECT_EQ(clients, p.participants(workers, it - it % 2)) << "one sample per round";
    }
  EXPECT_EQ(fedavg(1.0, 1, 64, 7, 32).participants(5, 3), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(FedAvg, TheSampleIsSeededAndChangesFromRoundToRound) {
  const SyncPolicy a = fedavg(0.1, 1, 32, 3, 32), again = fedavg(0.1, 1, 32, 3, 32), other = fedavg(0.1, 1, 32, 4, 32);
  int differs_from_other = 0, differs_from_previous = 0;
  std::vector<int> picked(100, 0);
  for (int round = 0; round < 400; ++round) {
    const std::vector<int> clients = a.participants(100, round);
    EXPECT_EQ(clients, again.participants(100, round));
    differs_from_other += clients != other.participants(100, round) ? 1 : 0;
    differs_from_previous += round > 0 && clients != a.participants(100, round - 1) ? 1 : 0;
    for (const int c : clients) ++picked[static_cast<std::size_t>(c)];
  }
  EXPECT_GT(differs_from_other, 390);
  EXPECT_GT(differs_from_previous, 390);
  // Each client is sampled with probability C = 0.1: 40 times in 400 rounds, binomial sd 6.
  for (const int count : picked) {
    EXPECT_GT(count, 10);
    EXPECT_LT(count, 75);
  }
}

TEST(FedAvg, EveryOtherSchemeHasEveryWorkerTakePart) {
  for (const std::string& name : sync_names()) {
    if (name == "fedavg") continue;
    SyncPolicy p;
    p.scheme = name;
    EXPECT_EQ(p.participants(3, 5), (std::vector<int>{0, 1, 2})) << name;
  }
}

TEST(FedAvg, RefusesAnArchitectureWithoutSubsetCollectives) {
  const SyncPolicy p = fedavg(0.1, 1, 32, 1, 32);
  EXPECT_EQ(incompatibility(p, "allreduce"), "");
  for (const char* architecture : {"ps", "byteps", "gossip"})
    EXPECT_NE(incompatibility(p, architecture).find("needs architecture \"allreduce\""), std::string::npos);
  EXPECT_TRUE(p.rules().check(fedavg(0, 1, 32, 1, 32), 4).has_value());
  EXPECT_FALSE(p.rules().check(p, 4).has_value());
}

}  // namespace
}  // namespace dtsim::sync
