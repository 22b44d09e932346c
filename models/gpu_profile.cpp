/// Built-in GPU profiles: peak rates from NVIDIA datasheets and whitepapers (dense tensor-core rates, no
/// structured sparsity) and the fractions of them that training kernels reach.
///
/// gemm_efficiency: the fraction of peak cuBLAS reaches on a large GEMM whose tiles fill whole waves, the GEMM model's
/// ceiling (gemm_time.hpp). Bekman, "Machine Learning Engineering Open Book", compute/accelerator/README.md, "Maximum
/// Achievable Matmul FLOPS comparison table" (mamf-finder.py: the best of a sweep of bf16 torch.matmul shapes, mean of
/// 100 runs): A100 SXM 271.2 of 312 TFLOP/s (86.9 %, torch 2.6 / CUDA 12.6), H100 SXM 794.5 of 989 (80.3 %, torch
/// 2.7 / CUDA 12.6). It is measured at bf16 and used at every precision (no published fp32 or tf32 sweep). No such
/// measurement was found for the V100 or the RTX 2080 Ti: their GEMMs use compute_efficiency as the ceiling.
///
/// sm_count: the datasheets' and whitepapers' streaming multiprocessors of each board.
///
/// compute_efficiency applies to the FLOPs of layers that are not GEMMs (convolutions), and to GEMMs with
/// gemm_model = "roofline". cuBLAS reaches 70-90 % of tensor-core peak on large
/// square GEMMs (an 8192^3 bf16 product ran at about 800 of 989 TFLOP/s on an H100 SXM), but the
/// convolutions and smaller GEMMs of real layers, and their weight-gradient kernels, sit below that;
/// Megatron-LM (Narayanan et al., SC 2021) sustains 52 % of A100 peak end to end with fused kernels and
/// very wide layers. 0.55 is used for Volta, Turing and Ampere and 0.5 for Hopper, whose far higher peak
/// is harder to fill with framework-sized layers.
///
/// memory_efficiency applies to memory-bound layers (batch norm, ReLU, pooling, softmax, optimizer).
/// Streaming copies reach about 90 % of peak DRAM bandwidth (BabelStream-style kernels; about 3.0 of
/// 3.35 TB/s on an H100 SXM); framework element-wise kernels are shorter and some re-read their inputs
/// (batch-norm statistics, then normalisation), so 0.8 is used.
///
/// overlap_slowdown (kOverlapSlowdown): Lee et al., "Characterizing Compute-Communication Overlap in
/// GPU-Accelerated Distributed Deep Learning: Performance and Power Implications" (arXiv 2507.03114, 2025) run
/// GPT and LLaMA layers on 4 A100, H100, MI250 and MI210 with their collectives overlapped and measure "an
/// average computational slowdown of 18.9 %, with a maximum of 40.0 %" against the same compute alone: 1.189.
/// The same figure is used for every profile (the paper's average over vendors and GPU generations).
///
/// collective_launch_s (kCollectiveLaunch_s): NCCL's cost model (src/graph/tuning.cc, `baseLat`) charges every
/// collective call a fixed base latency before its per-step hardware latencies; for the ring with the Simple
/// protocol (what bulk gradient all-reduces use) it is 8.4 us: the kernel launch and NCCL's per-call work.
///
/// memory_bytes: the datasheet's capacity. HBM and GDDR capacities are whole numbers of binary gigabytes (four
/// 4 GiB HBM2 stacks on a V100 16GB, five 8 GiB stacks on an A100 40GB, five 16 GiB HBM3 stacks on an H100 SXM5
/// 80GB, eleven 1 GiB GDDR6 chips on an RTX 2080 Ti), so the datasheets' "GB" are GiB here. The CUDA context and
/// the allocator's reserve are not subtracted (no published figure; nvidia-smi shows a few hundred MiB less).
///
/// workspace_bytes: the cuBLAS workspace PyTorch gives each handle and stream (aten/src/ATen/cuda/
/// CublasHandlePool.cpp): CUBLAS_WORKSPACE_CONFIG ":4096:2:16:8" = 2 x 4096 KiB + 8 x 16 KiB = 8,519,680 bytes
/// before Hopper, ":4096:8" = 32 MiB on Hopper (the size the cuBLAS documentation recommends there,
/// cublasSetWorkspace).
///
/// Plausibility check, not a fit: with these defaults ResNet-50 at batch 256 in mixed precision models
/// at about 1,100 images/s on a V100 and 2,200 on an A100, the range of published single-GPU PyTorch runs.
#include "models/gpu_profile.hpp"

