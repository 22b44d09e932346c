#pragma once
/// Activation memory at a batch: what every layer keeps for backward, less what recomputation drops.
#include <vector>

#include "models/gpu_profile.hpp"
#include "models/model.hpp"
#include "sim/memory/recomputation.hpp"

namespace dtsim::memory {

/// Bytes of activations one GPU holds at the end of forward, `batch` samples of `model` at precision `p`.
/// none: every layer's SavedActivations (a transformer layer of GPT's shape keeps s b h (34 + 5 a s / h) bytes
/// in 16-bit, Korthikanti et al. 2022, equation 1). selective: less the attention core's tensors quadratic in the
/// sequence (s b h 34). full: each transformer layer keeps only its input (2 s b h in 16-bit) and one layer's
/// activations are rebuilt at a time during backward, so the largest layer's are added once. Throws
/// core::InputError when `r` needs what the model lacks (attention, transformer layers).
double activation_bytes(const models::Model& model, int batch, models::Precision p, Recomputation r);
/// Bytes layer `l` keeps for backward per sample, `element` bytes an activation element; without the attention
/// core's quadratic tensors when `drop_attention` (selective recomputation).
double kept_bytes(const models::Layer& l, double element, bool drop_attention);
/// Per layer (forward order), whether its forward runs again during backward under `r`.
std::vector<bool> recomputed_layers(const models::Model& model, Recomputation r);
/// True when the layer table says what its layers keep (the zoo does; user layer tables do not).
bool knows_activations(const models::Model& model);

}  // namespace dtsim::memory
