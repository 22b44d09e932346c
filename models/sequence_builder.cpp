#include "models/sequence_builder.hpp"

#include <utility>

#include "models/op_costs.hpp"

namespace dtsim::models {

SequenceBuilder::SequenceBuilder(std::string name, std::string source, std::int64_t tokens)
    : tokens_(tokens) {
  model_.name = std::move(name);
  model_.source = std::move(source);
}

void SequenceBuilder::embedding(const std::string& name, std::int64_t rows, std::int64_t dim) {
  append_layer(model_, name, 0, tokens_, tokens_ * dim, {{name + ".weight", {rows, dim}}});
}

void SequenceBuilder::linear(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows) {
  append_layer(model_, name, static_cast<double>(rows * out) * (2.0 * in + 1), rows * in, rows * out,
               {{name + ".weight", {out, in}}, {name + ".bias", {out}}});
}

void SequenceBuilder::conv1d(const std::string& name, std::int64_t in, std::int64_t out) {
  append_layer(model_, name, static_cast<double>(tokens_ * out) * (2.0 * in + 1), tokens_ * in, tokens_ * out,
               {{name + ".weight", {in, out}}, {name + ".bias", {out}}});
}

void SequenceBuilder::layer_norm(const std::string& name, std::int64_t dim, bool residual) {
  const std::int64_t n = tokens_ * dim;
  const double flops =
      (norm_flops_per_element + (residual ? pointwise_flops_per_element : 0)) * static_cast<double>(n);
  append_layer(model_, name, flops, (residual ? 2 : 1) * n, n,
               {{name + ".weight", {dim}}, {name + ".bias", {dim}}});
}

void SequenceBuilder::elementwise(const std::string& name, std::int64_t elements, double flops_per_element,
                                  int inputs) {
  append_layer(model_, name, flops_per_element * static_cast<double>(elements), inputs * elements, elements);
}

void SequenceBuilder::attention_scores(const std::string& name, std::int64_t dim, std::int64_t heads) {
  append_layer(model_, name, 2.0 * static_cast<double>(tokens_ * tokens_ * dim), 2 * tokens_ * dim,
               heads * tokens_ * tokens_);
}

void SequenceBuilder::attention_context(const std::string& name, std::int64_t dim, std::int64_t heads) {
  append_layer(model_, name, 2.0 * static_cast<double>(tokens_ * tokens_ * dim),
               heads * tokens_ * tokens_ + tokens_ * dim, tokens_ * dim);
}

Model SequenceBuilder::finish() && { return std::move(model_); }

}  // namespace dtsim::models
