#include "numerics/cnn.hpp"

#include <cmath>

#include "numerics/layers.hpp"

namespace dtsim::numerics {
namespace {

constexpr std::int64_t kKernel = 5;
constexpr std::int64_t kPad = 2;

/// Feature maps of one layer: c channels of h x w.
struct Maps {
  std::int64_t c, h, w;
  std::int64_t size() const { return c * h * w; }
};

/// col((ch * 5 + ky) * 5 + kx, y * w + x) = in(ch, y + ky - 2, x + kx - 2), 0 outside.
void im2col(const float* in, const Maps& m, Matrix& col) {
  col.resize(m.c * kKernel * kKernel, m.h * m.w);
  for (std::int64_t ch = 0; ch < m.c; ++ch)
    for (std::int64_t ky = 0; ky < kKernel; ++ky)
      for (std::int64_t kx = 0; kx < kKernel; ++kx) {
        float* row = col.row((ch * kKernel + ky) * kKernel + kx).data();
        for (std::int64_t y = 0; y < m.h; ++y) {
          const std::int64_t sy = y + ky - kPad;
          for (std::int64_t x = 0; x < m.w; ++x) {
            const std::int64_t sx = x + kx - kPad;
            const bool inside = sy >= 0 && sy < m.h && sx >= 0 && sx < m.w;
            row[y * m.w + x] = inside ? in[(ch * m.h + sy) * m.w + sx] : 0.0f;
          }
        }
      }
}

/// Adjoint of im2col: accumulates `col` into `out` (zeroed first).
void col2im(const Matrix& col, const Maps& m, float* out) {
  std::fill(out, out + m.size(), 0.0f);
  for (std::int64_t ch = 0; ch < m.c; ++ch)
    for (std::int64_t ky = 0; ky < kKernel; ++ky)
      for (std::int64_t kx = 0; kx < kKernel; ++kx) {
        const float* row = col.row((ch * kKernel + ky) * kKernel + kx).data();
        for (std::int64_t y = 0; y < m.h; ++y) {
          const std::int64_t sy = y + ky - kPad;
          if (sy < 0 || sy >= m.h) continue;
          for (std::int64_t x = 0; x < m.w; ++x) {
            const std::int64_t sx = x + kx - kPad;
            if (sx >= 0 && sx < m.w) out[(ch * m.h + sy) * m.w + sx] += row[y * m.w + x];
          }
        }
      }
}

/// Same-size convolution of every example (row) of `x` with `w` (k x c*25) and bias `b`.
void conv_forward(const Matrix& x, const Maps& in, ConstWeights w, std::span<const float> b, Matrix& y) {
  const std::int64_t k = w.rows(), pixels = in.h * in.w;
  y.resize(x.rows(), k * pixels);
  Matrix col;
  const auto bias = Eigen::Map<const Eigen::VectorXf>(b.data(), k);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    im2col(x.row(i).data(), in, col);
    Eigen::Map<Matrix> out(y.row(i).data(), k, pixels);
    out.noalias() = w * col;
    out.colwise() += bias;
  }
}

/// Gradients of conv_forward: dw, db, and dx when given.
void conv_backward(const Matrix& x, const Maps& in, ConstWeights w, const Matrix& dy, Weights dw, std::span<float> db,
                   Matrix* dx) {
  const std::int64_t k = w.rows(), pixels = in.h * in.w;
  dw.setZero();
  auto bias = Eigen::Map<Eigen::VectorXf>(db.data(), k);
  bias.setZero();
  if (dx != nullptr) dx->resize(x.rows(), in.size());
  Matrix col, dcol;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    im2col(x.row(i).data(), in, col);
    const Eigen::Map<const Matrix> d(dy.row(i).data(), k, pixels);
    dw.noalias() += d * col.transpose();
    bias += d.rowwise().sum();
    if (dx != nullptr) {
      dcol.noalias() = w.transpose() * d;
      col2im(dcol, in, dx->row(i).data());
    }
  }
}

