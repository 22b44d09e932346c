#include "models/model.hpp"

namespace dtsim::models {

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::int64_t Layer::parameter_count() const {
  std::int64_t n = 0;
  for (const Tensor& t : tensors) n += t.numel();
  return n;
}

std::int64_t Model::parameter_count() const {
  std::int64_t n = 0;
  for (const Layer& l : layers) n += l.parameter_count();
  return n;
}

std::int64_t Model::active_parameter_count() const {
  std::int64_t n = 0;
  for (const Layer& l : layers) n += l.experts > 0 ? l.parameter_count() / l.experts * l.top_k : l.parameter_count();
  return n;
}

std::int64_t Model::tensor_count() const {
  std::int64_t n = 0;
  for (const Layer& l : layers) n += static_cast<std::int64_t>(l.tensors.size());
  return n;
}

double Model::forward_flops() const {
  double f = 0;
  for (const Layer& l : layers) f += l.forward_flops;
  return f;
}

}  // namespace dtsim::models
