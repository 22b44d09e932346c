// Numerics mode: real training against simulated time, and time-to-accuracy.
#include <gtest/gtest.h>

#include "compressors/registry.hpp"
#include "sim/run/numerics_run.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

scenario::Scenario task(const std::vector<std::string>& settings = {}) {
  return scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/time_to_accuracy.toml", settings);
}

TEST(NumericsMode, TopKWithErrorFeedbackReachesTheTargetAndWithoutItDoesNot) {
  const RunResult with = run_simulation(task());
  const RunResult without = run_simulation(task({"compression.error_feedback=\"none\""}));
  ASSERT_TRUE(with.time_to_accuracy_s.has_value());
  EXPECT_GT(with.curve.back().accuracy, 0.85);
  EXPECT_FALSE(without.time_to_accuracy_s.has_value());
  EXPECT_LT(without.curve.back().accuracy, with.curve.back().accuracy - 0.3);
}

TEST(NumericsMode, CurveIsOnTheSimulatedTimeLineAndReproducible) {
  const RunResult a = run_simulation(task());
  const RunResult b = run_simulation(task());
  ASSERT_EQ(a.curve.size(), 7u);  // steps 0, 50, ..., 300
  for (std::size_t i = 0; i < a.curve.size(); ++i) {
    EXPECT_DOUBLE_EQ(a.curve[i].simulated_time_s, static_cast<double>(a.curve[i].step) * a.mean_iteration_s);
    EXPECT_EQ(a.curve[i].accuracy, b.curve[i].accuracy);
    EXPECT_EQ(a.curve[i].loss, b.curve[i].loss);
  }
  EXPECT_EQ(*a.time_to_accuracy_s, *b.time_to_accuracy_s);
}

TEST(NumericsMode, CompressorNoneTrainsExactlyLikeDenseAndCompressionIsCheaperOnTheWire) {
  auto none = task();
  none.compression.compressor = "none";
  none.compression.options.clear();
  auto dense = none;
  dense.compression.compressor.clear();
  const RunResult a = run_simulation(none);
  const RunResult b = run_simulation(dense);
  for (std::size_t i = 0; i < a.curve.size(); ++i) EXPECT_EQ(a.curve[i].loss, b.curve[i].loss);
  EXPECT_LT(run_simulation(task()).traffic[0].bytes_sent, b.traffic[0].bytes_sent);
}

}  // namespace
}  // namespace dtsim::run

namespace dtsim::run {
namespace {

TEST(NumericsMode, TimingKernelsCanRunOnTheRealGradient) {
  // A threshold compressor's wire size counts the entries above the threshold: on numerics mode's real
  // gradient it is the compressor's size for that gradient, not for a synthetic one.
  auto s = scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/time_to_accuracy.toml");
  s.compression.compressor = "threshold";
  s.compression.error_feedback = "none";
  s.compression.options = {{"threshold", 0.01}};
  const auto synthetic = make_iteration_plan(s);
  s.compression.gradient = "numerics";
  const std::vector<float> real = numerics_gradient(s);
  const auto measured = make_iteration_plan(s, nullptr, real);
  ASSERT_EQ(measured.work.size(), 1u);  // scheduler "none": one bucket of every tensor
  const auto expected = compressors::make_compressor("threshold", s.compression.options)->compress(real, 0).wire_size;
  EXPECT_EQ(measured.work[0].exchanges.at(0).bytes, expected);
  EXPECT_NE(synthetic.work[0].exchanges.at(0).bytes, expected);
}

}  // namespace
}  // namespace dtsim::run
