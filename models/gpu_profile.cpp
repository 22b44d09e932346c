/// Built-in GPU profiles: peak rates from NVIDIA datasheets and whitepapers (dense tensor-core rates, no
/// structured sparsity) and the fractions of them that training kernels reach.
///
/// gemm_efficiency: the fraction of peak cuBLAS sustains on a large GEMM whose tiles fill whole waves under the full,
/// continuous load of training, the GEMM model's ceiling (gemm_time.hpp). A short burst after idle runs at the boost
/// clock; under load a GPU settles at the clock its power limit allows (NVIDIA GPU Boost), and random-valued operands
/// draw the most power (Horace He, "Strangely, Matrix Multiplications on GPUs Run Faster When Given 'Predictable'
/// Data!", thonking.ai, 2024: an A100's cuBLAS 8192^3 bf16 product, 295 TFLOP/s on zeros, 257 on torch.randn).
/// Each sustained figure below is a measured shape, and the efficiency is the one with which gemm_time_s reproduces
/// it (tests/models/gemm_time_test.cpp, SustainedCeilingsReproduceTheirCitedKernelFigures):
/// - Hopper (H100, H200, H800: one GH100 at 700 W): Bekman, "Machine Learning Engineering Open Book",
///   compute/accelerator/benchmarks/README.md, "How MAMF and MSMF are defined": the maximum sustainable matmul FLOPS
///   (MSMF: the rate a shape holds over a timed window after the clock has settled under full load) of an H200 SXM
///   in bf16, 743-746 TFLOP/s in five runs, against 843-850 for the boost-clock burst (MAMF); the shape named there,
///   2816 x 1536 over k = 6144 (one wave of 132 256 x 128 tiles), sustains 749 TFLOP/s at 1879 MHz and 685 W:
///   0.7728 of 989.4 TFLOP/s with the pipeline fill. The same README's table notes "H200 is the same" compute as the
///   H100. Before this, the table's burst-era figure (H100 SXM 794.5 TFLOP/s, a mean of 100 back-to-back iterations
///   of one best shape, 80.3 %) was used: 4 % faster than the sustained rate.
/// - A100: He's 257 TFLOP/s on torch.randn operands, 8192 x 8192 over 8192 (19 waves of 256 x 128 tiles on 108 SMs):
///   0.8382 of 312 TFLOP/s with the waves and the fill (the MAMF table's best burst shape, 1024 x 10240 x 5120, gave
///   271.2 TFLOP/s, 86.9 %).
/// - Others, no sustained measurement: the MAMF table's burst figure (mamf-finder.py: the best of a sweep of bf16
///   torch.matmul shapes, mean of 100 runs): B200 SXM 1745.0 of 2250 TFLOP/s (77.6 %, torch 2.7.1 / CUDA 12.8; the
///   README's MSMF for a B200 is 1421-1428, without its shape), GB200 1822.0 of 2500 (72.9 %, torch 2.10 nightly /
///   CUDA 13.0), MI300X 668.4 of 1300 (51.4 %, torch 2.5.1 / ROCm 6.3, PYTORCH_TUNABLEOP_ENABLED=1): optimistic by
///   the clock a burst keeps (about 12 % on a B200 by the README's own pair).
/// It is measured at bf16 and used at every precision but fp8 (no published fp32 or tf32 sweep). fp8_gemm_efficiency,
/// float8_e4m3fn: Hopper from the same README's MSMF runs on an H200, where 1536 x 2816 (one wave of 132 tiles)
/// sustains 1335-1372 TFLOP/s at k = 10240 and the published MSMF comes out "about 1330" to "about 1337": 1335 at
/// that shape gives 0.683 of 1979 TFLOP/s with the fill (the MAMF table's bursts were H100 1402.6, 70.9 %, and H200
/// 1453.4, 73.4 %). B200 3432.5 of 4500 (76.3 %) and GB200 3615.6 of 5000 (72.3 %) are the MAMF table's bursts; the
/// MI300X row is empty, so its fp8 GEMMs use the bf16 figure. The H800 (an H100 SXM5 with fewer NVLinks and little
/// FP64) has no row: the H100's figures. No such measurement was found for the V100 or the RTX 2080 Ti: their GEMMs
/// use compute_efficiency as the ceiling.
///
/// sm_count: the datasheets' and whitepapers' streaming multiprocessors of each board. NVIDIA publishes none for
/// Blackwell: B200 148 and GB200 152 are the cudaDeviceProp::multiProcessorCount CUDA reports on them, as public
/// kernel code and benchmark notes quote it ("B200: 148 SMs", "GB200: 152 SMs"). The MI300X's 304
/// compute units (AMD Instinct MI300X data sheet) stand for SMs: hipBLASLt, like cuBLAS, runs one macro tile per CU.
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
/// 80GB, eight 24 GiB HBM3 stacks on an MI300X, eleven 1 GiB GDDR6 chips on an RTX 2080 Ti), so the datasheets' "GB"
/// are GiB here; H200 141, B200 180 and GB200 186 are the usable parts of six and eight 24 GiB HBM3e stacks. The CUDA context and
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
constexpr double peta = 1e15;
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
  g.gemm_efficiency = 0.8382;  // 257 TFLOP/s sustained on random operands, 8192^3 (this file's header)
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
  g.fp8_flops = 1978.9 * tera;  // "Peak FP8 Tensor TFLOPS with FP32 Accumulate 1978.9" (3957.8 with sparsity)
  g.memory_Bps = 3352 * giga;   // HBM3 "Memory Bandwidth 3352 GB/sec" (datasheet: 3.35 TB/s)
  g.memory_bytes = 80 * gibi;   // "Memory Size 80 GB" (table 3)
  g.workspace_bytes = hopper_workspace;
  g.sm_count = 132;  // H100 whitepaper (2022), table 3: "SMs 132" (H100 SXM5)
  g.gemm_efficiency = 0.7728;  // MSMF: 749 TFLOP/s sustained at 2816 x 1536 x 6144 (this file's header)
  g.fp8_gemm_efficiency = 0.683;  // MSMF fp8: 1335 TFLOP/s sustained at 1536 x 2816 x 10240 (header)
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  g.attention_measurements = "h100";  // FlashAttention-3 paper (models/attention_time.hpp)
  return g;
}

