// FedAvg (McMahan et al. 2017) and momentum local SGD (Yu, Jin & Yang 2019) in the Trainer: sampling every
// client is local SGD bit for bit, unsampled workers sit out and take the global model, the average weighs by
// shard size, and averaging the momentum buffers keeps momentum replicas equal after an average.
#include <gtest/gtest.h>

#include "numerics/consensus.hpp"
#include "numerics/evaluation.hpp"
#include "sim/core/error.hpp"
#include "tests/numerics/trainer_fixture.hpp"

namespace dtsim::numerics {
namespace {

using namespace testing;

TrainerConfig every(int period, TrainerConfig c) {
  c.sync.scheme = Scheme::kModelAverage;
  c.sync.exchanges = [period](std::int64_t it) { return (it + 1) % period == 0; };
  return c;
}

/// Round r (of `period` steps) samples workers r mod W and r + 1 mod W.
TrainerConfig two_a_round(int period, TrainerConfig c) {
  c = every(period, std::move(c));
  const int workers = c.workers;
  c.sync.participants = [period, workers](std::int64_t it) {
    const int r = static_cast<int>(it / period);
    std::vector<int> p{r % workers, (r + 1) % workers};
    std::sort(p.begin(), p.end());
    return p;
  };
  return c;
}

TEST(FedAvg, SamplingEveryClientWithEqualShardsIsLocalSgdBitForBit) {
  const Task task = small_task();  // 1,000 training examples: 4 shards of 250
  const TrainerConfig local = every(4, config(std::nullopt, "sgd", 0.1));
  TrainerConfig all = local;
  all.sync.participants = [](std::int64_t) { return std::vector<int>{0, 1, 2, 3}; };
  EXPECT_EQ(trained(task, local, 24), trained(task, all, 24));
}

TEST(FedAvg, UnsampledWorkersSitOutAndEveryWorkerTakesTheGlobalModel) {
  const Task task = small_task();
  const TrainerConfig sampled = two_a_round(4, config(std::nullopt, "sgd", 0.1));
  Trainer trainer(*task.model, task.train, task.shards, sampled);
  for (int s = 1; s <= 12; ++s) {
    trainer.step();
    if (s % 4 == 0) EXPECT_EQ(trainer.consensus_distance(), 0.0) << s;  // every worker holds the global model
    else EXPECT_GT(trainer.consensus_distance(), 0.0) << s;
  }
  // Workers 2 and 3 never train in the first round: the same run on only workers 0 and 1 (shards 0 and 1) ends
  // the round on the same model.
  Task two = small_task();
  two.shards.resize(2);
  TrainerConfig pair = every(4, config(std::nullopt, "sgd", 0.1, 2));
  pair.sync.participants = [](std::int64_t) { return std::vector<int>{0, 1}; };
  Trainer first(*task.model, task.train, task.shards, sampled);
  Trainer alone(*two.model, two.train, two.shards, pair);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(first.step().loss, alone.step().loss) << "the sampled workers' loss";
  EXPECT_EQ(parameters(first), parameters(alone));
}

TEST(FedAvg, TheAverageWeighsEachSampledClientByItsShard) {
  // Shards of 100 and 400 examples: one-step rounds of SGD give x0 - lr (g0 + 4 g1) / 5, which differs from local
  // SGD's plain mean; the same shards in equal halves give local SGD exactly.
  Task task = small_task(2);
  std::vector<std::int64_t> rows = task.shards[0];
  rows.insert(rows.end(), task.shards[1].begin(), task.shards[1].end());
  task.shards = {std::vector<std::int64_t>(rows.begin(), rows.begin() + 100),
                 std::vector<std::int64_t>(rows.begin() + 100, rows.begin() + 500)};
  const TrainerConfig local = every(1, config(std::nullopt, "sgd", 0.1, 2));
  TrainerConfig weighted = local;
  weighted.sync.participants = [](std::int64_t) { return std::vector<int>{0, 1}; };
  EXPECT_NE(trained(task, local, 3), trained(task, weighted, 3));
  std::vector<float> a{1.0f, 2.0f}, b{5.0f, -2.0f}, out(2);
  const std::vector<double> weights{100, 400};
  weighted_average({a, b}, weights, out);
  EXPECT_EQ(out, (std::vector<float>{4.2f, -1.2f}));
}

TEST(FedAvg, SampledTrainingLearnsNearLocalSgd) {
  const Task task = small_task();
  Trainer local(*task.model, task.train, task.shards, every(4, config(std::nullopt, "sgd", 0.1)));
  Trainer sampled(*task.model, task.train, task.shards, two_a_round(4, config(std::nullopt, "sgd", 0.1)));
  const double before = evaluate(*task.model, task.test).accuracy;
  for (int s = 0; s < 400; ++s) {
    local.step();
    sampled.step();
  }
  const double l = evaluate(local.model(), task.test).accuracy, f = evaluate(sampled.model(), task.test).accuracy;
  EXPECT_GT(f, before + 0.3);
  EXPECT_GT(f, l - 0.05);
}

TEST(MomentumLocalSgd, AveragingTheBuffersKeepsTheReplicasEqualAfterAnAverage) {
  const Task task = small_task();
  TrainerConfig averaged = every(4, config(std::nullopt, "momentum", 0.05));
  averaged.sync.average_momentum = true;
  Trainer trainer(*task.model, task.train, task.shards, averaged);
  for (int s = 1; s <= 12; ++s) {
    trainer.step();
    if (s % 4 == 0) {
      EXPECT_EQ(trainer.consensus_distance(), 0.0) << s;
    }
  }
  // Without it each worker keeps its own buffer (Lin et al.'s local momentum): the models it averaged step apart
  // again at once.
  Trainer own_buffers(*task.model, task.train, task.shards, every(4, config(std::nullopt, "momentum", 0.05)));
  for (int s = 0; s < 4; ++s) own_buffers.step();
  EXPECT_GT(own_buffers.consensus_distance(), 0.0);
  // With period 1 the buffers are equal anyway: averaging them changes nothing, bit for bit.
  TrainerConfig each = every(1, config(std::nullopt, "momentum", 0.05));
  TrainerConfig each_averaged = each;
  each_averaged.sync.average_momentum = true;
  EXPECT_EQ(trained(task, each, 20), trained(task, each_averaged, 20));
}

TEST(FedAvg, MomentumAveragingAndSamplingRefuseWhatTheyCannotAverage) {
  const Task task = small_task();
  TrainerConfig bsp = config(std::nullopt, "momentum", 0.05);
  bsp.sync.average_momentum = true;
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, bsp), core::InputError);
  TrainerConfig adam = every(4, config(std::nullopt, "adam", 0.01));
  adam.sync.average_momentum = true;
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, adam), core::InputError);
  TrainerConfig compressed = every(4, config(compression("topk", {{"ratio", 0.1}}, "residual"), "sgd", 0.1));
  compressed.sync.participants = [](std::int64_t) { return std::vector<int>{0}; };
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, compressed), core::InputError);
  TrainerConfig momentum = two_a_round(4, config(std::nullopt, "momentum", 0.05));
  EXPECT_THROW(Trainer(*task.model, task.train, task.shards, momentum), core::InputError);
}

}  // namespace
}  // namespace dtsim::numerics
