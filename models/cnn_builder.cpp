#include "models/cnn_builder.hpp"

#include <utility>

#include "models/op_costs.hpp"
#include "sim/core/error.hpp"

namespace dtsim::models {

Window square(std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  return Window{kernel, kernel, stride, pad, pad};
}

CnnBuilder::CnnBuilder(std::string name, std::string source, FeatureMap input) : shape_(input) {
  model_.name = std::move(name);
  model_.source = std::move(source);
}

FeatureMap CnnBuilder::slide(Window window, std::int64_t channels) const {
  const std::int64_t span_h = shape_.height + 2 * window.pad_h - window.kernel_h;
  const std::int64_t span_w = shape_.width + 2 * window.pad_w - window.kernel_w;
  DTSIM_CHECK(span_h >= 0 && span_w >= 0, "window larger than the padded activation");
  return FeatureMap{channels, span_h / window.stride + 1, span_w / window.stride + 1};
}

void CnnBuilder::conv(const std::string& name, std::int64_t out_channels, Window window, bool bias) {
  const FeatureMap out = slide(window, out_channels);
  const std::int64_t macs_per_output = shape_.channels * window.kernel_h * window.kernel_w;
  std::vector<Tensor> tensors{
      {name + ".weight", {out_channels, shape_.channels, window.kernel_h, window.kernel_w}}};
  if (bias) tensors.push_back({name + ".bias", {out_channels}});
  const double flops = static_cast<double>(out.elements()) * (2.0 * macs_per_output + (bias ? 1 : 0));
  append_layer(model_, name, flops, shape_.elements(), out.elements(), std::move(tensors));
  shape_ = out;
}

void CnnBuilder::batch_norm(const std::string& name) {
  const std::int64_t n = shape_.elements();
  append_layer(model_, name, norm_flops_per_element * static_cast<double>(n), n, n,
               {{name + ".weight", {shape_.channels}}, {name + ".bias", {shape_.channels}}});
}

void CnnBuilder::relu(const std::string& name) {
  const std::int64_t n = shape_.elements();
  append_layer(model_, name, pointwise_flops_per_element * static_cast<double>(n), n, n).saved = {};
}

void CnnBuilder::dropout(const std::string& name) {
  const std::int64_t n = shape_.elements();
  append_layer(model_, name, pointwise_flops_per_element * static_cast<double>(n), n, n).saved.bytes = n;
}

void CnnBuilder::pool(const std::string& name, Window window) {
  const FeatureMap out = slide(window, shape_.channels);
  append_layer(model_, name, static_cast<double>(out.elements() * window.kernel_h * window.kernel_w),
               shape_.elements(), out.elements());
  shape_ = out;
}

void CnnBuilder::adaptive_avg_pool(const std::string& name, std::int64_t height, std::int64_t width) {
  const FeatureMap out{shape_.channels, height, width};
  append_layer(model_, name, static_cast<double>(shape_.elements()), shape_.elements(), out.elements());
  shape_ = out;
}

void CnnBuilder::linear(const std::string& name, std::int64_t out_features) {
  const std::int64_t in_features = shape_.elements();
  append_layer(model_, name, static_cast<double>(out_features) * (2.0 * in_features + 1), in_features,
               out_features,
               {{name + ".weight", {out_features, in_features}}, {name + ".bias", {out_features}}})
      .gemm = Gemm{1, out_features, in_features};
  shape_ = FeatureMap{out_features, 1, 1};
}

void CnnBuilder::add(const std::string& name) {
  const std::int64_t n = shape_.elements();
  append_layer(model_, name, pointwise_flops_per_element * static_cast<double>(n), 2 * n, n);
}

void CnnBuilder::concat(const std::string& name, const std::vector<FeatureMap>& parts) {
  FeatureMap out{0, parts.front().height, parts.front().width};
  for (const FeatureMap& part : parts) {
    DTSIM_CHECK(part.height == out.height && part.width == out.width, "concat of different spatial sizes");
    out.channels += part.channels;
  }
  append_layer(model_, name, 0, out.elements(), out.elements());
  shape_ = out;
}

void CnnBuilder::parameter_free(const std::string& name, double forward_flops, FeatureMap out) {
  append_layer(model_, name, forward_flops, shape_.elements(), out.elements());
  shape_ = out;
}

Model CnnBuilder::finish() && { return std::move(model_); }

}  // namespace dtsim::models
