// The Trainer under each synchronisation scheme: equivalences with bsp, what each knob changes,
// consensus of gossip and push-sum.
#include <gtest/gtest.h>

#include "numerics/evaluation.hpp"
#include "sim/core/error.hpp"
#include "tests/numerics/trainer_fixture.hpp"

namespace dtsim::numerics {
namespace {

using namespace testing;

TrainerConfig with(TrainerConfig c, Scheme scheme) {
  c.sync.scheme = scheme;
  return c;
}

TEST(SyncSchemes, LocalSgdWithPeriodOneIsBspBitForBit) {
  const Task task = small_task();
  for (const std::string optimizer : {"sgd", "momentum"}) {
    const TrainerConfig bsp = config(std::nullopt, optimizer, 0.05);
    TrainerConfig local = with(bsp, Scheme::kModelAverage);
    local.sync.exchanges = [](std::int64_t) { return true; };
    EXPECT_EQ(trained(task, bsp, 25), trained(task, local, 25)) << optimizer;
  }
}

TEST(SyncSchemes, LocalSgdDriftsBetweenAveragesAndAgreesAfterThem) {
  const Task task = small_task();
  TrainerConfig every4 = with(config(std::nullopt, "sgd", 0.1), Scheme::kModelAverage);
  every4.sync.exchanges = [](std::int64_t it) { return (it + 1) % 4 == 0; };
  Trainer trainer(*task.model, task.train, task.shards, every4);
  for (int s = 1; s <= 8; ++s) {
    trainer.step();
    if (s % 4 == 0) EXPECT_EQ(trainer.consensus_distance(), 0.0) << s;
    else EXPECT_GT(trainer.consensus_distance(), 0.0) << s;
  }
  EXPECT_NE(parameters(trainer), trained(task, config(std::nullopt, "sgd", 0.1), 8));
}

TEST(SyncSchemes, OverlapLocalSgdPullsEachWorkerTowardsTheAnchorByAlpha) {
  // The first period's anchor is the initial model x0: after the pull x_i' = x_i - a (x_i - x0), so the spread
  // around the mean shrinks by (1 - a)^2 and the mean moves to (1 - a) mean + a x0. Local SGD without an
  // average (exchanges never) gives the x_i.
  const Task task = small_task();
  const auto x0 = task.model->parameters();
  TrainerConfig alone = with(config(std::nullopt, "sgd", 0.1), Scheme::kModelAverage);
  alone.sync.exchanges = [](std::int64_t) { return false; };
  Trainer local(*task.model, task.train, task.shards, alone);
  for (const double a : {0.2, 0.5}) {
    TrainerConfig c = with(config(std::nullopt, "sgd", 0.1), Scheme::kOverlapAverage);
    c.sync.exchanges = [](std::int64_t it) { return (it + 1) % 4 == 0; };
    c.sync.pull = a;
    Trainer overlap(*task.model, task.train, task.shards, c);
    for (int s = 1; s <= 4; ++s) {
      overlap.step();
      if (a == 0.2) local.step();
      if (s < 4 && a == 0.2) {
        EXPECT_EQ(parameters(overlap), parameters(local)) << s;  // local steps only
      }
    }
    EXPECT_NEAR(overlap.consensus_distance(), (1 - a) * (1 - a) * local.consensus_distance(),
                1e-5 * local.consensus_distance());
    const std::vector<float> mean = parameters(local), pulled = parameters(overlap);
    for (std::size_t k = 0; k < mean.size(); ++k) EXPECT_NEAR(pulled[k], (1 - a) * mean[k] + a * x0[k], 1e-6) << k;
  }
}

TEST(SyncSchemes, OverlapLocalSgdRefusesCompression) {
  const Task task = small_task();
  TrainerConfig c = with(config(compression("topk", {{"ratio", 0.1}}, "residual"), "sgd", 0.1), Scheme::kOverlapAverage);
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, c), core::InputError);
}

TEST(SyncSchemes, StalenessZeroIsBspAndStalenessChangesTheTrajectory) {
  const Task task = small_task();
  const TrainerConfig bsp = config(compression("topk", {{"ratio", 0.1}}, "residual"), "momentum", 0.05);
  const auto stale = [&](int s) {
    TrainerConfig c = with(bsp, Scheme::kStaleGradients);
    c.sync.staleness = s;
    return c;
  };
  EXPECT_EQ(trained(task, bsp, 20), trained(task, stale(0), 20));
  EXPECT_NE(trained(task, bsp, 20), trained(task, stale(3), 20));
  EXPECT_EQ(trained(task, stale(3), 20), trained(task, stale(3), 20));
}

