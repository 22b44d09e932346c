// CPU/GPU parity of every kernel set: the CUDA build's wire bytes, error-feedback state and expansions equal
// the CPU launcher's bit for bit. Skips, saying why, where no CUDA device is present.
#include <gtest/gtest.h>

#include <cstring>

#include "compressors/device/device_compressor.hpp"
#include "compressors/device/registry.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/device/device_test_data.hpp"

namespace dtsim::compressors::device {
namespace {

#define DTSIM_SKIP_WITHOUT_CUDA()                                                   \
  if (const std::string why = cuda_unavailable(); !why.empty()) GTEST_SKIP() << why

// The options each compressor is compared under (its defaults, and a second selection for the sparsifiers).
std::vector<Options> option_sets(std::string_view name) {
  if (name == "topk") return {{}, {{"ratio", 0.001}}, {{"ratio", 1.0}}};
  if (name == "threshold") return {{}, {{"threshold", 1.0}}};
  if (name == "natural") return {{}, {{"seed", std::int64_t{7}}}};
  if (name == "terngrad") return {{}, {{"clip", 0.0}, {"seed", std::int64_t{7}}}};
  if (name == "qsgd") return {{}, {{"levels", std::int64_t{1000}}, {"bucket_size", std::int64_t{7}}}};
  if (name == "dgc") return {{}, {{"ratio", 0.05}, {"warmup_epochs", std::int64_t{2}}, {"lower", 0.99}}};
  if (name == "sidco")
    return {{}, {{"distribution", std::string("gpareto")}, {"ratio", 0.01}}, {{"distribution", std::string("gamma")}}};
  if (name == "randomk") return {{}, {{"ratio", 0.5}, {"rescale", true}}};
  if (name == "signum") return {{}, {{"momentum", 0.5}}};
  if (name == "gaussiank" || name == "stc" || name == "sbc" || name == "gspar") return {{}, {{"ratio", 0.3}}};
  if (name == "srq") return {{}, {{"levels", std::int64_t{65536}}, {"seed", std::int64_t{7}}}};
  if (name == "ecqsgd") return {{}, {{"levels", std::int64_t{1000}}, {"norm", std::string("linf")}, {"alpha", 0.5}}};
  if (name == "powersgd") return {{}, {{"rank", std::int64_t{4}}, {"warm_start", false}}};
  if (name == "variance_based") return {{}, {{"density", 0.5}}};
  if (name == "fixed_proportion") return {{}, {{"proportion", 0.3}}};
  if (name == "polar") return {{}, {{"block", std::int64_t{64}}, {"rate", 0.3}, {"design", std::string("ku")}}};
  return {{}};
}

TEST(CudaParity, EveryKernelSetGivesTheCpuLaunchersBytes) {
  DTSIM_SKIP_WITHOUT_CUDA();
  for (const KernelEntry& entry : cpu_kernels()) {
    for (const Options& options : option_sets(entry.name)) {
      for (const char* feedback : {"none", "residual"}) {
        auto cpu = make_device_compressor("cpu", entry.name, options, feedback);
        auto gpu = make_device_compressor("cuda", entry.name, options, feedback);
        for (const std::size_t n : testing::kDeviceSizes) {
          const auto xs = testing::device_inputs(n, 3 * n);
          for (std::size_t k = 0; k < xs.size(); ++k) {
            SCOPED_TRACE(std::string(entry.name) + " " + feedback + " n=" + std::to_string(n) + " input " +
                         std::to_string(k));
            testing::expect_same_exchange(*cpu, *gpu, xs[k], n);
          }
        }
      }
    }
  }
}

TEST(CudaParity, OneBitColumnsGiveTheCpuLaunchersBytes) {
  DTSIM_SKIP_WITHOUT_CUDA();
  auto cpu = make_device_compressor("cpu", "onebit", {});
  auto gpu = make_device_compressor("cuda", "onebit", {});
  cpu->set_shape(1, 17, 241);
  gpu->set_shape(1, 17, 241);
  for (const auto& x : testing::device_inputs(17 * 241, 11)) testing::expect_same_exchange(*cpu, *gpu, x, 1);
}

TEST(CudaParity, PowerSgdOfADeclaredShapeGivesTheCpuLaunchersBytes) {
  DTSIM_SKIP_WITHOUT_CUDA();
  for (const char* feedback : {"none", "residual"}) {
    auto cpu = make_device_compressor("cpu", "powersgd", {{"rank", std::int64_t{2}}}, feedback);
    auto gpu = make_device_compressor("cuda", "powersgd", {{"rank", std::int64_t{2}}}, feedback);
    cpu->set_shape(1, 300, 97);
    gpu->set_shape(1, 300, 97);
    for (int step = 0; step < 3; ++step)
      for (const auto& x : testing::device_inputs(300 * 97, 11 + step)) testing::expect_same_exchange(*cpu, *gpu, x, 1);
  }
}

TEST(CudaParity, CudaTableHasEveryKernelSet) {
  DTSIM_SKIP_WITHOUT_CUDA();
  const auto cpu = cpu_kernels(), cuda = cuda_kernels();
  ASSERT_EQ(cpu.size(), cuda.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) EXPECT_EQ(cpu[i].name, cuda[i].name);
}

TEST(CudaParity, TooMuchDeviceMemoryIsAClearError) {
  DTSIM_SKIP_WITHOUT_CUDA();
  auto device = make_device("cuda");
  try {
    device->allocate(std::size_t{1} << 50);  // 1 PiB
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(e.problem().find("MiB free"), std::string::npos) << e.problem();
    EXPECT_NE(e.allowed().find("device = \"cpu\""), std::string::npos);
  }
}

}  // namespace
}  // namespace dtsim::compressors::device