GpuProfile h200() {
  GpuProfile g;
  g.name = "h200";
  g.source = "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM; dense rates are half the sparse ones it lists";
  g.fp32_flops = 67 * tera;     // "FP32 67 TFLOPS"
  g.tf32_flops = 494.5 * tera;  // "TF32 Tensor Core 989 TFLOPS" with sparsity
  g.fp16_flops = 989.5 * tera;  // "FP16 Tensor Core 1,979 TFLOPS" with sparsity
  g.bf16_flops = 989.5 * tera;  // "BFLOAT16 Tensor Core 1,979 TFLOPS" with sparsity
  g.fp8_flops = 1979 * tera;    // "FP8 Tensor Core 3,958 TFLOPS" with sparsity
  g.memory_Bps = 4800 * giga;   // "GPU Memory Bandwidth 4.8TB/s"
  g.memory_bytes = 141 * gibi;  // "GPU Memory 141GB" HBM3e
  g.workspace_bytes = hopper_workspace;
  g.sm_count = 132;  // the H100 SXM5's GH100 (H100 whitepaper, table 3), with HBM3e
  g.gemm_efficiency = 0.7728;     // MSMF, measured on an H200 (this file's header)
  g.fp8_gemm_efficiency = 0.683;  // MSMF fp8, measured on an H200 (this file's header)
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  return g;
}

