#pragma once
/// GPU profiles and the roofline model that turns a layer table into per-layer compute times.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/kernel_launch.hpp"
#include "models/model.hpp"
#include "models/optimizer.hpp"

namespace dtsim::models {

/// Arithmetic precision of the training run. fp8: Transformer Engine's recipe, its Linear layers' GEMMs in fp8
/// (E4M3 forward, E5M2 gradients) and every other layer, and the tensors between layers, in bf16 (fp8_recipe.hpp).
enum class Precision { fp32, tf32, fp16, bf16, fp8 };

/// How fp8 tensors get their scales (Transformer Engine's recipes; fp8_recipe.hpp has their costs).
enum class Fp8Recipe {
  delayed,  ///< DelayedScaling: one fp32 scale per tensor from the amax history of past steps
  current,  ///< Float8CurrentScaling: one fp32 scale per tensor from its own amax (an extra read)
  mxfp8,    ///< MXFP8BlockScaling: an E8M0 scale per 32 elements (Blackwell's tensor cores apply them)
};

/// How matrix-multiply layers (Layer::gemm) are timed.
enum class GemmModel {
  waves,     ///< by shape: cuBLAS tiles in waves over the SMs at the measured large-GEMM efficiency (gemm_time.hpp)
  roofline,  ///< like every other layer: the roofline at compute_efficiency
};

/// Average compute slowdown under overlap with collectives measured on A100, H100, MI250 and MI210 (18.9 %).
inline constexpr double kOverlapSlowdown = 1.189;
/// NCCL's base latency of one ring all-reduce call with the Simple protocol, 8.4 us.
inline constexpr double kCollectiveLaunch_s = 8.4e-6;

/// Peak rates of one GPU and the fractions of them that DNN kernels reach.
struct GpuProfile {
  std::string name;
  std::string source;                 ///< datasheet the numbers come from
  double fp32_flops = 0;              ///< flop/s
  double tf32_flops = 0;              ///< flop/s, 0 if unsupported
  double fp16_flops = 0;              ///< flop/s (tensor cores, dense)
  double bf16_flops = 0;              ///< flop/s, 0 if unsupported
  double fp8_flops = 0;               ///< flop/s (tensor cores, dense, fp32 accumulate), 0 if unsupported
  /// flop/s of dense fp4 tensor cores (Blackwell's NVFP4/MXFP4), 0 if unsupported: listed (`dtsim list gpus`), not a
  /// training precision dtsim models
  double fp4_flops = 0;
  /// Fifth-generation tensor cores (Blackwell) run block-scaled MXFP8 GEMMs: gpu.fp8_recipe = "mxfp8"
  bool mxfp8 = false;
  double memory_Bps = 0;              ///< HBM/GDDR bandwidth, bytes/s
  double memory_bytes = 0;            ///< device memory capacity, bytes
  double workspace_bytes = 0;         ///< cuBLAS workspace PyTorch allocates per handle and stream, bytes
  int sm_count = 0;                   ///< streaming multiprocessors (datasheet): the GEMM model's wave size
  double compute_efficiency = 0;      ///< achieved / peak flop/s for dense layers that are not GEMMs (convolutions)
  /// achieved / peak flop/s of a large GEMM that fills whole waves with whole tiles (measured; gemm_time.hpp)
  double gemm_efficiency = 0;
  /// the same at fp8 (measured with float8_e4m3fn inputs); 0: gemm_efficiency
  double fp8_gemm_efficiency = 0;
  GemmModel gemm_model = GemmModel::waves;  ///< how matrix-multiply layers are timed
  double memory_efficiency = 0;       ///< achieved / peak bandwidth for memory-bound layers
  /// Compute runs this many times slower while the GPU's collective runs beside it (SMs and memory bandwidth
  /// taken by the communication kernels); 1 = no interference. Default: gpu_profile.cpp.
  double overlap_slowdown = kOverlapSlowdown;
  /// Fixed cost of starting one collective call (kernel launch, NCCL's per-call setup) before its first
  /// message; hidden behind the collective running before it on the stream. Absent: kCollectiveLaunch_s, or 0
  /// with a collective whose calls already pay NCCL's base latency (Collective::charges_launch).
  std::optional<double> collective_launch_s;
  // ---- per-kernel time model (models/kernel_launch.hpp, attention_time.hpp, layer_times.cpp) ----
  /// How the framework issues kernels: the GPU gap and CPU dispatch each kernel costs ([gpu] launch).
  LaunchMode launch = LaunchMode::eager;
  /// Whose FlashAttention measurements apply ("a100", "h100"); empty where none is published: the fallback rule
  /// of models/attention_time.hpp.
  std::string attention_measurements;
  /// Measured over modelled FlashAttention throughput, 1 for the papers' figures (a fit of `dtsim calibrate`).
  double attention_scale = 1;
  /// The GPU gap and CPU dispatch per kernel when measured (`dtsim calibrate`); absent: `launch`'s.
  std::optional<double> launch_gap_s;
  std::optional<double> launch_dispatch_s;
  // ---- end per-kernel time model ----
  /// The per-kernel launch costs: `launch`'s, with the measured gap and dispatch where given.
  LaunchCosts kernel_launch_costs() const;
  /// Peak flop/s at `p`; throws core::InputError when the GPU does not support it.
  double peak_flops(Precision p) const;
  /// The flop/s a large GEMM reaches at `p`: peak_flops(p) x the GEMM efficiency at `p`.
  double gemm_flops(Precision p) const;
};

/// Per-layer compute times for one iteration at a given per-GPU batch.
struct LayerTime {
  double forward_s = 0;
  double backward_s = 0;
  double update_s = 0;  ///< optimizer step for this layer's parameters (memory-bound)
};

/// Roofline: time = max(flops / (peak * compute_efficiency), bytes / (memory_Bps * memory_efficiency)), the bytes
/// counted Layer::passes times; backward costs Layer::backward_ratio times the forward (twice its flops and memory
/// traffic; fused attention 2.5). Matrix multiplies (Layer::gemm) under GemmModel::waves: gemm_time_s of the forward
/// product and, for backward, of the two products of the input and weight gradients (m x k over n, k x n over m).
/// Fused attention (Kernel::flash_attention2/3) from its measured throughput (attention_time.hpp). Each layer's
/// kernels (one per GEMM, three for FlashAttention's backward, `passes` for the others) then run on one stream fed
/// by one CPU thread in program order, forward then backward in reverse, paying gpu.launch's gap and CPU dispatch
/// per kernel (kernel_launch.hpp): a layer's time is how much later the stream finishes with it.
/// Layers with `measured` use those times. The optimizer step moves `optimizer`'s bytes per parameter (and 6 more
/// under fp16/bf16: the fp32 master weights copied to the model weights) in fused multi-tensor kernels.
/// `tensor` > 1: the GEMMs are timed at one GPU's share under Megatron-LM's tensor parallelism (column: n / tensor,
/// row: k / tensor, sharded heads: count / tensor, rounded up), and a split GEMM's times are `tensor` times its
/// share's (the whole group's GPU time, which the parallel workload divides by the group size).
/// When `measured_iteration_s` is set, every roofline time is scaled so that forward + backward + update
/// of one GPU equals it (calibration to a measured single-GPU iteration).
/// p = fp8: the layers that runs_in_fp8 (fp8_recipe.hpp) run their GEMMs at the fp8 peak and add `fp8_recipe`'s
/// quantization kernels (fp8_cast_bytes) at memory_Bps x memory_efficiency; every other layer runs at bf16.
std::vector<LayerTime> layer_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu, Precision p,
                                   std::optional<double> measured_iteration_s = std::nullopt,
                                   const Optimizer& optimizer = models::optimizer("momentum"), int tensor = 1,
                                   Fp8Recipe fp8_recipe = Fp8Recipe::delayed);

