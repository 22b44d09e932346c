// PowerGossip (Vogels, Karimireddy & Jaggi, NeurIPS 2020, Algorithm 1): rank-1 power iteration on every edge's model
// difference, warm-started per edge and matrix; its exact wire bytes, its consensus and its training.
#include <gtest/gtest.h>

#include "compressors/rng.hpp"
#include "numerics/consensus.hpp"
#include "numerics/evaluation.hpp"
#include "numerics/power_gossip.hpp"
#include "sim/core/error.hpp"
#include "tests/numerics/trainer_fixture.hpp"

namespace dtsim::numerics {
namespace {

using namespace testing;

/// A 6 x 5 matrix and a bias of 6, one flat buffer per worker.
const std::vector<TensorInfo> kTensors = {{.name = "w", .offset = 0, .rows = 6, .cols = 5},
                                          {.name = "b", .offset = 30, .rows = 6, .cols = 1}};

std::vector<std::vector<float>> random_models(int n, std::uint64_t seed) {
  compressors::Rng rng(seed);
  std::vector<std::vector<float>> x(static_cast<std::size_t>(n), std::vector<float>(36));
  for (auto& m : x)
    for (float& v : m) v = static_cast<float>(rng.normal());
  return x;
}

std::vector<std::span<float>> spans(std::vector<std::vector<float>>& x) { return {x.begin(), x.end()}; }

double spread(const std::vector<std::vector<float>>& x) {
  Models models(x.begin(), x.end());
  return consensus_distance(models);
}

TEST(PowerGossip, EdgeBytesAreTheTwoFactorsOfEachMatrixAndVectorsWhole) {
  EXPECT_EQ(power_gossip_edge_bytes(6, 5).first_round, 4 * 5);   // X^T p: n floats
  EXPECT_EQ(power_gossip_edge_bytes(6, 5).second_round, 4 * 6);  // X q: m floats
  EXPECT_EQ(power_gossip_edge_bytes(6, 1).first_round, 4 * 6);
  EXPECT_EQ(power_gossip_edge_bytes(6, 1).second_round, 0);
  EXPECT_EQ(power_gossip_edge_bytes(1, 7).first_round, 4 * 7);
  // Every worker of a ring of 4 sends both factors to each of its two neighbours.
  auto x = random_models(4, 3);
  PowerGossip gossip(ring(4), 1.0, 9);
  const auto bytes = gossip.step(spans(x), kTensors);
  ASSERT_EQ(bytes.size(), 2u);
  for (int w = 0; w < 4; ++w) {
    EXPECT_EQ(bytes[0][static_cast<std::size_t>(w)].first_round, 2 * 4 * 5);
    EXPECT_EQ(bytes[0][static_cast<std::size_t>(w)].second_round, 2 * 4 * 6);
    EXPECT_EQ(bytes[1][static_cast<std::size_t>(w)].first_round, 2 * 4 * 6);
    EXPECT_EQ(bytes[1][static_cast<std::size_t>(w)].second_round, 0);
  }
}

TEST(PowerGossip, ARankOneDifferenceIsAveragedExactly) {
  // X_1 = X_0 + u v^T: one power step recovers D = u v^T exactly (D q^ = u |v|, q^ = v / |v|), so W = [.5 .5; .5 .5]
  // with gamma 1 averages both models in one step, as dense gossip does.
  auto x = random_models(2, 5);
  const std::vector<float> u = {1, -2, 0.5f, 3, 0, 1}, v = {2, 1, -1, 0.5f, 4};
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t c = 0; c < 5; ++c) x[1][r * 5 + c] = x[0][r * 5 + c] + u[r] * v[c];
  std::vector<float> mean(36);
  for (std::size_t k = 0; k < 36; ++k) mean[k] = 0.5f * (x[0][k] + x[1][k]);
  PowerGossip gossip({0.5, 0.5, 0.5, 0.5}, 1.0, 1);
  gossip.step(spans(x), kTensors);
  for (std::size_t k = 0; k < 36; ++k) {
    EXPECT_NEAR(x[0][k], mean[k], 1e-5) << k;
    EXPECT_NEAR(x[1][k], mean[k], 1e-5) << k;
  }
}

TEST(PowerGossip, KeepsTheAverageAndReachesConsensus) {
  // The edge updates are antisymmetric: the mean model never moves. Warm-started power iteration tracks the
  // shrinking differences, so the spread falls towards 0 step after step.
  auto x = random_models(4, 7);
  const auto before = x;
  std::vector<float> mean(36, 0.0f);
  for (const auto& m : x)
    for (std::size_t k = 0; k < 36; ++k) mean[k] += 0.25f * m[k];
  PowerGossip gossip(ring(4), 1.0, 2);
  const double start = spread(x);
  double last = start;
  for (int s = 0; s < 200; ++s) {
    gossip.step(spans(x), kTensors);
    const double now = spread(x);
    EXPECT_LE(now, last * (1 + 1e-9) + 1e-10) << s;
    last = now;
  }
  EXPECT_LT(last, 1e-6 * start);
  for (std::size_t k = 0; k < 36; ++k) EXPECT_NEAR(0.25f * (x[0][k] + x[1][k] + x[2][k] + x[3][k]), mean[k], 1e-5) << k;
  EXPECT_NE(x, before);
}

TrainerConfig power(std::vector<double> mixing) {
  TrainerConfig out = gossip(std::nullopt, std::move(mixing), 1.0);
  out.sync.power_gossip = true;
  return out;
}

TEST(PowerGossip, TrainsAsWellAsDenseGossipAndReportsItsRounds) {
  // Ring of 4: the replicas stay close (unlike training alone) and the average model reaches the test accuracy of
  // dense D-PSGD within a few points.
  const Task task = small_task();
  auto run = [&](TrainerConfig c) {
    Trainer t(*task.model, task.train, task.shards, c);
    StepReport last;
    for (int s = 0; s < 150; ++s) last = t.step();
    return std::tuple{t.consensus_distance(), evaluate(t.model(), task.test).accuracy, last};
  };
  TrainerConfig dense = power(ring(kWorkers)), alone = power(identity(kWorkers));
  dense.sync.power_gossip = false;
  alone.sync.power_gossip = false;
  const auto [alone_distance, alone_accuracy, a] = run(alone);
  const auto [dense_distance, dense_accuracy, d] = run(dense);
  const auto [power_distance, power_accuracy, report] = run(power(ring(kWorkers)));
  EXPECT_LT(power_distance, 0.1 * alone_distance);
  EXPECT_GT(power_accuracy, dense_accuracy - 0.03);
  const auto tensors = task.model->tensors();
  ASSERT_EQ(report.tensors.size(), tensors.size());
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const PowerGossipBytes edge = power_gossip_edge_bytes(tensors[t].rows, tensors[t].cols);
    for (int w = 0; w < kWorkers; ++w) {
      EXPECT_EQ(report.tensors[t].wire_bytes[static_cast<std::size_t>(w)], 2 * edge.first_round);
      EXPECT_EQ(report.tensors[t].second_round_bytes[static_cast<std::size_t>(w)], 2 * edge.second_round);
    }
  }
}

TEST(PowerGossip, ACompressorIsRefused) {
  const Task task = small_task();
  TrainerConfig c = power(ring(kWorkers));
  c.compression = compression("topk", {}, "none");
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, c), core::InputError);
}

}  // namespace
}  // namespace dtsim::numerics