GpuProfile h800() {
  GpuProfile g;
  g.name = "h800";
  g.source = "NVIDIA H800 Tensor Core GPU datasheet (2023), H800 SXM5; dense rates are half the sparse ones it lists";
  g.fp32_flops = 67 * tera;     // "FP32 67 teraFLOPS"
  g.tf32_flops = 494.5 * tera;  // "TF32 Tensor Core 989 teraFLOPS" with sparsity
  g.fp16_flops = 989.5 * tera;  // "FP16 Tensor Core 1,979 teraFLOPS" with sparsity
  g.bf16_flops = 989.5 * tera;  // "BFLOAT16 Tensor Core 1,979 teraFLOPS" with sparsity
  g.fp8_flops = 1979 * tera;    // "FP8 Tensor Core 3,958 teraFLOPS" with sparsity
  g.memory_Bps = 3350 * giga;   // "GPU memory bandwidth 3.35TB/s"
  g.memory_bytes = 80 * gibi;   // "GPU memory 80GB" HBM3
  g.workspace_bytes = hopper_workspace;
  g.sm_count = 132;  // the H100 SXM5's GH100 (H100 whitepaper, table 3); the H800 differs in NVLink and FP64
  g.gemm_efficiency = 0.7728;     // the H100's (same silicon, clocks and 700 W)
  g.fp8_gemm_efficiency = 0.683;  // the H100's
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  return g;
}

GpuProfile b200() {
  GpuProfile g;
  g.name = "b200";
  g.source = "NVIDIA HGX B200 datasheet (2024), per GPU (the 8-GPU board's rates / 8, dense: half the sparse ones); "
             "DGX B200 datasheet for memory";
  g.fp32_flops = 75 * tera;       // "FP32 600 TFLOPS" / 8
  g.tf32_flops = 1.125 * peta;    // "TF32 Tensor Core 18 PFLOPS" with sparsity / 8 / 2
  g.fp16_flops = 2.25 * peta;     // "FP16/BF16 Tensor Core 36 PFLOPS" with sparsity / 8 / 2
  g.bf16_flops = 2.25 * peta;
  g.fp8_flops = 4.5 * peta;       // "FP8 Tensor Core 72 PFLOPS" with sparsity / 8 / 2
  g.fp4_flops = 9 * peta;         // "FP4 Tensor Core 144 PFLOPS" with sparsity / 8 / 2
  g.mxfp8 = true;                 // Blackwell architecture technical brief: microscaling formats (MXFP8, MXFP6, MXFP4)
  g.memory_Bps = 8000 * giga;     // DGX B200: "64TB/s HBM3e bandwidth" / 8
  g.memory_bytes = 180 * gibi;    // DGX B200: "1,440GB total GPU memory" / 8
  g.workspace_bytes = hopper_workspace;
  g.sm_count = 148;  // cudaDeviceProp::multiProcessorCount (this file's header)
  g.gemm_efficiency = 0.776;      // MAMF 1745.0 of 2250 TFLOP/s
  g.fp8_gemm_efficiency = 0.763;  // MAMF fp8 3432.5 of 4500 TFLOP/s
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  return g;
}

GpuProfile gb200() {
  GpuProfile g;
  g.name = "gb200";
  g.source = "NVIDIA GB200 NVL72 datasheet (2024), per GPU (the rack's 72 GPUs' rates / 72, dense: half the sparse "
             "ones)";
  g.fp32_flops = 80 * tera;       // "FP32 5,760 TFLOPS" / 72
  g.tf32_flops = 1.25 * peta;     // "TF32 Tensor Core 180 PFLOPS" with sparsity / 72 / 2
  g.fp16_flops = 2.5 * peta;      // "FP16/BF16 Tensor Core 360 PFLOPS" with sparsity / 72 / 2
  g.bf16_flops = 2.5 * peta;
  g.fp8_flops = 5 * peta;         // "FP8/FP6 Tensor Core 720 PFLOPS" with sparsity / 72 / 2
  g.fp4_flops = 10 * peta;        // "FP4 Tensor Core 1,440 PFLOPS" with sparsity / 72 / 2
  g.mxfp8 = true;                 // Blackwell: microscaling formats, as the B200
  g.memory_Bps = 8000 * giga;     // "HBM3e ... 576TB/s" / 72
  g.memory_bytes = 186 * gibi;    // "Up to 13.4TB" HBM3e / 72
  g.workspace_bytes = hopper_workspace;
  g.sm_count = 152;  // cudaDeviceProp::multiProcessorCount (this file's header)
  g.gemm_efficiency = 0.729;      // MAMF 1822.0 of 2500 TFLOP/s
  g.fp8_gemm_efficiency = 0.723;  // MAMF fp8 3615.6 of 5000 TFLOP/s
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
  return g;
}

