// Compressed gossip as CHOCO-SGD (Koloskova, Stich & Jaggi, ICML 2019, Algorithm 1): public copies xh_i updated by
// the compressed differences, and a consensus step gamma towards the neighbours' copies.
#include <gtest/gtest.h>

#include "numerics/evaluation.hpp"
#include "sim/core/error.hpp"
#include "tests/numerics/trainer_fixture.hpp"

namespace dtsim::numerics {
namespace {

using namespace testing;

TEST(Choco, WithoutNeighboursEveryWorkerTrainsAlone) {
  // W = I: x_i += gamma (xh_i - xh_i) = 0, whatever the compressor: dense gossip on I, bit for bit.
  const Task task = small_task();
  Trainer alone(*task.model, task.train, task.shards, gossip(std::nullopt, identity(kWorkers), 1.0));
  Trainer choco(*task.model, task.train, task.shards, gossip(compression("topk", {{"ratio", 0.1}}, "none"), identity(kWorkers), 0.5));
  for (int s = 0; s < 10; ++s) {
    alone.step();
    choco.step();
  }
  EXPECT_EQ(parameters(alone), parameters(choco));
  EXPECT_GT(choco.consensus_distance(), 0.0);
}

TEST(Choco, ConsensusStepKeepsTheAverageModel) {
  // sum_i sum_j W_ij (xh_j - xh_i) = 0 for a symmetric W: one step from equal models moves the average exactly as
  // the workers' own steps do, for any compressor and gamma.
  const Task task = small_task();
  Trainer alone(*task.model, task.train, task.shards, gossip(std::nullopt, identity(kWorkers), 1.0));
  Trainer choco(*task.model, task.train, task.shards, gossip(compression("qsgd", {}, "none"), ring(kWorkers), 0.3));
  alone.step();
  const StepReport r = choco.step();
  const auto a = parameters(alone), b = parameters(choco);  // the mean of the replicas
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-6) << k;
  EXPECT_GT(choco.consensus_distance(), 0.0);
  ASSERT_FALSE(r.tensors.empty());
  for (const TensorExchange& t : r.tensors) EXPECT_EQ(t.wire_bytes.size(), static_cast<std::size_t>(kWorkers));
}

TEST(Choco, CompressedGossipReachesConsensusAndTrains) {
  // Ring of 4, top-k at 10 % of the difference to the public copy: the replicas stay close (unlike training alone)
  // and the average model trains about as well as dense D-PSGD.
  const Task task = small_task();
  auto run = [&](TrainerConfig c) {
    Trainer t(*task.model, task.train, task.shards, c);
    for (int s = 0; s < 150; ++s) t.step();
    return std::pair{t.consensus_distance(), evaluate(t.model(), task.test).loss};
  };
  const auto [alone_distance, alone_loss] = run(gossip(std::nullopt, identity(kWorkers), 1.0));
  const auto [dense_distance, dense_loss] = run(gossip(std::nullopt, ring(kWorkers), 1.0));
  const auto [choco_distance, choco_loss] = run(gossip(compression("topk", {{"ratio", 0.1}}, "none"), ring(kWorkers), 0.4));
  EXPECT_LT(choco_distance, 0.1 * alone_distance);
  EXPECT_LT(choco_loss, dense_loss * 1.1);
}

TEST(Choco, ErrorFeedbackAndPushSumAreRefused) {
  const Task task = small_task();
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, gossip(compression("topk", {}, "residual"), ring(kWorkers), 0.5)),
               core::InputError);
  TrainerConfig push = gossip(compression("topk", {}, "none"), ring(kWorkers), 0.5);
  push.sync.scheme = Scheme::kPushSum;
  push.sync.peer = [](int w, std::int64_t) { return w; };
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, push), core::InputError);
}

}  // namespace
}  // namespace dtsim::numerics
