#include "numerics/layers.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace dtsim::numerics {

void dense_forward(const Matrix& x, ConstWeights w, std::span<const float> b, Matrix& y) {
  y.noalias() = x * w.transpose();
  y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b.data(), static_cast<Eigen::Index>(b.size()));
}

void dense_backward(const Matrix& x, ConstWeights w, const Matrix& dy, Weights dw, std::span<float> db, Matrix* dx) {
  dw.noalias() = dy.transpose() * x;
  Eigen::Map<Eigen::RowVectorXf>(db.data(), static_cast<Eigen::Index>(db.size())) = dy.colwise().sum();
  if (dx != nullptr) dx->noalias() = dy * w;
}

void dense_second_moment(const Matrix& x, const Matrix& dy, Weights dw2, std::span<float> db2) {
  const Matrix dy2 = dy.cwiseAbs2(), x2 = x.cwiseAbs2();
  dw2.noalias() = dy2.transpose() * x2;
  Eigen::Map<Eigen::RowVectorXf>(db2.data(), static_cast<Eigen::Index>(db2.size())) = dy2.colwise().sum();
}

void relu_forward(Matrix& x) { x = x.cwiseMax(0.0f); }

void relu_backward(const Matrix& y, Matrix& dy) { dy = (y.array() > 0.0f).select(dy, 0.0f); }

double softmax_cross_entropy(const Matrix& logits, std::span<const int> labels, Matrix& dlogits) {
  const Eigen::Index n = logits.rows();
  dlogits.resize(n, logits.cols());
  double loss = 0.0;
  const float inv_n = 1.0f / static_cast<float>(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const float top = logits.row(i).maxCoeff();
    dlogits.row(i) = (logits.row(i).array() - top).exp().matrix();
    const float total = dlogits.row(i).sum();
    const int y = labels[static_cast<std::size_t>(i)];
    DTSIM_CHECK(y >= 0 && y < logits.cols(), "a label is outside the model's classes");
    loss += std::log(static_cast<double>(total)) - static_cast<double>(logits(i, y) - top);
    dlogits.row(i) *= inv_n / total;
    dlogits(i, y) -= inv_n;
  }
  return loss / static_cast<double>(n);
}

}  // namespace dtsim::numerics
