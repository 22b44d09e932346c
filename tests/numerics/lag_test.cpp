// LAG-WK: the rule on hand-computed numbers, the server's held gradients, and the Trainer under LAG against
// plain bsp (a tiny threshold uploads everything and is bsp bit for bit; larger thresholds skip more).
#include <gtest/gtest.h>

#include <algorithm>

#include "numerics/lag.hpp"
#include "sim/core/error.hpp"
#include "tests/numerics/trainer_fixture.hpp"

namespace dtsim::numerics {
namespace {

using namespace testing;

TEST(Lag, RuleComparesTheGradientChangeWithTheScaledModelChanges) {
  // xi / (lr^2 n^2) x (0.25 + 0.0625) = 2 / (0.25 x 4) x 0.3125 = 0.625
  const std::vector<double> changes{0.25, 0.0625};
  EXPECT_FALSE(lag_uploads(0.625, 2.0, 0.5, 2, changes));  // equal: skips
  EXPECT_TRUE(lag_uploads(0.626, 2.0, 0.5, 2, changes));
  EXPECT_TRUE(lag_uploads(0.626, 2.0, 0.5, 2, std::vector<double>{0.25, 0.0625, 0.0}));
  EXPECT_FALSE(lag_uploads(0.626, 2.0, 0.25, 2, changes));  // half the learning rate: four times the bound
  EXPECT_TRUE(lag_uploads(0.0, 1e9, 0.5, 2, {}));          // no model change yet: always uploads
}

/// Two workers, models and gradients of two parameters, all exactly representable.
TEST(Lag, TwoWorkersDecideAsTheFormulaSaysAndTheServerKeepsTheLastUpload) {
  const auto run = [](int window) {
    LazyAggregation lag(1.0, window, 2, 2);
    const auto step = [&](std::vector<float> model, std::vector<float> g0, std::vector<float> g1) {
      return lag.step(model, {std::span<const float>(g0), std::span<const float>(g1)}, 0.5);
    };
    std::vector<std::vector<bool>> uploads;
    // Step 1: no model change yet, both upload; the server holds (1, 0) and (0, 1).
    uploads.push_back(step({0, 0}, {1, 0}, {0, 1}));
    // Step 2: ||theta^1 - theta^0||^2 = 0.25, bound 1 / (0.25 x 4) x 0.25 = 0.25.
    // Worker 0 moved 0.25 (skips, the server keeps (1, 0)); worker 1 moved 0.265625 (uploads (0.5, 1.125)).
    uploads.push_back(step({0.5, 0}, {1.5, 0}, {0.5, 1.125}));
    EXPECT_EQ(std::vector<float>(lag.held(0).begin(), lag.held(0).end()), (std::vector<float>{1, 0}));
    EXPECT_EQ(std::vector<float>(lag.held(1).begin(), lag.held(1).end()), (std::vector<float>{0.5, 1.125}));
    // Step 3: model change 0.0625; bound 0.0625 with D = 1, 0.3125 with D = 2. Worker 0 is compared with the
    // held (1, 0), not with its skipped (1.5, 0): change 0.25. Worker 1 repeats its upload: change 0.
    uploads.push_back(step({0.5, 0.25}, {1.5, 0}, {0.5, 1.125}));
    return uploads;
  };
  using Flags = std::vector<std::vector<bool>>;
  EXPECT_EQ(run(1), (Flags{{true, true}, {false, true}, {true, false}}));
  EXPECT_EQ(run(2), (Flags{{true, true}, {false, true}, {false, false}}));
}

TrainerConfig lag(double xi, int window = 10) {
  TrainerConfig c = config(std::nullopt, "momentum", 0.05);
  c.optimizer.warmup_steps = 5;
  c.sync.lag_threshold = xi;
  c.sync.lag_window = window;
  return c;
}

struct Outcome {
  std::vector<float> parameters;
  std::vector<std::vector<bool>> uploaded;
  double fraction = 0.0;  ///< uploads / (steps x workers)
};

Outcome train(const Task& task, const TrainerConfig& c, int steps) {
  Trainer trainer(*task.model, task.train, task.shards, c);
  Outcome out;
  double uploads = 0.0;
  for (int s = 0; s < steps; ++s) {
    const StepReport r = trainer.step();
    out.uploaded.push_back(r.uploaded);
    uploads += r.uploaded.empty() ? kWorkers : static_cast<double>(std::ranges::count(r.uploaded, true));
    for (std::size_t w = 0; w < r.uploaded.size(); ++w)
      for (const TensorExchange& t : r.tensors) EXPECT_EQ(t.wire_bytes[w] > 0, r.uploaded[w]) << s << " " << w;
  }
  out.parameters = parameters(trainer);
  out.fraction = uploads / (steps * kWorkers);
  return out;
}

TEST(Lag, TinyThresholdUploadsEveryStepAndIsBspBitForBit) {
  const Task task = small_task();
  const Outcome bsp = train(task, lag(0.0), 40);
  const Outcome tiny = train(task, lag(1e-12), 40);
  for (const auto& step : bsp.uploaded) EXPECT_TRUE(step.empty());
  for (const auto& step : tiny.uploaded) EXPECT_EQ(step, std::vector<bool>(kWorkers, true));
  EXPECT_EQ(tiny.parameters, bsp.parameters);
}

TEST(Lag, LargeThresholdSkipsUploadsChangesTheModelAndIsDeterministic) {
  const Task task = small_task();
  const Outcome bsp = train(task, lag(0.0), 40);
  const Outcome lazy = train(task, lag(1.0), 40);
  EXPECT_EQ(lazy.uploaded.front(), std::vector<bool>(kWorkers, true));  // the first step always uploads
  EXPECT_LT(lazy.fraction, 1.0);
  EXPECT_NE(lazy.parameters, bsp.parameters);
  EXPECT_EQ(train(task, lag(1.0), 40).parameters, lazy.parameters);
  // A longer window looks back on more model change: it skips at least as often here.
  EXPECT_LT(train(task, lag(1.0, 20), 40).fraction, train(task, lag(1.0, 1), 40).fraction);
}

TEST(Lag, UploadFractionFallsAsTheThresholdGrows) {
  const Task task = small_task();
  std::vector<double> fractions;
  for (const double xi : {0.01, 0.1, 1.0, 10.0}) fractions.push_back(train(task, lag(xi), 60).fraction);
  for (std::size_t i = 1; i < fractions.size(); ++i) EXPECT_LE(fractions[i], fractions[i - 1]) << i;
  EXPECT_LT(fractions.back(), 0.5 * fractions.front());
}

TEST(Lag, RefusesCompressionBackupWorkersAndOtherSchemes) {
  const Task task = small_task();
  TrainerConfig compressed = lag(1.0);
  compressed.compression = compression("topk", {{"ratio", 0.1}}, "residual");
  TrainerConfig backup = lag(1.0);
  backup.sync.kept = [](std::int64_t) { return std::vector<bool>(kWorkers, true); };
  TrainerConfig stale = lag(1.0);
  stale.sync.scheme = Scheme::kStaleGradients;
  for (const TrainerConfig& c : {compressed, backup, stale})
    EXPECT_THROW(Trainer(*task.model, task.train, task.shards, c), core::InputError);
}

}  // namespace
}  // namespace dtsim::numerics
