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
};

/// Bytes of one activation element at `p`: 2 for fp16 and bf16, else 4 (tf32 is stored as fp32).
using models::element_bytes;
/// The model states of `parameters` parameters trained with `optimizer` at precision `p`. fp32 and tf32: 4 bytes
/// of weight and of gradient per parameter plus the optimizer's fp32 state. fp16 and bf16 (mixed precision,
/// Micikevicius et al. 2018): 2 + 2 bytes of half-precision weight and gradient, plus an fp32 master copy of
/// the weights and the optimizer's fp32 state, so that Adam needs 2 + 2 + 12 = 16 bytes per parameter
/// (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC 2020,
/// section 3.1). PyTorch's automatic mixed precision keeps fp32 weights and gradients instead (4 + 4 bytes, no
/// master copy): the same total for every optimizer, split differently.
ModelStates model_states(std::int64_t parameters, models::Precision p, const models::Optimizer& optimizer);

}  // namespace dtsim::memory
