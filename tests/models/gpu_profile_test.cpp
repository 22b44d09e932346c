#include "models/gpu_profile.hpp"

#include <gtest/gtest.h>

#include "input_error.hpp"

namespace dtsim::models {
namespace {

TEST(GpuProfile, NamesAreTheRegistryKeys) {
  EXPECT_EQ(gpu_names(), (std::vector<std::string>{"v100", "a100", "h100", "h200", "h800", "b200", "gb200", "mi300x",
                                                   "rtx2080ti"}));
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

TEST(GpuProfile, NewProfilesCarryTheirDatasheetsDenseRates) {
  const GpuProfile h200 = gpu_profile("h200");  // H200 SXM datasheet, sparse figures halved
  EXPECT_EQ(h200.peak_flops(Precision::bf16), 989.5e12);
  EXPECT_EQ(h200.peak_flops(Precision::fp8), 1979e12);
  EXPECT_EQ(h200.memory_Bps, 4800e9);
  EXPECT_EQ(h200.memory_bytes, 141.0 * (1 << 30));
  EXPECT_EQ(h200.sm_count, 132);
  const GpuProfile h800 = gpu_profile("h800");
  EXPECT_EQ(h800.peak_flops(Precision::fp8), 1979e12);
  EXPECT_EQ(h800.memory_Bps, 3350e9);
  EXPECT_EQ(h800.memory_bytes, 80.0 * (1 << 30));
  const GpuProfile b200 = gpu_profile("b200");  // HGX B200 / 8, sparse halved
  EXPECT_EQ(b200.peak_flops(Precision::tf32), 1.125e15);
  EXPECT_EQ(b200.peak_flops(Precision::bf16), 2.25e15);
  EXPECT_EQ(b200.peak_flops(Precision::fp8), 4.5e15);
  EXPECT_EQ(b200.fp4_flops, 9e15);
  EXPECT_EQ(b200.memory_Bps, 8000e9);
  EXPECT_EQ(b200.memory_bytes, 180.0 * (1 << 30));
  EXPECT_EQ(b200.sm_count, 148);
  EXPECT_TRUE(b200.mxfp8);
  const GpuProfile gb200 = gpu_profile("gb200");  // GB200 NVL72 / 72, sparse halved
  EXPECT_EQ(gb200.peak_flops(Precision::bf16), 2.5e15);
  EXPECT_EQ(gb200.peak_flops(Precision::fp8), 5e15);
  EXPECT_EQ(gb200.fp4_flops, 10e15);
  EXPECT_EQ(gb200.memory_bytes, 186.0 * (1 << 30));
  EXPECT_EQ(gb200.sm_count, 152);
  EXPECT_TRUE(gb200.mxfp8);
  const GpuProfile mi300x = gpu_profile("mi300x");  // MI300X data sheet, dense
  EXPECT_EQ(mi300x.peak_flops(Precision::fp32), 163.4e12);
  EXPECT_EQ(mi300x.peak_flops(Precision::bf16), 1307.4e12);
  EXPECT_EQ(mi300x.peak_flops(Precision::fp8), 2614.9e12);
  EXPECT_EQ(mi300x.fp4_flops, 0);
  EXPECT_EQ(mi300x.memory_Bps, 5300e9);
  EXPECT_EQ(mi300x.memory_bytes, 192.0 * (1 << 30));
  EXPECT_EQ(mi300x.sm_count, 304);
  EXPECT_FALSE(mi300x.mxfp8);
  EXPECT_EQ(gpu_profile("h100").peak_flops(Precision::fp8), 1978.9e12);
}

TEST(GpuProfile, GemmFlopsUseTheMeasuredEfficiencyOfTheirPrecision) {
  const GpuProfile h100 = gpu_profile("h100");
  EXPECT_DOUBLE_EQ(h100.gemm_flops(Precision::bf16), 989.4e12 * 0.7728);  // MSMF, sustained
  EXPECT_DOUBLE_EQ(h100.gemm_flops(Precision::fp8), 1978.9e12 * 0.683);  // MSMF fp8, sustained
  const GpuProfile mi300x = gpu_profile("mi300x");                       // no fp8 measurement: the bf16 one
  EXPECT_DOUBLE_EQ(mi300x.gemm_flops(Precision::fp8), 2614.9e12 * 0.514);
}

TEST(GpuProfile, Fp8IsRefusedBeforeHopper) {
  EXPECT_EQ(input_error([] { gpu_profile("a100").peak_flops(Precision::fp8); }),
            "GPU 'a100' does not support precision fp8; supported: fp32, tf32, fp16, bf16");
}

TEST(GpuProfile, UnsupportedPrecisionListsTheSupportedOnes) {
  EXPECT_EQ(input_error([] { gpu_profile("v100").peak_flops(Precision::tf32); }),
            "GPU 'v100' does not support precision tf32; supported: fp32, fp16");
  EXPECT_EQ(input_error([] { gpu_profile("rtx2080ti").peak_flops(Precision::bf16); }),
            "GPU 'rtx2080ti' does not support precision bf16; supported: fp32, fp16");
}

TEST(GpuProfile, UnknownGpuListsTheKnownNames) {
  EXPECT_EQ(input_error([] { gpu_profile("p100"); }),
            "unknown GPU 'p100'; did you mean 'v100', 'a100' or 'h100'? known: v100, a100, h100, h200, h800, b200, "
            "gb200, mi300x, rtx2080ti");
}

TEST(Precision, NamesRoundTrip) {
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::fp8}) {
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  }
  EXPECT_EQ(precision_name(Precision::bf16), "bf16");
}

TEST(Precision, UnknownNameListsTheKnownOnes) {
  EXPECT_EQ(input_error([] { parse_precision("fp4"); }),
            "unknown precision 'fp4'; did you mean 'fp8'? known: fp32, tf32, fp16, bf16, fp8");
  EXPECT_EQ(input_error([] { parse_precision("FP16"); }),
            "unknown precision 'FP16'; did you mean 'fp16'? known: fp32, tf32, fp16, bf16, fp8");
  EXPECT_EQ(element_bytes(Precision::fp8), 2);  // Transformer Engine's layers exchange bf16
  EXPECT_EQ(non_gemm_precision(Precision::fp8), Precision::bf16);
  EXPECT_EQ(non_gemm_precision(Precision::fp16), Precision::fp16);
}

}  // namespace
}  // namespace dtsim::models