GpuProfile mi300x() {
  GpuProfile g;
  g.name = "mi300x";
  g.source = "AMD Instinct MI300X data sheet (2023), OAM module, dense rates";
  g.fp32_flops = 163.4 * tera;   // "Peak Single Precision (FP32) Vector 163.4 TFLOPs"
  g.tf32_flops = 653.7 * tera;   // "Peak TF32 Performance 653.7 TFLOPs" (1307.4 with sparsity)
  g.fp16_flops = 1307.4 * tera;  // "Peak Half Precision (FP16) Performance 1307.4 TFLOPs"
  g.bf16_flops = 1307.4 * tera;  // "Peak Bfloat16 Performance 1307.4 TFLOPs"
  g.fp8_flops = 2614.9 * tera;   // "Peak Eight-bit Precision (FP8) Performance 2614.9 TFLOPs" (E4M3 and E5M2)
  g.memory_Bps = 5300 * giga;    // "Peak Theoretical Memory Bandwidth 5.3 TB/s"
  g.memory_bytes = 192 * gibi;   // "Dedicated Memory Size 192 GB" HBM3
  g.workspace_bytes = hopper_workspace;  // no ROCm figure at hand: the Hopper one
  g.sm_count = 304;  // "Compute Units 304"
  g.gemm_efficiency = 0.514;  // MAMF 668.4 of 1300 TFLOP/s; no fp8 row: used at fp8 too
  g.compute_efficiency = 0.5;
  g.memory_efficiency = 0.8;
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
constexpr GpuEntry gpus[] = {{"v100", v100}, {"a100", a100},   {"h100", h100},     {"h200", h200},
                             {"h800", h800}, {"b200", b200},   {"gb200", gb200},   {"mi300x", mi300x},
                             {"rtx2080ti", rtx2080ti}};

constexpr std::array<Precision, 5> precisions = {Precision::fp32, Precision::tf32, Precision::fp16,
                                                 Precision::bf16, Precision::fp8};

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
    case Precision::fp8:
      return g.fp8_flops;
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

double GpuProfile::gemm_flops(Precision p) const {
  const double efficiency = p == Precision::fp8 && fp8_gemm_efficiency > 0 ? fp8_gemm_efficiency : gemm_efficiency;
  return peak_flops(p) * efficiency;
}

LaunchCosts GpuProfile::kernel_launch_costs() const {
  LaunchCosts costs = launch_costs(launch);
  costs.gap_s = launch_gap_s.value_or(costs.gap_s);
  costs.dispatch_s = launch_dispatch_s.value_or(costs.dispatch_s);
  return costs;
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
  throw core::unknown_name("precision", name, precision_names());
}

std::vector<std::string> precision_names() {
  std::vector<std::string> names;
  for (Precision p : precisions) names.emplace_back(precision_name(p));
  return names;
}

double element_bytes(Precision p) { return p == Precision::fp32 || p == Precision::tf32 ? 4 : 2; }

Precision non_gemm_precision(Precision p) { return p == Precision::fp8 ? Precision::bf16 : p; }

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
    case Precision::fp8:
      return "fp8";
  }
  DTSIM_CHECK(false, "unknown Precision value");
  return {};
}

}  // namespace dtsim::models