TEST(SyncSchemes, BackupWorkersDropGradientsAndKeepingAllIsBsp) {
  const Task task = small_task();
  const TrainerConfig bsp = config(std::nullopt, "sgd", 0.1);
  const auto keep = [&](std::vector<bool> kept) {
    TrainerConfig c = bsp;
    c.sync.kept = [kept](std::int64_t) { return kept; };
    return c;
  };
  EXPECT_EQ(trained(task, bsp, 10), trained(task, keep({true, true, true, true}), 10));
  EXPECT_NE(trained(task, bsp, 10), trained(task, keep({true, false, true, true}), 10));
}

TEST(SyncSchemes, CompressedPullChangesTopKAndNotSignSgd) {
  const Task task = small_task();
  for (const std::string name : {"topk", "signsgd"}) {
    const TrainerConfig dense = config(compression(name, {}, "none"), "sgd", 0.01);
    TrainerConfig compressed = dense;
    compressed.sync.compressed_pull = true;
    const bool same = trained(task, dense, 10) == trained(task, compressed, 10);
    EXPECT_EQ(same, name == "signsgd") << name;  // the server re-signs the voted signs: no change
  }
}

TEST(SyncSchemes, AsyncPushesTrainDeterministicallyAndDifferFromBsp) {
  const Task task = small_task();
  const TrainerConfig bsp = config(std::nullopt, "sgd", 0.1);
  const TrainerConfig asp = with(bsp, Scheme::kAsyncPushes);
  const auto a = trained(task, asp, 30);
  EXPECT_EQ(a, trained(task, asp, 30));
  EXPECT_NE(a, trained(task, bsp, 30));
  Trainer trainer(*task.model, task.train, task.shards, asp);
  const double before = evaluate(trainer.model(), task.test).loss;
  for (int s = 0; s < 60; ++s) trainer.step();
  EXPECT_LT(evaluate(trainer.model(), task.test).loss, before - 0.2);
}

// D-PSGD on a ring of 8: mixing pulls the workers together; without it (W = I) they drift apart.
TEST(SyncSchemes, GossipOnARingShrinksTheConsensusDistance) {
  constexpr int n = 8;
  const Task task = small_task(n);
  const TrainerConfig c = config(std::nullopt, "sgd", 0.1, n);
  const auto curve = [&](const std::vector<double>& w) {
    TrainerConfig gossip = with(c, Scheme::kGossip);
    gossip.sync.mixing = w;
    Trainer trainer(*task.model, task.train, task.shards, gossip);
    return train(trainer, task.test, 60, 20).curve;
  };
  const auto gossip = curve(ring(n)), alone = curve(identity(n));
  ASSERT_EQ(gossip.size(), 4u);
  for (std::size_t p = 1; p < gossip.size(); ++p) {
    EXPECT_GT(gossip[p].consensus_distance, 0.0);
    EXPECT_LT(gossip[p].consensus_distance, 0.5 * alone[p].consensus_distance) << p;
  }
  EXPECT_LT(gossip.back().loss, gossip.front().loss - 0.2);
}

// SGP: push-sum to one peer per iteration keeps the weights summing to n and the models together.
TEST(SyncSchemes, PushSumShrinksTheConsensusDistance) {
  constexpr int n = 8;
  const Task task = small_task(n);
  const TrainerConfig c = config(std::nullopt, "sgd", 0.1, n);
  const auto distance = [&](int hop) {
    TrainerConfig sgp = with(c, Scheme::kPushSum);
    sgp.sync.peer = [hop](int worker, std::int64_t iteration) { return (worker + (hop << (iteration % 3))) % n; };
    Trainer trainer(*task.model, task.train, task.shards, sgp);
    for (int s = 0; s < 40; ++s) trainer.step();
    return trainer.consensus_distance();
  };
  EXPECT_GT(distance(0), 0.0);
  EXPECT_LT(distance(1), 0.2 * distance(0));
}

// Model averaging and gossip compress (compressed_local_sgd_test.cpp, choco_test.cpp); push-sum does not.
TEST(SyncSchemes, PushSumRefusesCompression) {
  const Task task = small_task();
  TrainerConfig c = with(config(compression("topk", {}, "none"), "sgd", 0.1), Scheme::kPushSum);
  c.sync.peer = [](int w, std::int64_t) { return w; };
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, c), core::InputError);
}

}  // namespace
}  // namespace dtsim::numerics
