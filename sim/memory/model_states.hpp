#pragma once
/// Model states per GPU under data parallelism: weights, gradients and optimizer state, by precision.
#include <cstdint>

#include "models/gpu_profile.hpp"
#include "models/optimizer.hpp"

namespace dtsim::memory {

/// Bytes of the model states of one replica.
struct ModelStates {
  double weights_bytes = 0;    ///< the weights the layers compute with
  double gradients_bytes = 0;  ///< their gradients
  double optimizer_bytes = 0;  ///< optimizer state, with the fp32 master weights under mixed precision
  double fp8_weight_bytes = 0;  ///< fp8: Transformer Engine's fp8 copies of the Linear layers' weights
};

/// Bytes of one activation element at `p`: 2 for fp16, bf16 and fp8 (whose layers exchange bf16), else 4 (tf32 is
/// stored as fp32).
using models::element_bytes;
/// The model states of `parameters` parameters trained with `optimizer` at precision `p`, their gradients
/// accumulated and reduced in `gradient_dtype`. fp32 and tf32: 4 bytes of weight per parameter plus the
/// optimizer's fp32 state. fp16 and bf16 (mixed precision, Micikevicius et al. 2018): 2 bytes of half-precision
/// weight, plus an fp32 master copy of the weights and the optimizer's fp32 state. Gradients: 2 or 4 bytes, their
/// dtype's. With 16-bit gradients Adam needs 2 + 2 + 12 = 16 bytes per parameter (Rajbhandari et al., "ZeRO:
/// Memory Optimizations Toward Training Trillion Parameter Models", SC 2020, section 3.1); with fp32 gradients
/// 18, as Megatron-LM's bf16 training keeps them (its docs/distrib_optimizer.md: "bf16 param, fp32 grads", 18
/// bytes). PyTorch's automatic mixed precision keeps fp32 weights (no master copy) and fp32 gradients, plus the
/// 16-bit copies of the weights autocast caches through forward and backward: the same 18 bytes, split
/// differently. Not counted: the fp32 copy of 16-bit gradients an optimizer steps on (Apex O2, Megatron-LM's fp16
/// optimizer, whose table counts it: 20 bytes; FSDP's upcast), made for the step and freed before the next
/// forward, away from the activations' peak.
/// fp8 (Transformer Engine with Megatron-LM: bf16 parameters, fp32 master weights, the gradients' dtype): as bf16, plus
/// the fp8 copies TE keeps of the `fp8_parameters` weights of its Linear layers for their GEMMs,
/// models::fp8_weight_copy_bytes(`recipe`) each (2 B: the weight and its transpose; MXFP8 2 x 33/32 B). Adam with fp32
/// gradients: 2 + 4 + 4 + 8 = 18 bytes per parameter plus 2 per Linear weight (2.0625 with MXFP8).
ModelStates model_states(std::int64_t parameters, models::Precision p, models::Precision gradient_dtype,
                         const models::Optimizer& optimizer, std::int64_t fp8_parameters = 0,
                         models::Fp8Recipe recipe = models::Fp8Recipe::delayed);

}  // namespace dtsim::memory
