#pragma once
/// Building blocks shared by the models: fully connected layers, ReLU and softmax cross-entropy on
/// row-major mini-batches (one example per row). Weights are (outputs x inputs), row-major.
#include <span>

#include <Eigen/Core>

#include "numerics/model.hpp"

namespace dtsim::numerics {

/// Read-only view of a row-major weight matrix inside a flat buffer.
using ConstWeights = Eigen::Map<const Matrix>;
/// Writable view of a row-major weight (or weight-gradient) matrix inside a flat buffer.
using Weights = Eigen::Map<Matrix>;

/// The rows x cols view of tensor `t` inside a flat buffer laid out like Model::parameters().
inline ConstWeights view(std::span<const float> flat, const TensorInfo& t) {
  return ConstWeights(flat.data() + t.offset, t.rows, t.cols);
}
/// The writable rows x cols view of tensor `t` inside a flat buffer.
inline Weights view(std::span<float> flat, const TensorInfo& t) { return Weights(flat.data() + t.offset, t.rows, t.cols); }

/// y = x w^T + b (one row per example).
void dense_forward(const Matrix& x, ConstWeights w, std::span<const float> b, Matrix& y);

/// Gradients of a dense layer: dw = dy^T x, db = column sums of dy, and dx = dy w when `dx` is given.
void dense_backward(const Matrix& x, ConstWeights w, const Matrix& dy, Weights dw, std::span<float> db, Matrix* dx);

/// Each dense-layer gradient's sum over the examples of its squared per-example terms (row z of dy and of x are
/// example z's): dw2 = (dy .* dy)^T (x .* x), db2 = column sums of dy .* dy.
void dense_second_moment(const Matrix& x, const Matrix& dy, Weights dw2, std::span<float> db2);

/// x = max(x, 0) in place.
void relu_forward(Matrix& x);

/// dy = 0 where the ReLU output y was 0.
void relu_backward(const Matrix& y, Matrix& dy);

/// Mean cross-entropy of softmax(logits) against `labels`; writes d loss / d logits to `dlogits`.
double softmax_cross_entropy(const Matrix& logits, std::span<const int> labels, Matrix& dlogits);

}  // namespace dtsim::numerics
