#pragma once
/// FlashAttention (Dao et al., "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
/// NeurIPS 2022; Dao, "FlashAttention-2", 2023): the attention core as one fused kernel that never writes the
/// score matrices to memory.
#include "models/model.hpp"

namespace dtsim::models {

/// `model` with each transformer layer's eager attention core (Q K^T, softmax, dropout, attention over V) replaced
/// by one fused module: the same FLOPs; memory traffic of reading Q, K, V and writing the output (the
/// tokens x tokens matrices stay in on-chip SRAM); kept for backward Q, K, V and the softmax's log-sum-exp per head
/// and token in fp32 (the output it keeps is the tensor the next module keeps as its input) (dropout masks are regenerated from the RNG state); backward 2.5 times
/// the forward, FlashAttention-2's count (five matrix multiplies against two, section 3.1.2 of the
/// FlashAttention-2 paper: the scores are recomputed). The fused module's `kernel` is `version` (flash_attention2 or
/// flash_attention3), which times it from that kernel's measured throughput (models/attention_time.hpp; its
/// output_elements / tokens is the model width, divided over `heads`). Throws core::InputError when the model has
/// no attention core.
Model with_flash_attention(Model model, Kernel version = Kernel::flash_attention2);

}  // namespace dtsim::models
