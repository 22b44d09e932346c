#pragma once
/// The Eigen side of the low-rank compressors (powersgd, gradzip): a tensor as its padded matrix (powersgd_view.hpp)
/// and factors to and from the wire, column-major fp32.
#include <Eigen/Dense>
#include <cstring>
#include <span>
#include <vector>

#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors::low_rank {

using Matrix = Eigen::MatrixXf;
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The tensor as a rows x cols matrix, row-major order, zero-padded after its last element.
inline Matrix padded(std::span<const float> grad, Eigen::Index rows, Eigen::Index cols) {
  Matrix m = Matrix::Zero(rows, cols);
  const std::size_t full_rows = grad.size() / static_cast<std::size_t>(cols);
  m.topRows(static_cast<Eigen::Index>(full_rows)) =
      Eigen::Map<const RowMajor>(grad.data(), static_cast<Eigen::Index>(full_rows), cols);
  for (std::size_t i = full_rows * static_cast<std::size_t>(cols); i < grad.size(); ++i)
    m(static_cast<Eigen::Index>(full_rows), static_cast<Eigen::Index>(i % static_cast<std::size_t>(cols))) = grad[i];
  return m;
}

/// Appends m, column-major fp32.
inline void put_matrix(std::vector<std::byte>& out, const Matrix& m) {
  wire::put(out, std::span<const float>(m.data(), static_cast<std::size_t>(m.size())));
}

/// A rows x cols matrix from column-major fp32 bytes.
inline Matrix get_matrix(std::span<const std::byte> in, Eigen::Index rows, Eigen::Index cols) {
  Matrix m(rows, cols);
  DTSIM_CHECK(in.size() == static_cast<std::size_t>(m.size()) * 4, "low-rank payload does not match the matrix");
  if (m.size() > 0) std::memcpy(m.data(), in.data(), in.size());
  return m;
}

/// out = p q^T, the first out.size() elements in row-major order (p: rows x r, q: cols x r).
inline void expand(const Matrix& p, const Matrix& q, std::span<float> out) {
  const RowMajor m = p * q.transpose();
  if (!out.empty()) std::memcpy(out.data(), m.data(), out.size_bytes());
}

}  // namespace dtsim::compressors::low_rank
