#include "models/gpu_profile.hpp"

#include <gtest/gtest.h>

#include "input_error.hpp"

namespace dtsim::models {
namespace {

TEST(GpuProfile, NamesAreTheRegistryKeys) {
  EXPECT_EQ(gpu_names(), (std::vector<std::string>{"v100", "a100", "h100", "rtx2080ti"}));
}

TEST(GpuProfile, EveryProfileIsComplete) {
  for (const std::string& name : gpu_names()) {
    const GpuProfile g = gpu_profile(name);
    EXPECT_EQ(g.name, name);
    EXPECT_FALSE(g.source.empty()) << name;
    EXPECT_GT(g.peak_flops(Precision::fp32), 0) << name;
    EXPECT_GT(g.peak_flops(Precision::fp16), g.peak_flops(Precision::fp32)) << name;
    EXPECT_GT(g.memory_Bps, 0) << name;
    EXPECT_GT(g.compute_efficiency, 0) << name;
    EXPECT_LE(g.compute_efficiency, 1) << name;
    EXPECT_GT(g.memory_efficiency, 0) << name;
    EXPECT_LE(g.memory_efficiency, 1) << name;
  }
}

TEST(GpuProfile, DatasheetRates) {
  const GpuProfile v100 = gpu_profile("v100");
  EXPECT_EQ(v100.peak_flops(Precision::fp32), 15.7e12);
  EXPECT_EQ(v100.peak_flops(Precision::fp16), 125e12);
  EXPECT_EQ(v100.memory_Bps, 900e9);
  const GpuProfile a100 = gpu_profile("a100");
  EXPECT_EQ(a100.peak_flops(Precision::tf32), 156e12);
  EXPECT_EQ(a100.peak_flops(Precision::bf16), 312e12);
  EXPECT_EQ(a100.memory_Bps, 1555e9);
  const GpuProfile h100 = gpu_profile("h100");
  EXPECT_EQ(h100.peak_flops(Precision::fp16), 989.4e12);
  EXPECT_EQ(h100.peak_flops(Precision::tf32), 494.7e12);
  EXPECT_EQ(h100.memory_Bps, 3352e9);
  const GpuProfile rtx = gpu_profile("rtx2080ti");
  EXPECT_EQ(rtx.peak_flops(Precision::fp16), 53.8e12);
  EXPECT_EQ(rtx.memory_Bps, 616e9);
}

TEST(GpuProfile, UnsupportedPrecisionListsTheSupportedOnes) {
  EXPECT_EQ(input_error([] { gpu_profile("v100").peak_flops(Precision::tf32); }),
            "GPU 'v100' does not support precision tf32; supported: fp32, fp16");
  EXPECT_EQ(input_error([] { gpu_profile("rtx2080ti").peak_flops(Precision::bf16); }),
            "GPU 'rtx2080ti' does not support precision bf16; supported: fp32, fp16");
}

TEST(GpuProfile, UnknownGpuListsTheKnownNames) {
  EXPECT_EQ(input_error([] { gpu_profile("p100"); }),
            "unknown GPU 'p100'; did you mean 'v100', 'a100' or 'h100'? known: v100, a100, h100, rtx2080ti");
}

TEST(Precision, NamesRoundTrip) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  }
  EXPECT_EQ(precision_name(Precision::bf16), "bf16");
}

TEST(Precision, UnknownNameListsTheKnownOnes) {
  EXPECT_EQ(input_error([] { parse_precision("fp8"); }),
            "unknown precision 'fp8'; did you mean 'fp32' or 'fp16'? known: fp32, tf32, fp16, bf16");
  EXPECT_EQ(input_error([] { parse_precision("FP16"); }),
            "unknown precision 'FP16'; did you mean 'fp16'? known: fp32, tf32, fp16, bf16");
}

}  // namespace
}  // namespace dtsim::models
