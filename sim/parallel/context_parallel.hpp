#pragma once
/// Context parallelism (Megatron-LM's context_parallel_size over Transformer Engine's attention; Liu et al., "Ring
/// Attention with Blockwise Transformers", 2023; Llama 3 report, Dubey et al. 2024, section 3.3.2): each rank of a
/// context group holds 1/context of every sequence's tokens (2 x context chunks, rank i holding chunks i and
/// 2 context - 1 - i, so that causal attention costs every rank the same), so every module's work and
/// activations divide by the group; attention needs every rank's keys and values, which the group exchanges:
/// - "p2p" (TE's ring, cp_comm_type = "p2p"): context - 1 steps, each sending the key/value block on to the next rank
///   while computing attention on the block at hand, so the exchange hides behind all but the last block's
///   computation; backward sends the keys/values and their gradients (twice the bytes);
/// - "all_gather" (Llama 3; cp_comm_type = "all_gather"): the keys and values are all-gathered before the
///   attention computation, and in backward all-gathered again and their gradients reduce-scattered after it,
///   nothing overlapped.
/// Parameters are replicated over the group, so gradients are summed over data x context (the replicas' group).
#include <cstdint>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/parallel/layout.hpp"

namespace dtsim::parallel {

/// Names accepted for parallel.context_comm.
std::vector<std::string> context_comm_names();

/// Why `layout` cannot split `model`'s sequences over its context groups (empty when it can): a model without
/// transformer layers, or tokens that are not a multiple of 2 x context (x tensor with sequence parallelism).
std::string context_refusal(const Layout& layout, const models::Model& model);

/// Keys and values per sample that attention core `core` (its last module: attention over V) reads: 2 x tokens x
/// head dim x key/value heads.
std::int64_t kv_elements(const models::Layer& core);

}  // namespace dtsim::parallel
