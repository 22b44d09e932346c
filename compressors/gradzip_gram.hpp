#pragma once
/// GradZip's least-squares step (compressors/gradzip.cpp), shared by its host and device kernels: the
/// pseudo-inverse of a factor's Gram matrix.
#include <cstdint>
#include <vector>

namespace dtsim::compressors {

/// (F^T F)^+ for the k x r factor F (column-major), r x r column-major: the Gram matrix summed in double, its
/// Moore-Penrose inverse by Eigen's complete orthogonal decomposition (default rank threshold), rounded to fp32.
std::vector<float> gradzip_gram_inverse(const float* f, std::int64_t k, std::int64_t r);

}  // namespace dtsim::compressors