#include <array>

#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

constexpr double tera = 1e12;
constexpr double giga = 1e9;
constexpr double gibi = 1024.0 * 1024 * 1024;
constexpr double pre_hopper_workspace = 2 * 4096 * 1024 + 8 * 16 * 1024;
constexpr double hopper_workspace = 8 * 4096 * 1024;

GpuProfile v100() {
  GpuProfile g;
  g.name = "v100";
  g.source = "NVIDIA Tesla V100 datasheet (2020), V100 SXM2";
  g.fp32_flops = 15.7 * tera;  // "Single-Precision 15.7 teraFLOPS"
  g.fp16_flops = 125 * tera;   // "Tensor Performance 125 teraFLOPS" (fp16 inputs, fp32 accumulate)
  g.memory_Bps = 900 * giga;   // HBM2 "900 GB/sec"
  g.memory_bytes = 16 * gibi;  // "GPU Memory 32 GB/16 GB HBM2": the 16 GB board
  g.workspace_bytes = pre_hopper_workspace;
  g.sm_count = 80;  // Volta whitepaper (2017), table 1: "SMs 80" (Tesla V100)
  g.gemm_efficiency = 0.55;  // no published large-GEMM sweep: compute_efficiency
  g.compute_efficiency = 0.55;
  g.memory_efficiency = 0.8;
  return g;
}

GpuProfile a100() {
  GpuProfile g;
  g.name = "a100";
  g.source = "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 40GB SXM4";
  g.fp32_flops = 19.5 * tera;  // "FP32 19.5 TFLOPS"
  g.tf32_flops = 156 * tera;   // "Tensor Float 32 (TF32) 156 TFLOPS" (312 with sparsity)
  g.fp16_flops = 312 * tera;   // "FP16 Tensor Core 312 TFLOPS" (624 with sparsity)
  g.bf16_flops = 312 * tera;   // "BFLOAT16 Tensor Core 312 TFLOPS" (624 with sparsity)
  g.memory_Bps = 1555 * giga;  // HBM2 "1,555 GB/s" (40GB)
  g.memory_bytes = 40 * gibi;  // "GPU Memory 40GB HBM2"
  g.workspace_bytes = pre_hopper_workspace;
  g.sm_count = 108;  // NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs
  g.gemm_efficiency = 0.869;  // MAMF 271.2 of 312 TFLOP/s (this file's header)
  g.compute_efficiency = 0.55;
  g.memory_efficiency = 0.8;
  g.attention_measurements = "a100";  // FlashAttention-2 paper (models/attention_time.hpp)
  return g;
}

GpuProfile h100() {
  GpuProfile g;
  g.name = "h100";
  g.source = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 3, H100 SXM5";
  g.fp32_flops = 66.9 * tera;   // "Peak FP32 TFLOPS (non-Tensor) 66.9"
  g.tf32_flops = 494.7 * tera;  // "Peak TF32 Tensor TFLOPS 494.7" (989.4 with sparsity)
  g.fp16_flops = 989.4 * tera;  // "Peak FP16 Tensor TFLOPS with FP32 Accumulate 989.4" (1978.9 with sparsity)
  g.bf16_flops = 989.4 * tera;  // "Peak BF16 Tensor TFLOPS with FP32 Accumulate 989.4"
  g.memory_Bps = 3352 * giga;   // HBM3 "Memory Bandwidth 3352 GB/sec" (datasheet: 3.35 TB/s)
  g.memory_bytes = 80 * gibi;   // "Memory Size 80 GB" (table 3)
  g.workspace_bytes = hopper_workspace;
  g.sm_count = 132;  // H100 whitepaper (2022), table 3: "SMs 132" (H100 SXM5)
  g.gemm_efficiency = 0.803;  // MAMF 794.5 of 989 TFLOP/s
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  g.attention_measurements = "h100";  // FlashAttention-3 paper (models/attention_time.hpp)
  return g;
}

