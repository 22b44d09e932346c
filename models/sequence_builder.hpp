#pragma once
/// Builds transformer layer tables module by module for one sample of a fixed number of tokens. Every module
/// records what it keeps for backward as Korthikanti et al. 2022 (section 4.1) count it: a matrix multiply its
/// input, a norm its input, GeLU and SiLU their input, softmax its output, dropout a one-byte mask. Matrix multiplies
/// carry their GEMM shape (Layer::gemm).
#include <cstdint>
#include <string>

#include "models/model.hpp"

namespace dtsim::models {

/// Kernels eager PyTorch launches over the attention scores before the probabilities: the scale by 1/sqrt(d), the
/// mask (causal or padding) and the softmax, each reading and writing the heads x tokens x tokens scores (Hugging Face
/// GPT2Attention._attn, BertSelfAttention.forward, eager_attention_forward of Llama; Megatron-LM's
/// FusedScaleMaskSoftmax.forward_torch_softmax when its fusion is off).
inline constexpr int eager_softmax_passes = 3;

/// What an element-wise module keeps for its backward pass.
enum class Keeps {
  nothing,  ///< additions, rotary embeddings (their backward needs no activation)
  operand,  ///< its input (GeLU, SiLU, tanh)
  operands, ///< every input (an element-wise product)
  mask,     ///< a one-byte dropout mask
};

/// Appends embedding/linear/norm/attention modules; activations are tokens x features per sample. Tensor
/// parallelism (Layer::split): embeddings, attention cores, tied heads and the cross-entropy are split over
/// heads or the vocabulary, norms are replicated; linear, conv1d and element-wise modules are replicated unless
/// the caller marks the returned layer (column, row or sharded), as Megatron-LM partitions its layers.
class SequenceBuilder {
 public:
  /// Starts model `name` (reference `source`) on samples of `tokens` tokens.
  SequenceBuilder(std::string name, std::string source, std::int64_t tokens);
  /// Starts transformer layer `index`: the modules appended until the next call form one block.
  void begin_block(int index) { block_ = index; }
  /// Ends the current block: later modules belong to none.
  void end_block() { block_ = -1; }
  /// nn.Embedding: "<name>.weight" [rows, dim]; looks up one row per token.
  Layer& embedding(const std::string& name, std::int64_t rows, std::int64_t dim);
  /// nn.Linear applied to `rows` tokens: "<name>.weight" [out, in] and, with `bias`, "<name>.bias" [out].
  /// `keeps_input` false: the input is the same tensor an earlier projection keeps (K and V beside Q).
  Layer& linear(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows, bool bias = true,
              bool keeps_input = true);
  /// Hugging Face Conv1D on every token: "<name>.weight" [in, out] and, with `bias`, "<name>.bias" [out].
  Layer& conv1d(const std::string& name, std::int64_t in, std::int64_t out, bool bias = true);
  /// A matrix multiply by a weight stored elsewhere (a language-model head tied to the token embedding).
  void tied_projection(const std::string& name, std::int64_t in, std::int64_t out);
  /// nn.LayerNorm(dim): "<name>.weight", "<name>.bias" [dim]; with `residual` it first adds a second input.
  void layer_norm(const std::string& name, std::int64_t dim, bool residual);
  /// RMSNorm(dim) (Zhang and Sennrich 2019): "<name>.weight" [dim].
  void rms_norm(const std::string& name, std::int64_t dim);
  /// Parameter-free element-wise module writing `elements` per sample from `inputs` operands of that size.
  Layer& elementwise(const std::string& name, std::int64_t elements, double flops_per_element, int inputs,
                   Keeps keeps);
  /// Q K^T of all heads: reads Q and K (tokens x dim), writes heads x tokens x tokens scores.
  Layer& attention_scores(const std::string& name, std::int64_t dim, std::int64_t heads);
  /// Scale, mask and softmax over the scores of all heads, as eager_softmax_passes kernels; keeps its output.
  void attention_softmax(const std::string& name, std::int64_t heads);
  /// Dropout on the attention probabilities; keeps a one-byte mask.
  void attention_dropout(const std::string& name, std::int64_t heads);
  /// Probabilities times V: reads heads x tokens x tokens and V, writes tokens x dim. `dropout` says whether
  /// its probabilities are a dropout's output (kept here) or the softmax's output (already kept there).
  /// `kv_heads`: the key/value heads under grouped-query attention (0: `heads`), what context parallelism exchanges.
  void attention_context(const std::string& name, std::int64_t dim, std::int64_t heads, bool dropout = true,
                         std::int64_t kv_heads = 0);
  /// Cross-entropy over `classes` logits per token; keeps the logits in fp32 (Korthikanti et al., 4.3).
  void cross_entropy(const std::string& name, std::int64_t classes);
  /// Tokens per sample.
  std::int64_t tokens() const { return tokens_; }
  /// The finished model.
  Model finish() &&;

 private:
  Layer& add(std::string name, double flops, std::int64_t input_elements, std::int64_t output_elements,
             std::vector<Tensor> tensors = {});

  Model model_;
  std::int64_t tokens_;
  int block_ = -1;
};

}  // namespace dtsim::models
