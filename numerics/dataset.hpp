#pragma once
/// Labelled examples in memory, synthetic data sets drawn from a seed, and the train/test split.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace dtsim::numerics {

/// Row-major float matrix: one example (or one activation vector) per row.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Shape of one example (channels x height x width, stored CHW in a row) and the class count.
struct InputShape {
  std::int64_t channels = 1;  ///< image channels (1 for plain feature vectors)
  std::int64_t height = 1;    ///< image rows (1 for plain feature vectors)
  std::int64_t width = 1;     ///< image columns, or the feature count
  int classes = 2;            ///< labels are in [0, classes)
  /// Features per example: channels * height * width.
  std::int64_t features() const { return channels * height * width; }
};

/// Examples (rows of `features`) with their labels.
struct Dataset {
  Matrix features;          ///< examples x shape.features()
  std::vector<int> labels;  ///< one label per example
  InputShape shape;         ///< example shape and class count
  /// Number of examples.
  std::int64_t size() const { return static_cast<std::int64_t>(labels.size()); }
};

/// Parameters of the Gaussian-mixture data set: class c draws x ~ N(mu_c, I), mu_c ~ N(0, separation^2 I).
struct GaussianMixtureSpec {
  std::int64_t examples = 4096;  ///< number of examples
  std::int64_t dims = 32;        ///< features per example
  int classes = 10;              ///< number of mixture components (labels, drawn uniformly)
  double separation = 0.5;       ///< standard deviation of the class means
  std::uint64_t seed = 1;        ///< same seed, same bits
};

/// Parameters of the teacher-network data set: x ~ N(0, I), label = argmax of a random ReLU MLP.
struct TeacherSpec {
  std::int64_t examples = 4096;  ///< number of examples
  std::int64_t dims = 32;        ///< features per example
  int classes = 10;              ///< outputs of the teacher
  std::int64_t hidden = 64;      ///< width of the teacher's single hidden layer
  std::uint64_t seed = 1;        ///< same seed, same bits
};

/// Draws a Gaussian-mixture data set; InputError on non-positive sizes.
Dataset gaussian_mixture(const GaussianMixtureSpec& spec);

/// Draws a teacher-network data set; InputError on non-positive sizes.
Dataset teacher_network(const TeacherSpec& spec);

/// The examples `rows` of `data`, in that order.
Dataset subset(const Dataset& data, std::span<const std::int64_t> rows);

/// A seeded shuffle of `data` cut into (train, test); test gets round(size * test_fraction) examples.
std::pair<Dataset, Dataset> train_test_split(const Dataset& data, double test_fraction, std::uint64_t seed);

}  // namespace dtsim::numerics
