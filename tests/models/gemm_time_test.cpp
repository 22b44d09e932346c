#include <gtest/gtest.h>

#include "input_error.hpp"
#include "models/gemm_time.hpp"
#include "models/zoo.hpp"

namespace dtsim::models {
namespace {

// 4 SMs, 12.5 TFLOP/s each at fp16 (100 TFLOP/s x 0.5), memory fast enough never to bind.
GpuProfile toy_gpu() {
  GpuProfile g;
  g.name = "toy";
  g.fp16_flops = 100e12;
  g.memory_Bps = 1e18;
  g.sm_count = 4;
  g.compute_efficiency = 0.5;
  g.gemm_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  g.launch = LaunchMode::cuda_graphs;  // no CPU dispatch, a 0.5 us gap per kernel
  return g;
}
constexpr double gap = 0.5e-6;

// One 256 x 128 tile over k on one toy SM: 2 x 256 x 128 x (k + the pipeline's fill of 128) FLOPs at 12.5 TFLOP/s.
double toy_tile_s(double k) { return 2.0 * 256 * 128 * (k + 128) / 12.5e12; }

TEST(GemmTiling, TilesAndWavesByHand) {
  // 512 x 256: 2 x 2 tiles of 256 x 128, one wave on 4 SMs.
  GemmTiling t = gemm_tiling({512, 256, 64}, 4);
  EXPECT_EQ(t.tile.rows, 256);
  EXPECT_EQ(t.tile.cols, 128);
  EXPECT_EQ(t.tiles, 4);
  EXPECT_EQ(t.waves, 1);
  // One more row: 3 x 2 tiles (tile quantisation), 2 waves (wave quantisation).
  t = gemm_tiling({513, 256, 64}, 4);
  EXPECT_EQ(t.tiles, 6);
  EXPECT_EQ(t.waves, 2);
  // 128 x 128 fills no wave with the larger tiles: 64 x 64 gives 2 x 2.
  t = gemm_tiling({128, 128, 64}, 4);
  EXPECT_EQ(t.tile.rows, 64);
  EXPECT_EQ(t.tile.cols, 64);
  EXPECT_EQ(t.tiles, 4);
  EXPECT_EQ(t.waves, 1);
  // Nothing fills a wave: the smallest tile, one of it.
  t = gemm_tiling({64, 64, 64}, 4);
  EXPECT_EQ(t.tile.rows, 64);
  EXPECT_EQ(t.tiles, 1);
  EXPECT_EQ(t.waves, 1);
  // Three batched 256 x 128 products: 3 tiles of 256 x 128 < 4 SMs; 128 x 256 gives 2 x 1 x 3 = 6, in 2 waves.
  t = gemm_tiling({256, 128, 64, 3, true}, 4);
  EXPECT_EQ(t.tile.rows, 128);
  EXPECT_EQ(t.tile.cols, 256);
  EXPECT_EQ(t.tiles, 6);
  EXPECT_EQ(t.waves, 2);
  // The guide's A100 example: 108 SMs, one 256 x 128 tile each; 12 x 9 tiles are one wave, 13 x 9 two.
  EXPECT_EQ(gemm_tiling({3072, 1152, 4096}, 108).waves, 1);
  EXPECT_EQ(gemm_tiling({3328, 1152, 4096}, 108).tiles, 117);
  EXPECT_EQ(gemm_tiling({3328, 1152, 4096}, 108).waves, 2);
}

TEST(GemmTime, ExactWavesVersusOneWavePlusOneTile) {
  const GpuProfile g = toy_gpu();
  // 4 tiles fill one wave; 5 tiles (one more row of tiles) take two: 25 % more work, twice the time.
  EXPECT_DOUBLE_EQ(gemm_time_s({1024, 128, 1000}, g, Precision::fp16), toy_tile_s(1000));
  EXPECT_DOUBLE_EQ(gemm_time_s({1280, 128, 1000}, g, Precision::fp16), 2 * toy_tile_s(1000));
}

TEST(GemmTime, WholeWavesRunAtTheMeasuredFractionOfPeak) {
  // A100, bf16: 12 x 9 = 108 tiles, one per SM: 2 m n (k + 128) / (312 TFLOP/s x 0.8382), compute-bound (its 76 MB
  // take 61 us).
  const GpuProfile a100 = gpu_profile("a100");
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_NEAR(gemm_time_s({3072, 1152, 8192}, a100, Precision::bf16) /
                  (2.0 * 3072 * 1152 * (8192 + 128) / (312e12 * 0.8382)),
              1.0, 1e-12);
}

TEST(GemmTime, SustainedCeilingsReproduceTheirCitedKernelFigures) {
  // models/gpu_profile.cpp: each built-in ceiling is the one with which the wave model gives the sustained rate
  // measured on a named shape. Hopper: Bekman's MSMF on an H200, 2816 x 1536 over 6144 (one wave of 132 tiles) at
  // 749 TFLOP/s. A100: He's cuBLAS 8192^3 on random operands, 257 TFLOP/s (19 waves on 108 SMs).
  auto tflops = [](const Gemm& g, const GpuProfile& gpu) {
    return 2.0 * static_cast<double>(g.m * g.n * g.k) / gemm_time_s(g, gpu, Precision::bf16) / 1e12;
  };
  for (const char* name : {"h100", "h200", "h800"})
    EXPECT_NEAR(tflops({2816, 1536, 6144}, gpu_profile(name)), 749, 0.1) << name;
  EXPECT_NEAR(tflops({8192, 8192, 8192}, gpu_profile("a100")), 257, 0.1);
  // fp8 on Hopper: MSMF on an H200, 1536 x 2816 over 10240 (one wave) at 1335 TFLOP/s.
  for (const char* name : {"h100", "h200", "h800"}) {
    const Gemm g{1536, 2816, 10240};
    EXPECT_NEAR(2.0 * 1536 * 2816 * 10240 / gemm_time_s(g, gpu_profile(name), Precision::fp8) / 1e12, 1335, 1)
        << name;
  }
  // The burst figures they replace sit above: the H100's old 80.3 % gave 778 TFLOP/s on the same shape.
  GpuProfile burst = gpu_profile("h100");
  burst.gemm_efficiency = 0.803;
  EXPECT_NEAR(tflops({2816, 1536, 6144}, burst), 778.3, 0.1);
}

TEST(GemmTime, SmallKPaysThePipelineFill) {
  // CUTLASS's Ampere default fills 2 stages of k = 64 before the first multiply: at k = 128 (a head dimension) a tile
  // takes twice its multiply time, at k = 12288 (GPT-3's width) 1 % more.
  const GpuProfile g = toy_gpu();
  EXPECT_EQ(kPipelineFill_k, 128);
  EXPECT_DOUBLE_EQ(gemm_time_s({1024, 128, 128}, g, Precision::fp16), 2 * (2.0 * 256 * 128 * 128 / 12.5e12));
  EXPECT_NEAR(gemm_time_s({1024, 128, 12288}, g, Precision::fp16) / (2.0 * 256 * 128 * 12288 / 12.5e12), 1.0104,
              1e-4);
}

TEST(GemmTime, MemoryBoundWhenTheOperandsOutweighTheWork) {
  GpuProfile g = toy_gpu();
  g.memory_Bps = 1e9;  // 0.8 GB/s reached
  // 1024 x 128 over 1000 at fp16: 2 B x (1024 x 1000 + 1000 x 128 + 1024 x 128) = 2,566,144 B.
  EXPECT_DOUBLE_EQ(gemm_time_s({1024, 128, 1000}, g, Precision::fp16), 2566144.0 / 0.8e9);
}

TEST(GemmTime, RefusesBadShapesAndSmCounts) {
  EXPECT_EQ(input_error([] { gemm_tiling({0, 128, 64}, 4); }),
            "GEMM of 1 x (0 x 128 over 64); dimensions and product count >= 1");
  EXPECT_EQ(input_error([] { gemm_tiling({128, 128, 64}, 0); }), "GPU with 0 SMs; an SM count >= 1");
}

TEST(GemmShare, TensorParallelShardsAndBatch) {
  // GPT-3 175B's attention scores on one GPU of 8 at micro-batch 2: 96 / 8 heads x 2 samples of 2048 x 2048 over 128.
  Layer scores;
  scores.gemm = Gemm{2048, 2048, 128, 96, true};
  scores.split = TensorSplit::sharded;
  Gemm g = gpu_share(scores, 2, 8);
  EXPECT_EQ(g.count, 24);
  EXPECT_EQ(g.m, 2048);
  EXPECT_EQ(g.k, 128);
  // Its fc2 (row-parallel, 49152 -> 12288): 4096 rows over 49152 / 8 = 6144.
  Layer fc2;
  fc2.gemm = Gemm{2048, 12288, 49152};
  fc2.split = TensorSplit::row;
  g = gpu_share(fc2, 2, 8);
  EXPECT_EQ(g.m, 4096);
  EXPECT_EQ(g.n, 12288);
  EXPECT_EQ(g.k, 6144);
  EXPECT_EQ(g.count, 1);
  // Column-parallel with a width the group does not divide: rounded up.
  fc2.split = TensorSplit::column;
  EXPECT_EQ(gpu_share(fc2, 1, 5).n, 2458);
}

TEST(LayerTimes, GemmLayerForwardAndBackwardByShape) {
  Model m;
  m.name = "linear";
  Layer l;
  l.name = "fc";
  l.tensors = {{"fc.weight", {512, 1000}}};
  l.forward_flops = 2.0 * 256 * 512 * 1000;
  l.gemm = Gemm{256, 512, 1000};
  l.split = TensorSplit::column;
  m.layers = {l};
  const GpuProfile g = toy_gpu();
  // Batch 2, tensor 2: one GPU runs 512 rows x 256 columns over 1000: 2 x 2 tiles, one wave; the group's time is 2x.
  std::vector<LayerTime> t = layer_times(m, g, 2, Precision::fp16, std::nullopt, optimizer("momentum"), 2);
  EXPECT_DOUBLE_EQ(t[0].forward_s, 2 * (toy_tile_s(1000) + gap));
  // Input gradient 512 x 1000 over 256: 2 x 8 tiles, 4 waves; weight gradient 1000 x 256 over 512: 4 x 2, 2 waves;
  // two kernels.
  EXPECT_DOUBLE_EQ(t[0].backward_s, 2 * (4 * toy_tile_s(256) + 2 * toy_tile_s(512) + 2 * gap));
  // The roofline option times it like any layer: 2 x 2 x 256 x 512 x 1000 FLOPs at 50 TFLOP/s (the workload takes
  // half of it per GPU).
  GpuProfile roof = g;
  roof.gemm_model = GemmModel::roofline;
  t = layer_times(m, roof, 2, Precision::fp16, std::nullopt, optimizer("momentum"), 2);
  EXPECT_DOUBLE_EQ(t[0].forward_s, 2.0 * 2 * 256 * 512 * 1000 / 50e12 + 2 * gap);
  EXPECT_DOUBLE_EQ(t[0].backward_s, 2 * (2.0 * 2 * 256 * 512 * 1000 / 50e12) + 2 * gap);
}

TEST(LayerTimes, RefusesAGemmModelWithoutSmsOrEfficiency) {
  const Model m = make_model("gpt3_125m", 16);
  GpuProfile g = toy_gpu();
  g.sm_count = 0;
  EXPECT_EQ(input_error([&] { layer_times(m, g, 1, Precision::fp16); }),
            "GPU 'toy' has 0 SMs; an SM count >= 1 for gpu.gemm_model = \"waves\"");
  g = toy_gpu();
  g.gemm_efficiency = 0;
  EXPECT_EQ(input_error([&] { layer_times(m, g, 1, Precision::fp16); }),
            "GPU 'toy' has gemm_efficiency 0; a fraction in (0, 1]");
  EXPECT_EQ(input_error([&] { layer_times(m, toy_gpu(), 1, Precision::fp16, std::nullopt, optimizer("momentum"), 0); }),
            "tensor-parallel group of 0; a whole number >= 1");
}

TEST(GpuProfiles, SmCountsFromTheDatasheets) {
  EXPECT_EQ(gpu_profile("v100").sm_count, 80);
  EXPECT_EQ(gpu_profile("a100").sm_count, 108);
  EXPECT_EQ(gpu_profile("h100").sm_count, 132);
  EXPECT_EQ(gpu_profile("rtx2080ti").sm_count, 68);
  EXPECT_EQ(parse_gemm_model("roofline"), GemmModel::roofline);
  EXPECT_EQ(input_error([] { parse_gemm_model("tiles"); }).substr(0, 27), "unknown GEMM model 'tiles';");
}

}  // namespace
}  // namespace dtsim::models
