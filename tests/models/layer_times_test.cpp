#include <gtest/gtest.h>

#include "input_error.hpp"
#include "models/gpu_profile.hpp"
#include "models/zoo.hpp"

namespace dtsim::models {
namespace {

// Round numbers so the expected times below can be checked by hand; kernels replayed from a CUDA graph: no CPU
// dispatch, a 0.5 us gap per kernel (models/kernel_launch.hpp).
constexpr double gap = 0.5e-6;

GpuProfile toy_gpu() {
  GpuProfile g;
  g.launch = LaunchMode::cuda_graphs;
  g.name = "toy";
  g.fp32_flops = 10e12;
  g.fp16_flops = 100e12;
  g.memory_Bps = 1e12;
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  return g;
}

// A compute-bound layer with 1000 parameters and a memory-bound parameter-free one.
Model toy_model() {
  Model m;
  m.name = "toy";
  Layer dense;
  dense.name = "dense";
  dense.tensors = {{"dense.weight", {10, 100}}};
  dense.forward_flops = 1e9;
  dense.input_elements = 100;
  dense.output_elements = 200;
  Layer relu;
  relu.name = "relu";
  relu.forward_flops = 10;
  relu.input_elements = 1'000'000;
  relu.output_elements = 1'000'000;
  m.layers = {dense, relu};
  return m;
}

TEST(LayerTimes, RooflineByHandFp16) {
  const std::vector<LayerTime> t = layer_times(toy_model(), toy_gpu(), 4, Precision::fp16);
  ASSERT_EQ(t.size(), 2u);
  // dense: 4 * 1e9 flop / (100e12 * 0.5) = 8e-5 s; bytes 2 * (1000 + 4 * 300) = 4400 B take 5.5e-9 s; one kernel.
  EXPECT_DOUBLE_EQ(t[0].forward_s, 8e-5 + gap);
  EXPECT_DOUBLE_EQ(t[0].backward_s, 1.6e-4 + gap);
  // update: 1000 parameters * (20 B + 6 B of the fp16 copy of the master weights) / (1e12 * 0.8) = 3.25e-8 s, in two
  // kernels (the momentum step, the copy).
  EXPECT_DOUBLE_EQ(t[0].update_s, 3.25e-8 + 2 * gap);
  // relu: 2 * 4 * 2e6 B = 16e6 B / 0.8e12 B/s = 2e-5 s; its 40 flop are negligible.
  EXPECT_DOUBLE_EQ(t[1].forward_s, 2e-5 + gap);
  EXPECT_DOUBLE_EQ(t[1].backward_s, 4e-5 + gap);
  EXPECT_EQ(t[1].update_s, 0);
}

TEST(LayerTimes, RooflineByHandFp32) {
  const std::vector<LayerTime> t = layer_times(toy_model(), toy_gpu(), 4, Precision::fp32);
  EXPECT_DOUBLE_EQ(t[0].forward_s, 8e-4 + gap);  // 4e9 / 5e12
  EXPECT_NEAR(t[1].forward_s, 4e-5 + gap, 1e-18);  // 4 B * 8e6 / 0.8e12
  EXPECT_DOUBLE_EQ(t[0].update_s, 2.5e-8 + gap);  // fp32 weights: the step alone, 1000 * 20 B
}

TEST(LayerTimes, ParametersCountInTheMemoryTraffic) {
  Model m;
  Layer table;
  table.name = "embedding";
  table.tensors = {{"embedding.weight", {1'000'000}}};
  m.layers = {table};
  const std::vector<LayerTime> t = layer_times(m, toy_gpu(), 1, Precision::fp16);
  EXPECT_DOUBLE_EQ(t[0].forward_s, 2e6 / 0.8e12 + gap);
}

TEST(LayerTimes, MeasuredLayersBypassTheRoofline) {
  Model m = toy_model();
  m.layers[0].measured = MeasuredTime{0.003, 0.005};
  const std::vector<LayerTime> t = layer_times(m, toy_gpu(), 4, Precision::fp16);
  EXPECT_EQ(t[0].forward_s, 0.003);
  EXPECT_EQ(t[0].backward_s, 0.005);
  EXPECT_DOUBLE_EQ(t[0].update_s, 3.25e-8 + 2 * gap);
  EXPECT_DOUBLE_EQ(t[1].forward_s, 2e-5 + gap);
}

double iteration_s(const std::vector<LayerTime>& times) {
  double s = 0;
  for (const LayerTime& t : times) s += t.forward_s + t.backward_s + t.update_s;
  return s;
}

TEST(LayerTimes, CalibrationScalesEveryRooflineTimeToTheMeasuredIteration) {
  const std::vector<LayerTime> plain = layer_times(toy_model(), toy_gpu(), 4, Precision::fp16);
  const double modelled = iteration_s(plain);  // 8e-5 + 1.6e-4 + 3.25e-8 + 2e-5 + 4e-5 + 6 gaps
  EXPECT_DOUBLE_EQ(modelled, 3.000325e-4 + 6 * gap);
  const double measured = 0.0012;
  const std::vector<LayerTime> t = layer_times(toy_model(), toy_gpu(), 4, Precision::fp16, measured);
  EXPECT_DOUBLE_EQ(iteration_s(t), measured);
  const double scale = measured / modelled;
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_DOUBLE_EQ(t[i].forward_s, plain[i].forward_s * scale);
    EXPECT_DOUBLE_EQ(t[i].backward_s, plain[i].backward_s * scale);
    EXPECT_DOUBLE_EQ(t[i].update_s, plain[i].update_s * scale);
  }
}

TEST(LayerTimes, CalibrationLeavesMeasuredLayersAlone) {
  Model m = toy_model();
  m.layers[0].measured = MeasuredTime{0.003, 0.005};
  const std::vector<LayerTime> plain = layer_times(m, toy_gpu(), 4, Precision::fp16);
  const std::vector<LayerTime> t = layer_times(m, toy_gpu(), 4, Precision::fp16, 0.01);
  EXPECT_EQ(t[0].forward_s, 0.003);
  EXPECT_EQ(t[0].backward_s, 0.005);
  EXPECT_DOUBLE_EQ(iteration_s(t), 0.01);
  // The rest (relu forward/backward and dense's update) shares the remaining 0.002 s in proportion.
  const double scale = 0.002 / (plain[1].forward_s + plain[1].backward_s + plain[0].update_s);
  EXPECT_DOUBLE_EQ(t[1].forward_s, plain[1].forward_s * scale);
  EXPECT_DOUBLE_EQ(t[0].update_s, plain[0].update_s * scale);
}

TEST(LayerTimes, RejectsBadArguments) {
  EXPECT_EQ(input_error([] { layer_times(toy_model(), toy_gpu(), 0, Precision::fp16); }),
            "batch per GPU is 0; a whole number >= 1");
  EXPECT_EQ(input_error([] { layer_times(toy_model(), toy_gpu(), 1, Precision::fp16, 0.0); }),
            "measured iteration time is 0 s; a finite time > 0");
  EXPECT_EQ(input_error([] { layer_times(toy_model(), toy_gpu(), 1, Precision::fp16, -0.5); }),
            "measured iteration time is -0.5 s; a finite time > 0");
  EXPECT_EQ(input_error([] { layer_times(toy_model(), toy_gpu(), 1, Precision::bf16); }),
            "GPU 'toy' does not support precision bf16; supported: fp32, fp16");
  GpuProfile lazy = toy_gpu();
  lazy.compute_efficiency = 0;
  EXPECT_EQ(input_error([&] { layer_times(toy_model(), lazy, 1, Precision::fp16); }),
            "GPU 'toy' has compute_efficiency 0; a fraction in (0, 1]");
}

TEST(LayerTimes, RejectsACalibrationTheMeasuredLayersAlreadyExceed) {
  Model m = toy_model();
  m.layers[0].measured = MeasuredTime{0.003, 0.005};
  EXPECT_EQ(
      input_error([&] { layer_times(m, toy_gpu(), 4, Precision::fp16, 0.008); }),
      "cannot calibrate model 'toy' to a measured iteration of 0.008 s: its measured layers take 0.008 s "
      "and its modelled part 6.20325e-05 s; a measured iteration longer than the measured layers, on a "
      "model with modelled time");
}

// The defaults of models/gpu_profile.cpp against the range of published single-GPU PyTorch ResNet-50
// mixed-precision training throughputs.
TEST(LayerTimes, ResNet50ThroughputIsPlausible) {
  const Model m = make_model("resnet50");
  const double v100 = 256 / iteration_s(layer_times(m, gpu_profile("v100"), 256, Precision::fp16));
  const double a100 = 256 / iteration_s(layer_times(m, gpu_profile("a100"), 256, Precision::fp16));
  EXPECT_GT(v100, 900);
  EXPECT_LT(v100, 1400);
  EXPECT_GT(a100, 1800);
  EXPECT_LT(a100, 2800);
}

}  // namespace
}  // namespace dtsim::models
