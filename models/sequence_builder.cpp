#include "models/sequence_builder.hpp"

#include <utility>

#include "models/op_costs.hpp"

namespace dtsim::models {

SequenceBuilder::SequenceBuilder(std::string name, std::string source, std::int64_t tokens)
    : tokens_(tokens) {
  model_.name = std::move(name);
  model_.source = std::move(source);
  model_.tokens = tokens;
}

Layer& SequenceBuilder::add(std::string name, double flops, std::int64_t input_elements,
                            std::int64_t output_elements, std::vector<Tensor> tensors) {
  Layer& layer = append_layer(model_, std::move(name), flops, input_elements, output_elements, std::move(tensors));
  layer.block = block_;
  layer.saved = {};
  return layer;
}

Layer& SequenceBuilder::embedding(const std::string& name, std::int64_t rows, std::int64_t dim) {
  Layer& l = add(name, 0, tokens_, tokens_ * dim, {{name + ".weight", {rows, dim}}});
  l.split = TensorSplit::sharded;  // Megatron's VocabParallelEmbedding
  return l;
}

Layer& SequenceBuilder::linear(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows,
                             bool bias, bool keeps_input) {
  std::vector<Tensor> tensors{{name + ".weight", {out, in}}};
  if (bias) tensors.push_back({name + ".bias", {out}});
  Layer& l = add(name, static_cast<double>(rows * out) * (2.0 * in + (bias ? 1 : 0)), rows * in, rows * out,
                 std::move(tensors));
  if (keeps_input) l.saved.elements = rows * in;
  l.gemm = Gemm{rows, out, in};
  return l;
}

Layer& SequenceBuilder::conv1d(const std::string& name, std::int64_t in, std::int64_t out, bool bias) {
  std::vector<Tensor> tensors{{name + ".weight", {in, out}}};
  if (bias) tensors.push_back({name + ".bias", {out}});
  Layer& l = add(name, static_cast<double>(tokens_ * out) * (2.0 * in + (bias ? 1 : 0)), tokens_ * in, tokens_ * out,
                 std::move(tensors));
  l.saved.elements = tokens_ * in;
  l.gemm = Gemm{tokens_, out, in};
  return l;
}

void SequenceBuilder::tied_projection(const std::string& name, std::int64_t in, std::int64_t out) {
  Layer& l = add(name, 2.0 * static_cast<double>(tokens_ * out * in), tokens_ * in, tokens_ * out);
  l.saved.elements = tokens_ * in;
  l.gemm = Gemm{tokens_, out, in};
  l.split = TensorSplit::column;  // split over the vocabulary, as Megatron's output layer
}

void SequenceBuilder::layer_norm(const std::string& name, std::int64_t dim, bool residual) {
  const std::int64_t n = tokens_ * dim;
  const double flops =
      (norm_flops_per_element + (residual ? pointwise_flops_per_element : 0)) * static_cast<double>(n);
  add(name, flops, (residual ? 2 : 1) * n, n, {{name + ".weight", {dim}}, {name + ".bias", {dim}}}).saved.elements = n;
}

void SequenceBuilder::rms_norm(const std::string& name, std::int64_t dim) {
  const std::int64_t n = tokens_ * dim;
  add(name, norm_flops_per_element * static_cast<double>(n), n, n, {{name + ".weight", {dim}}}).saved.elements = n;
}

Layer& SequenceBuilder::elementwise(const std::string& name, std::int64_t elements, double flops_per_element,
                                  int inputs, Keeps keeps) {
  Layer& l = add(name, flops_per_element * static_cast<double>(elements), inputs * elements, elements);
  if (keeps == Keeps::operand) l.saved.elements = elements;
  if (keeps == Keeps::operands) l.saved.elements = inputs * elements;
  if (keeps == Keeps::mask) l.saved.bytes = elements;
  return l;
}

Layer& SequenceBuilder::attention_scores(const std::string& name, std::int64_t dim, std::int64_t heads) {
  Layer& l =
      add(name, 2.0 * static_cast<double>(tokens_ * tokens_ * dim), 2 * tokens_ * dim, heads * tokens_ * tokens_);
  l.saved.elements = 2 * tokens_ * dim;
  l.gemm = Gemm{tokens_, tokens_, dim / heads, heads, true};
  l.attention_core = true;
  l.split = TensorSplit::sharded;
  l.heads = static_cast<int>(heads);
  return l;
}

void SequenceBuilder::attention_softmax(const std::string& name, std::int64_t heads) {
  const std::int64_t n = heads * tokens_ * tokens_;
  Layer& l = add(name, softmax_flops_per_element * static_cast<double>(n), n, n);
  l.saved.elements = l.saved.attention_elements = n;
  l.kernel = Kernel::softmax;
  l.passes = eager_softmax_passes;
  l.attention_core = true;
  l.split = TensorSplit::sharded;
  l.heads = static_cast<int>(heads);
}

void SequenceBuilder::attention_dropout(const std::string& name, std::int64_t heads) {
  const std::int64_t n = heads * tokens_ * tokens_;
  Layer& l = add(name, pointwise_flops_per_element * static_cast<double>(n), n, n);
  l.saved.bytes = l.saved.attention_bytes = n;
  l.attention_core = true;
  l.split = TensorSplit::sharded;
  l.heads = static_cast<int>(heads);
}

void SequenceBuilder::attention_context(const std::string& name, std::int64_t dim, std::int64_t heads, bool dropout,
                                        std::int64_t kv_heads) {
  const std::int64_t probabilities = heads * tokens_ * tokens_;
  Layer& l = add(name, 2.0 * static_cast<double>(tokens_ * tokens_ * dim), probabilities + tokens_ * dim,
                 tokens_ * dim);
  l.saved.attention_elements = dropout ? probabilities : 0;
  l.saved.elements = l.saved.attention_elements + tokens_ * dim;
  l.gemm = Gemm{tokens_, dim / heads, tokens_, heads, true};
  l.attention_core = true;
  l.split = TensorSplit::sharded;
  l.heads = static_cast<int>(heads);
  l.kv_heads = static_cast<int>(kv_heads);
}

void SequenceBuilder::cross_entropy(const std::string& name, std::int64_t classes) {
  const std::int64_t n = tokens_ * classes;
  Layer& l = add(name, softmax_flops_per_element * static_cast<double>(n), n, tokens_);
  l.saved.bytes = 4 * n;
  l.split = TensorSplit::sharded;  // Megatron's vocab-parallel cross-entropy
}

Model SequenceBuilder::finish() && { return std::move(model_); }

}  // namespace dtsim::models
