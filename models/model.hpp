#pragma once
/// A DNN as the simulator sees it: layers (modules) in forward order, each owning parameter tensors.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::models {

/// One parameter tensor with its exact shape (as in the reference framework).
struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  /// Number of elements (product of the shape).
  std::int64_t numel() const;
};

/// Measured per-iteration times of one layer (user tables); they bypass the roofline model.
struct MeasuredTime {
  double forward_s = 0;
  double backward_s = 0;
};

/// What a layer keeps for its backward pass, per sample (Korthikanti et al., "Reducing Activation Recomputation
/// in Large Transformer Models", MLSys 2023, section 4.1: each operator stores the inputs its backward needs).
struct SavedActivations {
  std::int64_t elements = 0;            ///< tensors in the activation precision
  std::int64_t bytes = 0;               ///< tensors whose size does not follow the precision: 1-byte dropout masks
  std::int64_t attention_elements = 0;  ///< of `elements`, those quadratic in the tokens (softmax, attention dropout)
  std::int64_t attention_bytes = 0;     ///< of `bytes`, those quadratic in the tokens (attention dropout mask)
};

/// How Megatron-LM's tensor parallelism splits a module over the t GPUs of a tensor-parallel group (Shoeybi et
/// al., "Megatron-LM", 2019, section 3; Korthikanti et al. 2023, section 4.2 for what each keeps).
enum class TensorSplit {
  replicated,  ///< every GPU runs it whole and keeps its input (norms, dropout, residual adds, position embeddings)
  column,      ///< column-parallel linear: weight and work split; keeps its whole input
  row,         ///< row-parallel linear: weight and work split; keeps its input, which is split
  sharded,     ///< work on split heads, a split intermediate or a split vocabulary: work and what it keeps split
};

/// A module that is one matrix multiply C = A B per sample, or `count` of them (a batched GEMM over attention heads):
/// C is m x n, A m x k, B k x n. Under tensor parallelism its columns (column), its inner dimension (row) or its
/// products (sharded heads) divide over the group.
struct Gemm {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t count = 1;  ///< products per sample (attention heads)
  bool batched = false;    ///< true: one product per sample and head (cuBLAS strided batched GEMM); false: the
                           ///< samples' rows stack into one m (a linear layer on every token of the batch)
};

/// What a parameter-free module does, where Megatron-LM's fused kernels (kernels = "fused") change it.
enum class Kernel {
  other,
  softmax,       ///< attention softmax with its scale and mask (FusedScaleMaskSoftmax)
  dropout,       ///< dropout of a projection's output, before its residual add (bias-dropout-add)
  residual_add,  ///< the residual add after that dropout (bias-dropout-add)
  flash_attention2,  ///< the attention core as one FlashAttention-2 kernel (models/attention_time.hpp)
  flash_attention3,  ///< the attention core as one FlashAttention-3 kernel (Hopper)
  moe_permute,       ///< an MoE layer's token permutation before its experts: the dispatch all-to-all follows it
  moe_unpermute,     ///< the inverse permutation after its experts: the combine all-to-all precedes it
};

/// One module, in forward order. Its backward produces the gradients of all its tensors at once.
struct Layer {
  std::string name;
  std::vector<Tensor> tensors;           ///< parameters; empty for parameter-free modules
  double forward_flops = 0;              ///< per sample
  std::int64_t input_elements = 0;       ///< activations read per sample (memory roofline)
  std::int64_t output_elements = 0;      ///< activations written per sample (memory roofline)
  std::optional<MeasuredTime> measured;  ///< set by user tables with measured times
  SavedActivations saved;                ///< kept for backward; zero when unknown (user tables)
  int block = -1;                        ///< transformer layer it belongs to (full recomputation's unit); -1: none
  bool attention_core = false;           ///< Q K^T, softmax, its dropout or attention over V (selective recomputation)
  TensorSplit split = TensorSplit::replicated;  ///< under tensor parallelism
  int heads = 0;                         ///< attention-core modules: the attention heads
  int kv_heads = 0;                      ///< attention-core modules: key/value heads (grouped-query); 0: `heads`
  double backward_ratio = 2;             ///< backward time over forward time (roofline; fused attention differs)
  std::optional<Gemm> gemm;              ///< set when the module is a matrix multiply (timed by its shape)
  Kernel kernel = Kernel::other;         ///< role for kernel fusion
  /// Element-wise kernels the module launches, each reading its input and writing its output once (eager PyTorch's
  /// attention scale, mask and softmax: 3); the memory roofline counts its traffic this many times.
  int passes = 1;
  /// Routed-expert modules of a mixture-of-experts layer: the experts their tensors hold (each tensor [experts, ...])
  /// and each token's top-k, so that their work is that of tokens x top_k rows; 0: a dense module.
  int experts = 0;
  int top_k = 0;
  /// Routed-expert modules: the busiest expert's tokens over the mean (the router's imbalance, at most the capacity
  /// factor when tokens beyond it are dropped).
  double expert_imbalance = 1;
  /// Sum of the tensors' element counts.
  std::int64_t parameter_count() const;
};

/// A whole model: name, where its numbers come from, and its layers in forward order.
struct Model {
  std::string name;
  std::string source;  ///< reference implementation the shapes follow (e.g. "torchvision 0.15 resnet50")
  std::vector<Layer> layers;
  std::int64_t tokens = 0;  ///< sequence length of a sample (transformers); 0 for other models
  bool causal = false;      ///< decoder: each token attends to the tokens before it (a fused kernel skips the rest)
  /// Total parameters over all layers.
  std::int64_t parameter_count() const;
  /// Number of parameter tensors (gradient messages under WFBP).
  std::int64_t tensor_count() const;
  /// Forward FLOPs per sample.
  double forward_flops() const;
  /// Parameters a token passes through: every dense parameter and top_k / experts of the routed experts' (a dense
  /// model's parameter_count()).
  std::int64_t active_parameter_count() const;
};

}  // namespace dtsim::models
