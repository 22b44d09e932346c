// Calibration from a PyTorch profiler trace: the fixture (traces/make_kineto_fixture.py, made by dtsim's models with
// known constants) fits back to them; bad traces and calibration files are located errors.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "models/attention_time.hpp"
#include "models/gpu_profile.hpp"
#include "sim/calibration/calibrate.hpp"
#include "sim/calibration/kineto_trace.hpp"
#include "sim/calibration/profile_fit.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/calibration/temp_files.hpp"

namespace dtsim::calibration {
namespace {

using testing::error_of;
using testing::write_file;

const std::string kFixture = std::string(DTSIM_SOURCE_DIR) + "/tests/sim/calibration/traces/a100_two_steps.json";

// The fixture's durations are whole nanoseconds: at most 0.5 ns of rounding on kernels of 20 us and more.
constexpr double kRounding = 1e-4;

const ConstantFit& constant(const ProfileFit& fit, const std::string& key) {
  for (const ConstantFit& f : fit.constants)
    if (f.key == key) return f;
  throw std::runtime_error("no constant " + key);
}

ProfileFit fixture_fit() {
  return fit_profile(read_kineto_trace(kFixture), models::gpu_profile("a100"), models::Precision::bf16);
}

TEST(KinetoCalibration, TheFixtureFitsBackToTheConstantsItWasMadeWith) {
  const ProfileFit fit = fixture_fit();
  EXPECT_EQ(fit.steps, 2);
  const ConstantFit& gemm = constant(fit, "gemm_efficiency");
  EXPECT_NEAR(gemm.fitted, 0.75, 0.75 * kRounding);
  EXPECT_EQ(gemm.points, 6);    // addmm and two mm per step
  EXPECT_EQ(gemm.left_out, 4);  // the bmm over k = 128 and the mm over k = 16, which the model times memory-bound
  EXPECT_LT(gemm.max_relative_error, kRounding);
  const ConstantFit& attention = constant(fit, "attention_scale");
  EXPECT_NEAR(attention.fitted, 0.9, 0.9 * kRounding);
  EXPECT_EQ(attention.points, 6);  // forward, causal forward and backward (three kernels) per step
  const ConstantFit& memory = constant(fit, "memory_efficiency");
  EXPECT_NEAR(memory.fitted, 0.6, 0.6 * kRounding);
  EXPECT_EQ(memory.points, 6);
  // Launch costs: whole nanoseconds on both sides, so exact but for the microsecond-to-second conversion.
  const ConstantFit& gap = constant(fit, "launch_gap");
  EXPECT_NEAR(gap.fitted, 1.5e-6, 1e-12);
  EXPECT_LT(gap.max_relative_error, 1e-6);
  EXPECT_EQ(gap.points, 29);  // the 30 kernels of stream 7 (the CPU issues ahead of the GPU throughout)
  EXPECT_EQ(gap.left_out, 0);
  const ConstantFit& dispatch = constant(fit, "launch_dispatch");
  EXPECT_NEAR(dispatch.fitted, 9.25e-6, 1e-12);
  // Stalls: the forward thread waits out the backward twice and the steps' pause, the backward thread that pause.
  EXPECT_EQ(dispatch.left_out, 4);
  EXPECT_NEAR(fit.fitted.gemm_efficiency, 0.75, 0.75 * kRounding);
  EXPECT_EQ(fit.fitted.launch_dispatch_s, dispatch.fitted);
}

TEST(KinetoCalibration, KernelsAreClassifiedByName) {
  EXPECT_EQ(kernel_family("ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn"), KernelFamily::gemm);
  EXPECT_EQ(kernel_family("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32"), KernelFamily::gemm);
  EXPECT_EQ(kernel_family("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT"), KernelFamily::gemm);
  EXPECT_EQ(kernel_family("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn>"),
            KernelFamily::gemm);
  EXPECT_EQ(kernel_family("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>"),
            KernelFamily::attention);
  EXPECT_EQ(kernel_family("fmha_cutlassF_bf16_aligned_64x64_rf_sm80"), KernelFamily::attention);
  EXPECT_EQ(kernel_family("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), KernelFamily::nccl);
  EXPECT_EQ(kernel_family("void at::native::multi_tensor_apply_kernel<FusedAdamMathFunctor>"),
            KernelFamily::optimizer);
  EXPECT_EQ(kernel_family("void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>"),
            KernelFamily::elementwise);
}

TEST(KinetoCalibration, PerStepTimeByFamily) {
  const ProfileFit fit = fixture_fit();
  for (const auto& [family, seconds] : fit.per_step_s) {
    if (family == KernelFamily::nccl) {
      EXPECT_NEAR(seconds, 200e-6, 1e-15);
    } else if (family == KernelFamily::optimizer) {
      EXPECT_NEAR(seconds, 300e-6, 1e-15);
    } else if (family == KernelFamily::memcpy) {
      EXPECT_NEAR(seconds, 40e-6, 1e-15);
    }
  }
  EXPECT_EQ(fit.per_step_s.size(), 6u);  // gemm, attention, elementwise, optimizer, nccl, memcpy
}

TEST(KinetoCalibration, LayerRangesGiveMeasuredLayerTimes) {
  const std::string csv = layer_times_csv(read_kineto_trace(kFixture));
  // fc1: forward one 8192 x 4096 x 4096 GEMM, backward two of the same FLOPs, at efficiency 0.75 (the fixture's
  // numbers); attn: the flash kernels.
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "layer,forward_ms,backward_ms");
  EXPECT_NE(csv.find("\nfc1,"), std::string::npos);
  EXPECT_NE(csv.find("\nattn,"), std::string::npos);
  const std::string fc1 = csv.substr(csv.find("\nfc1,") + 5);
  const double forward_ms = std::stod(fc1.substr(0, fc1.find(',')));
  const double backward_ms = std::stod(fc1.substr(fc1.find(',') + 1));
  // 8192 x 4096 in tiles of 256 x 128: 1024 tiles in 10 waves of 108, each tile 2 x 256 x 128 x (4096 + 128) FLOPs
  // at 0.75 x 312 TFLOP/s / 108; backward the same input gradient and the weight gradient (4096 x 4096 over 8192:
  // 512 tiles in 5 waves over k = 8192 + 128).
  const double tile_ms = 2.0 * 256 * 128 / (0.75 * 312e12 / 108) * 1e3;
  EXPECT_NEAR(forward_ms, 10 * (4096 + 128) * tile_ms, 1e-5);
  EXPECT_NEAR(backward_ms, 10 * (4096 + 128) * tile_ms + 5 * (8192 + 128) * tile_ms, 1e-5);
}

TEST(KinetoCalibration, TheCalibrationFileSetsTheScenariosGpu) {
  const std::string file = write_file("a100_fit.toml", calibration_toml(fixture_fit()));
  const std::string scenario = write_file("fit.toml",
                                          "platform = \"star_16_10gbe\"\nworkers = 2\nbatch_size = 8\n[model]\nname = \"gpt2_small\"\n[gpu]\n"
                                          "profile = \"a100\"\nprecision = \"bf16\"\ncalibration = \"a100_fit.toml\"\n"
                                          "launch_gap = \"2us\"\n");
  const scenario::Scenario s = scenario::load_scenario(scenario);
  EXPECT_NEAR(s.gpu.gemm_efficiency, 0.75, 0.75 * kRounding);
  EXPECT_NEAR(s.gpu.memory_efficiency, 0.6, 0.6 * kRounding);
  EXPECT_NEAR(s.gpu.attention_scale, 0.9, 0.9 * kRounding);
  EXPECT_NEAR(*s.gpu.launch_dispatch_s, 9.25e-6, 1e-12);
  EXPECT_DOUBLE_EQ(*s.gpu.launch_gap_s, 2e-6);  // the scenario's key over the file's
  EXPECT_DOUBLE_EQ(s.gpu.kernel_launch_costs().gap_s, 2e-6);
  EXPECT_NEAR(s.gpu.kernel_launch_costs().dispatch_s, 9.25e-6, 1e-12);
  // The attention model runs at the fitted fraction of the published throughput.
  const models::AttentionShape shape{16, 2048, 128, false};
  const auto flash = [&](const models::GpuProfile& g) {
    return models::attention_time_s(shape, g, models::Precision::bf16, models::Kernel::flash_attention2,
                                    models::AttentionPass::forward);
  };
  EXPECT_NEAR(flash(s.gpu) * s.gpu.attention_scale, flash(models::gpu_profile("a100")), 1e-15);
  // On another GPU, or with a key the file may not set: located errors.
  EXPECT_NE(error_of([&] { scenario::load_scenario(scenario, {"gpu.profile=\"h100\""}); })
                .find("calibration of GPU profile 'a100' for a scenario on 'h100'"),
            std::string::npos);
  write_file("bad_fit.toml", "profile = \"a100\"\nsm_count = 100\n");
  const std::string e = error_of([&] { scenario::load_scenario(scenario, {"gpu.calibration=\"bad_fit.toml\""}); });
  EXPECT_NE(e.find("bad_fit.toml:2:1"), std::string::npos) << e;
}

TEST(KinetoCalibration, BadTracesAreLocatedErrors) {
  const std::string broken = write_file("broken.json", "{\n  \"traceEvents\": [\n    {\"ph\": \"X\",, }\n  ]\n}\n");
  EXPECT_NE(error_of([&] { read_kineto_trace(broken); }).find("broken.json:3:16: not JSON"), std::string::npos)
      << error_of([&] { read_kineto_trace(broken); });
  const std::string no_events = write_file("no_events.json", "{\"schemaVersion\": 1}");
  EXPECT_NE(error_of([&] { read_kineto_trace(no_events); }).find("no_events.json:1:1: no \"traceEvents\" list"),
            std::string::npos);
  const std::string no_dur = write_file(
      "no_dur.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
                     "\"tid\": 7, \"ts\": 1.0}]}");
  const std::string e = error_of([&] { read_kineto_trace(no_dur); });
  EXPECT_NE(e.find("no_dur.json: traceEvents[0] ('k'): no number \"dur\"; "), std::string::npos) << e;
  const std::string cpu_only = write_file(
      "cpu_only.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
                       "\"tid\": 1, \"ts\": 1.0, \"dur\": 2.0}]}");
  EXPECT_NE(error_of([&] { read_kineto_trace(cpu_only); }).find("no GPU kernel events"), std::string::npos);
  // The a100's trace fitted to a GPU of a third of its bf16 peak: GEMMs faster than that peak.
  models::GpuProfile slower = models::gpu_profile("a100");
  slower.bf16_flops /= 3;
  EXPECT_NE(error_of([&] { fit_profile(read_kineto_trace(kFixture), slower, models::Precision::bf16); })
                .find("give --gpu the GPU that was profiled"),
            std::string::npos);
  CalibrateOptions options;
  EXPECT_NE(error_of([&] { std::ostringstream out; calibrate_main({kFixture}, options, out); })
                .find("a profiler trace without --gpu"),
            std::string::npos);
}

}  // namespace
}  // namespace dtsim::calibration
