#pragma once
/// The matrix PowerSGD (compressors/powersgd.cpp) compresses a tensor as, and its first Q, shared by its host and
/// device kernels.
#include <cstdint>
#include <vector>

namespace dtsim::compressors {

/// A tensor of n elements as a rows x cols matrix (row-major, zero-padded) of rank r' = min(rank, rows, cols).
struct PowerSgdView {
  std::int64_t rows = 0, cols = 0;  ///< the matrix
  std::int64_t rank = 0;            ///< r'
  /// False when r' (rows + cols) >= rows cols (or the tensor is empty): the tensor goes uncompressed.
  bool compressed() const { return rows * cols > 0 && rank * (rows + cols) < rows * cols; }
};

/// The view of n elements: the declared shape (declared_cols > 0) or a ceil(sqrt(n)) square.
PowerSgdView powersgd_view(std::int64_t declared_rows, std::int64_t declared_cols, std::int64_t n, std::int64_t rank);

/// The first Q (cols x r, column-major): N(0, 1) draws of stream stream_seed(seed, tensor, step).
std::vector<float> powersgd_initial_q(std::uint64_t seed, std::uint64_t tensor, std::uint64_t step, std::int64_t cols,
                                      std::int64_t rank);

}  // namespace dtsim::compressors
