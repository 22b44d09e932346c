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

/// Arithmetic precision of the training run.
enum class Precision { fp32, tf32, fp16, bf16 };

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
  double memory_Bps = 0;              ///< HBM/GDDR bandwidth, bytes/s
  double memory_bytes = 0;            ///< device memory capacity, bytes
  double workspace_bytes = 0;         ///< cuBLAS workspace PyTorch allocates per handle and stream, bytes
  int sm_count = 0;                   ///< streaming multiprocessors (datasheet): the GEMM model's wave size
  double compute_efficiency = 0;      ///< achieved / peak flop/s for dense layers that are not GEMMs (convolutions)
  /// achieved / peak flop/s of a large GEMM that fills whole waves with whole tiles (measured; gemm_time.hpp)
  double gemm_efficiency = 0;
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
  // ---- end per-kernel time model ----
  /// Peak flop/s at `p`; throws core::InputError when the GPU does not support it.
  double peak_flops(Precision p) const;
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
std::vector<LayerTime> layer_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu, Precision p,
                                   std::optional<double> measured_iteration_s = std::nullopt,
                                   const Optimizer& optimizer = models::optimizer("momentum"), int tensor = 1);

/// Names of the built-in GPU profiles (registry keys: "v100", "a100", "h100", "rtx2080ti").
std::vector<std::string> gpu_names();
/// The built-in profile called `name`; throws core::InputError listing the known names.
GpuProfile gpu_profile(std::string_view name);
/// Parses "fp32" | "tf32" | "fp16" | "bf16"; throws core::InputError.
Precision parse_precision(std::string_view name);
/// Name of a precision, as written in scenario files.
std::string_view precision_name(Precision p);
/// Bytes of one activation or weight element at `p` (2 at fp16/bf16, else 4).
double element_bytes(Precision p);
/// Names of the GEMM models ("waves", "roofline").
std::vector<std::string> gemm_model_names();
/// Parses a GEMM model name; throws core::InputError listing the known ones.
GemmModel parse_gemm_model(std::string_view name);

}  // namespace dtsim::models
