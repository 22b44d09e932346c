#pragma once
/// Builds transformer layer tables module by module for one sample of a fixed number of tokens.
#include <cstdint>
#include <string>

#include "models/model.hpp"

namespace dtsim::models {

/// Appends embedding/linear/norm/attention modules; activations are tokens x features per sample.
class SequenceBuilder {
 public:
  /// Starts model `name` (reference `source`) on samples of `tokens` tokens.
  SequenceBuilder(std::string name, std::string source, std::int64_t tokens);
  /// nn.Embedding: "<name>.weight" [rows, dim]; looks up one row per token.
  void embedding(const std::string& name, std::int64_t rows, std::int64_t dim);
  /// nn.Linear applied to `rows` tokens: "<name>.weight" [out, in], "<name>.bias" [out].
  void linear(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows);
  /// Hugging Face Conv1D on every token: "<name>.weight" [in, out], "<name>.bias" [out].
  void conv1d(const std::string& name, std::int64_t in, std::int64_t out);
  /// nn.LayerNorm(dim): "<name>.weight", "<name>.bias" [dim]; with `residual` it first adds a second input.
  void layer_norm(const std::string& name, std::int64_t dim, bool residual);
  /// Parameter-free element-wise module writing `elements` per sample from `inputs` operands of that size.
  void elementwise(const std::string& name, std::int64_t elements, double flops_per_element, int inputs);
  /// Q K^T of all heads: reads Q and K (tokens x dim), writes heads x tokens x tokens scores.
  void attention_scores(const std::string& name, std::int64_t dim, std::int64_t heads);
  /// Probabilities times V: reads heads x tokens x tokens and V, writes tokens x dim.
  void attention_context(const std::string& name, std::int64_t dim, std::int64_t heads);
  /// Tokens per sample.
  std::int64_t tokens() const { return tokens_; }
  /// The finished model.
  Model finish() &&;

 private:
  Model model_;
  std::int64_t tokens_;
};

}  // namespace dtsim::models