GpuProfile rtx2080ti() {
  GpuProfile g;
  g.name = "rtx2080ti";
  g.source = "NVIDIA Turing GPU Architecture whitepaper (2018), table 1, GeForce RTX 2080 Ti reference board";
  g.fp32_flops = 13.4 * tera;  // "Peak FP32 TFLOPS 13.4" (Founders Edition: 14.2)
  g.fp16_flops = 53.8 * tera;  // "Peak FP16 Tensor TFLOPS with FP32 Accumulate 53.8", as AMP uses
  g.memory_Bps = 616 * giga;   // GDDR6 "Memory Bandwidth 616 GB/sec"
  g.memory_bytes = 11 * gibi;  // "Frame Buffer Memory Size and Type 11264 MB GDDR6"
  g.workspace_bytes = pre_hopper_workspace;
  g.sm_count = 68;  // Turing whitepaper (2018), table 1: "SMs 68" (RTX 2080 Ti)
  g.gemm_efficiency = 0.55;  // no published large-GEMM sweep: compute_efficiency
  g.compute_efficiency = 0.55;
  g.memory_efficiency = 0.8;
  return g;
}

struct GpuEntry {
  std::string_view name;
  GpuProfile (*build)();
};

// The registry: the key is the name scenario files use.
constexpr GpuEntry gpus[] = {{"v100", v100}, {"a100", a100}, {"h100", h100}, {"rtx2080ti", rtx2080ti}};

constexpr std::array<Precision, 4> precisions = {Precision::fp32, Precision::tf32, Precision::fp16,
                                                 Precision::bf16};

// Peak rate at `p`, 0 when unsupported.
double rate(const GpuProfile& g, Precision p) {
  switch (p) {
    case Precision::fp32:
      return g.fp32_flops;
    case Precision::tf32:
      return g.tf32_flops;
    case Precision::fp16:
      return g.fp16_flops;
    case Precision::bf16:
      return g.bf16_flops;
  }
  DTSIM_CHECK(false, "unknown Precision value");
  return 0;
}

}  // namespace

double GpuProfile::peak_flops(Precision p) const {
  if (rate(*this, p) > 0) return rate(*this, p);
  std::vector<std::string> supported;
  for (Precision q : precisions) {
    if (rate(*this, q) > 0) supported.emplace_back(precision_name(q));
  }
  throw core::InputError("GPU '" + name + "' does not support precision " + std::string(precision_name(p)),
                         "supported: " + core::join_names(supported));
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  for (const GpuEntry& e : gpus) names.emplace_back(e.name);
  return names;
}

GpuProfile gpu_profile(std::string_view name) {
  for (const GpuEntry& e : gpus) {
    if (e.name == name) return e.build();
  }
  throw core::unknown_name("GPU", name, gpu_names());
}

Precision parse_precision(std::string_view name) {
  for (Precision p : precisions) {
    if (precision_name(p) == name) return p;
  }
  std::vector<std::string> known;
  for (Precision p : precisions) known.emplace_back(precision_name(p));
  throw core::unknown_name("precision", name, known);
}

double element_bytes(Precision p) { return p == Precision::fp16 || p == Precision::bf16 ? 2 : 4; }

std::vector<std::string> gemm_model_names() { return {"waves", "roofline"}; }

GemmModel parse_gemm_model(std::string_view name) {
  if (name == "waves") return GemmModel::waves;
  if (name == "roofline") return GemmModel::roofline;
  throw core::unknown_name("GEMM model", name, gemm_model_names());
}

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
  }
  DTSIM_CHECK(false, "unknown Precision value");
  return {};
}

}  // namespace dtsim::models