/// Names of the built-in GPU profiles (registry keys: "v100", "a100", "h100", "h200", "h800", "b200", "gb200",
/// "mi300x", "rtx2080ti").
std::vector<std::string> gpu_names();
/// The built-in profile called `name`; throws core::InputError listing the known names.
GpuProfile gpu_profile(std::string_view name);
/// Parses "fp32" | "tf32" | "fp16" | "bf16" | "fp8"; throws core::InputError.
Precision parse_precision(std::string_view name);
/// Names of the precisions, as written in scenario files.
std::vector<std::string> precision_names();
/// Name of a precision, as written in scenario files.
std::string_view precision_name(Precision p);
/// Bytes of one activation or weight element at `p` (2 at fp16, bf16 and fp8, whose layers exchange bf16 tensors;
/// else 4).
double element_bytes(Precision p);
/// The precision of the layers that are not GEMMs (and of GEMMs outside Transformer Engine's Linear layers): bf16
/// under fp8, else `p`.
Precision non_gemm_precision(Precision p);
/// Names of the GEMM models ("waves", "roofline").
std::vector<std::string> gemm_model_names();
/// Parses a GEMM model name; throws core::InputError listing the known ones.
GemmModel parse_gemm_model(std::string_view name);

}  // namespace dtsim::models