/// 2x2 max-pool with stride 2; `arg` keeps the winning input index of each output.
void pool_forward(const Matrix& x, const Maps& in, Matrix& y, std::vector<std::int32_t>& arg) {
  const std::int64_t oh = in.h / 2, ow = in.w / 2, outs = in.c * oh * ow;
  y.resize(x.rows(), outs);
  arg.resize(static_cast<std::size_t>(x.rows() * outs));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const float* src = x.row(i).data();
    for (std::int64_t ch = 0; ch < in.c; ++ch)
      for (std::int64_t y0 = 0; y0 < oh; ++y0)
        for (std::int64_t x0 = 0; x0 < ow; ++x0) {
          std::int64_t best = (ch * in.h + 2 * y0) * in.w + 2 * x0;
          for (const std::int64_t off : {std::int64_t{1}, in.w, in.w + 1}) {
            const std::int64_t j = (ch * in.h + 2 * y0) * in.w + 2 * x0 + off;
            if (src[j] > src[best]) best = j;
          }
          const std::int64_t o = (ch * oh + y0) * ow + x0;
          y(i, o) = src[best];
          arg[static_cast<std::size_t>(i * outs + o)] = static_cast<std::int32_t>(best);
        }
  }
}

/// Routes each output gradient back to its winning input.
void pool_backward(const Matrix& dy, const std::vector<std::int32_t>& arg, const Maps& in, Matrix& dx) {
  dx.setZero(dy.rows(), in.size());
  for (Eigen::Index i = 0; i < dy.rows(); ++i)
    for (Eigen::Index o = 0; o < dy.cols(); ++o) dx(i, arg[static_cast<std::size_t>(i * dy.cols() + o)]) += dy(i, o);
}

}  // namespace

Cnn::Cnn(const InputShape& input, std::int64_t conv1, std::int64_t conv2, std::uint64_t seed)
    : input_(input), k1_(conv1), k2_(conv2) {
  compressors::Rng rng(seed);
  const std::int64_t fan1 = input.channels * kKernel * kKernel, fan2 = conv1 * kKernel * kKernel;
  const std::int64_t fan_fc = conv2 * (input.height / 4) * (input.width / 4);
  add_tensor("conv1.weight", conv1, fan1, std::sqrt(2.0 / static_cast<double>(fan1)), rng);
  add_tensor("conv1.bias", conv1, 1, 0.0, rng);
  add_tensor("conv2.weight", conv2, fan2, std::sqrt(2.0 / static_cast<double>(fan2)), rng);
  add_tensor("conv2.bias", conv2, 1, 0.0, rng);
  add_tensor("fc.weight", input.classes, fan_fc, std::sqrt(1.0 / static_cast<double>(fan_fc)), rng);
  add_tensor("fc.bias", input.classes, 1, 0.0, rng);
}

void Cnn::forward(const Matrix& x, Activations& a) const {
  const Maps in{input_.channels, input_.height, input_.width};
  const Maps c1{k1_, in.h, in.w}, h1{k1_, in.h / 2, in.w / 2}, c2{k2_, h1.h, h1.w};
  const auto p = parameters();
  const auto t = tensors();
  conv_forward(x, in, view(p, t[0]), slice(p, t[1]), a.r1);
  relu_forward(a.r1);
  pool_forward(a.r1, c1, a.p1, a.arg1);
  conv_forward(a.p1, h1, view(p, t[2]), slice(p, t[3]), a.r2);
  relu_forward(a.r2);
  pool_forward(a.r2, c2, a.p2, a.arg2);
  dense_forward(a.p2, view(p, t[4]), slice(p, t[5]), a.out);
}

double Cnn::loss_and_gradient(const Matrix& x, std::span<const int> labels, std::span<float> grad) {
  forward(x, acts_);
  const Maps in{input_.channels, input_.height, input_.width};
  const Maps c1{k1_, in.h, in.w}, h1{k1_, in.h / 2, in.w / 2}, c2{k2_, h1.h, h1.w};
  const std::span<const float> p = parameters();
  const auto t = tensors();
  const double loss = softmax_cross_entropy(acts_.out, labels, dlogits_);
  dense_backward(acts_.p2, view(p, t[4]), dlogits_,
                 view(grad, t[4]), slice(grad, t[5]), &dp2_);
  pool_backward(dp2_, acts_.arg2, c2, dr2_);
  relu_backward(acts_.r2, dr2_);
  conv_backward(acts_.p1, h1, view(p, t[2]), dr2_,
                view(grad, t[2]), slice(grad, t[3]), &dp1_);
  pool_backward(dp1_, acts_.arg1, c1, dr1_);
  relu_backward(acts_.r1, dr1_);
  conv_backward(x, in, view(p, t[0]), dr1_,
                view(grad, t[0]), slice(grad, t[1]), nullptr);
  return loss;
}

Matrix Cnn::logits(const Matrix& x) const {
  Activations a;
  forward(x, a);
  return std::move(a.out);
}

}  // namespace dtsim::numerics
