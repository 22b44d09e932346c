// Compute calibration: a measured per-layer profile, and one measured single-GPU iteration time.
#include "sim/calibration/layer_profile.hpp"

#include <gtest/gtest.h>

#include "models/gpu_profile.hpp"
#include "models/zoo.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/calibration/temp_files.hpp"

namespace dtsim::calibration {
namespace {

using testing::error_of;
using testing::write_file;

// The mlp's layers in another order than the model's, times in ms.
const std::string kProfile =
    "layer,forward_ms,backward_ms\n"
    "softmax,0.01,0.02\n"
    "fc1,0.5,1.0\n"
    "relu1,0.05,0.05\n"
    "dropout1,0.04,0.04\n"
    "fc2,0.25,0.5\n"
    "relu2,0.05,0.05\n"
    "dropout2,0.04,0.04\n"
    "fc3,0.02,0.03\n";

constexpr double kProfileComputeS =
    (0.01 + 0.02 + 0.5 + 1.0 + 0.05 + 0.05 + 0.04 + 0.04 + 0.25 + 0.5 + 0.05 + 0.05 + 0.04 + 0.04 + 0.02 + 0.03) / 1000;

TEST(LayerProfile, MatchingLayersCarryTheMeasuredTimes) {
  const models::Model mlp = models::make_model("mlp");
  const models::Model measured = with_measured_layers(mlp, write_file("profile.csv", kProfile));
  ASSERT_EQ(measured.layers.size(), mlp.layers.size());
  EXPECT_EQ(measured.layers[0].name, "fc1");
  ASSERT_TRUE(measured.layers[0].measured);
  EXPECT_DOUBLE_EQ(measured.layers[0].measured->forward_s, 0.5e-3);
  EXPECT_DOUBLE_EQ(measured.layers[0].measured->backward_s, 1.0e-3);
  EXPECT_EQ(measured.parameter_count(), mlp.parameter_count());
  EXPECT_FALSE(mlp.layers[0].measured);  // the input model is unchanged
  const auto times = models::layer_times(measured, models::gpu_profile("v100"), 32, models::Precision::fp32);
  EXPECT_DOUBLE_EQ(times[3].forward_s, 0.25e-3);
  EXPECT_DOUBLE_EQ(times[7].backward_s, 0.02e-3);
}

TEST(LayerProfile, ErrorsNameTheLayer) {
  const models::Model mlp = models::make_model("mlp");
  const std::string unknown = write_file("unknown.csv", kProfile + "fc4,1,1\n");
  EXPECT_EQ(error_of([&] { with_measured_layers(mlp, unknown); }),
            unknown +
                ":10:1: unknown layer 'fc4' in model 'mlp'; did you mean 'fc1', 'fc2' or 'fc3'? a layer of the model: "
                "fc1, relu1, dropout1, fc2, "
                "relu2 and 3 more");
  const std::string twice = write_file("twice.csv", kProfile + "fc2,1,1\n");
  EXPECT_EQ(error_of([&] { with_measured_layers(mlp, twice); }),
            twice + ":10:1: layer 'fc2' appears twice (first on line 6); one row per layer");
  const std::string missing = write_file("missing.csv", "layer,forward_ms,backward_ms\nfc1,1,1\n");
  EXPECT_EQ(error_of([&] { with_measured_layers(mlp, missing); }),
            missing +
                ":1:1: 7 layers of model 'mlp' have no row: relu1, dropout1, fc2, relu2, dropout2 and 2 more; "
                "one row per layer of the model");
  const std::string negative = write_file("negative.csv", "layer,forward_ms,backward_ms\nfc1,-1,1\n");
  EXPECT_EQ(error_of([&] { with_measured_layers(mlp, negative); }),
            negative + ":2:5: forward_ms -1 is out of range; a finite number >= 0");
  const std::string header = write_file("header.csv", "name,forward_ms,backward_ms\nfc1,1,1\n");
  EXPECT_EQ(error_of([&] { with_measured_layers(mlp, header); }),
            header + ":1:1: column 1 is 'name'; the header layer,forward_ms,backward_ms");
}

scenario::Scenario one_mlp_worker() {
  return scenario::load_default_scenario({"workers=1", "model.name=mlp", "strategy.fidelity=analytic", "iterations=1"});
}

double update_s(const scenario::Scenario& s) {
  double update = 0;
  for (const auto& t : models::layer_times(s.model, s.gpu, s.batch_size, s.precision)) update += t.update_s;
  return update;
}

TEST(ComputeCalibration, ProfileReplacesTheRooflineInThePredictedIteration) {
  scenario::Scenario s = one_mlp_worker();
  const double roofline_s = run::run_simulation(s).mean_iteration_s;
  s.model = with_measured_layers(s.model, write_file("profile.csv", kProfile));
  const double predicted = run::run_simulation(s).mean_iteration_s;
  EXPECT_NE(predicted, roofline_s);
  EXPECT_NEAR(predicted, kProfileComputeS + update_s(s), 1e-15);
}

TEST(ComputeCalibration, MeasuredIterationScalesThePredictedIterationToIt) {
  scenario::Scenario s = one_mlp_worker();
  const double roofline_s = run::run_simulation(s).mean_iteration_s;
  s.measured_iteration_s = 3 * roofline_s;
  const run::RunResult r = run::run_simulation(s);
  EXPECT_NEAR(r.mean_iteration_s, 3 * roofline_s, 1e-12 * roofline_s);
  EXPECT_NEAR(r.single_worker_iteration_s, 3 * roofline_s, 1e-12 * roofline_s);
}

}  // namespace
}  // namespace dtsim::calibration
