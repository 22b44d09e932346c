#pragma once
/// Transformer Engine's fp8 training recipes (NVIDIA Transformer Engine, transformer_engine.common.recipe:
/// DelayedScaling, Float8CurrentScaling, MXFP8BlockScaling; "Using FP8 with Transformer Engine" and the "FP8 Delayed
/// Scaling" / "FP8 Current Scaling" pages of its user guide): what each adds to a Linear layer's GEMMs, as memory-bound
/// element-wise kernels, and what it keeps per parameter.
///
/// A Linear layer Y = X W (X: m x k, W: k x n) runs three fp8 GEMMs: forward X W (E4M3 X and W), input gradient
/// dY W^T and weight gradient X^T dY (E5M2 dY: Format.HYBRID, TE's default). Before them TE quantizes X and W in
/// forward and dY in backward. A tensor used in two GEMMs is needed in both layouts: Hopper's fp8 tensor cores take
/// only the "TN" layout, so TE's cast_transpose writes the fp8 tensor and its transpose in one pass; MXFP8's scales run
/// along the reduction dimension, so it quantizes rows and columns separately (each with one E8M0 scale per 32
/// elements). Per quantized element, from its bf16 input:
///
///   delayed: read 2 B, write 2 x 1 B                   = 4 B   (scale from the amax history: one read of the tensor)
///   current: read 2 B (amax), read 2 B, write 2 x 1 B  = 6 B   ("two tensor reads per quantization")
///   mxfp8:   read 2 B, write 2 x (1 + 1/32) B          = 4.0625 B
///
/// Delayed scaling also updates each GEMM's amax history once per step (nvte_delayed_scaling_recipe_amax_and_scale_
/// update: the window of amax_history_len = 1024 entries for its 3 tensors, read and rewritten, fp32): 2 x 1024 x 3
/// x 4 B per Linear layer, the "amax reduction" over the history.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu_profile.hpp"
#include "models/model.hpp"

namespace dtsim::models {

/// Entries of the amax history per tensor (DelayedScaling's amax_history_len default).
inline constexpr std::int64_t kAmaxHistory = 1024;

/// Names of the recipes ("delayed", "current", "mxfp8"), the keys of gpu.fp8_recipe.
std::vector<std::string> fp8_recipe_names();
/// Parses a recipe name; throws core::InputError listing the known ones.
Fp8Recipe parse_fp8_recipe(std::string_view name);
/// Name of a recipe, as written in scenario files.
std::string_view fp8_recipe_name(Fp8Recipe r);
/// The recipe Transformer Engine picks when none is given (transformer_engine.pytorch.fp8.get_default_fp8_recipe):
/// MXFP8 where the GPU runs it (Blackwell), else delayed scaling.
Fp8Recipe default_fp8_recipe(const GpuProfile& gpu);
/// Why `gpu` cannot run `r` ("" when it can): MXFP8 needs fifth-generation tensor cores (GpuProfile::mxfp8).
std::string fp8_recipe_refusal(Fp8Recipe r, const GpuProfile& gpu);

/// Bytes moved to quantize one element for one fp8 GEMM operand (the table above).
double fp8_quantize_bytes(Fp8Recipe r);
/// Bytes of the fp8 copies Transformer Engine keeps per weight of a Linear layer for its GEMMs (the weight and its
/// transpose, or its row- and column-wise MXFP8 data with their scales): 2 or 2.0625.
double fp8_weight_copy_bytes(Fp8Recipe r);

/// The element-wise work `r` adds to one fp8 GEMM layer (`g`, one GPU's share): bytes moved in forward (quantizing X
/// and W, and delayed scaling's amax history update) and in backward (quantizing dY).
struct Fp8CastBytes {
  double forward = 0;
  double backward = 0;
};
Fp8CastBytes fp8_cast_bytes(const Gemm& g, Fp8Recipe r);

/// True when `layer` runs its GEMMs in fp8 under Transformer Engine: a GEMM layer that is not a batched product
/// (attention's scores and context stay bf16 unless fp8 attention is asked for, which dtsim does not model).
bool runs_in_fp8(const Layer& layer);
/// Parameters of `model`'s layers that runs_in_fp8: the weights Transformer Engine keeps fp8 copies of.
std::int64_t fp8_parameter_count(const Model& model);

}  // namespace dtsim::models
