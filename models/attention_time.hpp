#pragma once
/// The time of a fused attention kernel (FlashAttention-2 or -3) from its measured throughput by sequence length,
/// pass and causal mask: time = FLOPs / throughput(tokens), with the FlashAttention papers' FLOP count
/// (forward 4 s^2 d per head, half of it under a causal mask; backward 2.5 times the forward).
///
/// Measurements (head dimensions 64 and 128, bf16/fp16, the tables in attention_time.cpp):
/// - H100 SXM5: Shah et al., "FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision"
///   (arXiv 2407.08608, 2024), figure 5 (forward, with and without causal mask) and figure 6 (backward, without),
///   FlashAttention-2 and FlashAttention-3 at sequence lengths 512 to 16k and head dimensions 64 and 128 (batch x
///   sequence = 16k tokens, hidden 2048).
/// - A100: Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning" (arXiv 2307.08691,
///   2023), section 4.1: the forward pass reaches up to 73 % and the backward up to 63 % of the A100's 312 TFLOP/s.
///   The paper's per-length figures are plots without printed values, so dtsim takes these two ceilings at the
///   longest sequence and head dimension 128 and the shape over sequence length, mask and head dimension from
///   FlashAttention-2's curves on the H100 above (each point over the head-dimension-128, 16k value): a derived
///   table, not a measured one.
/// Between measured lengths throughput is interpolated linearly in log2(tokens), and held at the end values
/// outside 512 to 16k. No backward figure with a causal mask is published: it is the non-causal backward times the
/// forward's causal / non-causal ratio at the same length. Between head dimensions 64 and 128 throughput is
/// interpolated linearly in log2(head dimension); smaller ones take the 64 tables and larger ones the 128 tables
/// (the paper's head-dimension-256 forward runs at 0.88 to 1.17 times its 128 one; dtsim has no backward at 256).
/// GPUs without measurements (every profile but a100 and h100) run FlashAttention-2 at the A100's fractions of
/// peak, times their own peak; FlashAttention-3 needs a Hopper measurement (h100) and is refused elsewhere.
#include <cstdint>

#include "models/gpu_profile.hpp"

namespace dtsim::models {

/// Which pass of the attention kernel.
enum class AttentionPass { forward, backward };

/// One GPU's attention work in one layer: `heads` heads of `tokens` queries each (samples x heads on this GPU).
struct AttentionShape {
  double heads = 0;
  std::int64_t tokens = 0;
  std::int64_t head_dim = 0;
  bool causal = false;
};

/// The FlashAttention papers' FLOPs of `pass` on `shape`.
double attention_flops(const AttentionShape& shape, AttentionPass pass);
/// Achieved flop/s of FlashAttention `version` (Kernel::flash_attention2 or 3) for `pass` at `tokens` and
/// `head_dim` on `gpu` at `p` (header); throws core::InputError for FlashAttention-3 on a GPU without a Hopper
/// measurement.
double attention_flop_rate(const GpuProfile& gpu, Precision p, Kernel version, AttentionPass pass, bool causal,
                           std::int64_t tokens, std::int64_t head_dim);
/// Seconds of `pass` on `shape`: attention_flops / (attention_flop_rate x gpu.attention_scale).
double attention_time_s(const AttentionShape& shape, const GpuProfile& gpu, Precision p, Kernel version,
                        AttentionPass pass);

}  // namespace dtsim::models
