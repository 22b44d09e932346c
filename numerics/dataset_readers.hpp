#pragma once
/// Readers for the MNIST IDX files (LeCun et al., http://yann.lecun.com/exdb/mnist/) and the
/// CIFAR-10 binary batches (Krizhevsky, "Learning multiple layers of features from tiny images",
/// 2009). Pixels become floats in [0, 1]. Errors are core::InputError located "path:1:col", a
/// binary file read as one line whose column is the 1-based byte offset of the problem.
#include <span>
#include <string>

#include "numerics/dataset.hpp"

namespace dtsim::numerics {

/// Reads an IDX image file (magic 0x00000803) and its IDX label file (magic 0x00000801).
Dataset read_mnist(const std::string& images_path, const std::string& labels_path);

/// Reads and concatenates CIFAR-10 binary batches (records of 1 label byte + 3072 CHW pixel bytes).
Dataset read_cifar10(std::span<const std::string> paths);

}  // namespace dtsim::numerics
