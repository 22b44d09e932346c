#include "numerics/dataset.hpp"

#include <cmath>
#include <string>

#include "numerics/mlp.hpp"
#include "numerics/random.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

void check_sizes(const char* what, std::int64_t examples, std::int64_t dims, int classes) {
  if (examples < 1 || dims < 1 || classes < 2) {
    throw core::InputError(std::string(what) + " data set of " + std::to_string(examples) + " examples, " +
                               std::to_string(dims) + " dims, " + std::to_string(classes) + " classes",
                           "examples >= 1, dims >= 1, classes >= 2");
  }
}

Dataset empty_set(std::int64_t examples, std::int64_t dims, int classes) {
  Dataset data;
  data.features.resize(examples, dims);
  data.labels.resize(static_cast<std::size_t>(examples));
  data.shape = InputShape{1, 1, dims, classes};
  return data;
}

void fill_normal(compressors::Rng& rng, Matrix& m) {
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal());
}

}  // namespace

Dataset gaussian_mixture(const GaussianMixtureSpec& spec) {
  check_sizes("gaussian_mixture", spec.examples, spec.dims, spec.classes);
  compressors::Rng rng(spec.seed);
  Matrix means(spec.classes, spec.dims);
  fill_normal(rng, means);
  means *= static_cast<float>(spec.separation);
  Dataset data = empty_set(spec.examples, spec.dims, spec.classes);
  fill_normal(rng, data.features);
  for (std::int64_t i = 0; i < spec.examples; ++i) {
    const int c = static_cast<int>(rng.below(static_cast<std::uint64_t>(spec.classes)));
    data.labels[static_cast<std::size_t>(i)] = c;
    data.features.row(i) += means.row(c);
  }
  return data;
}

Dataset teacher_network(const TeacherSpec& spec) {
  check_sizes("teacher_network", spec.examples, spec.dims, spec.classes);
  if (spec.hidden < 1) {
    throw core::InputError("teacher_network hidden width " + std::to_string(spec.hidden), "hidden >= 1");
  }
  compressors::Rng rng(spec.seed);
  const std::int64_t hidden[] = {spec.hidden};
  const Mlp teacher(spec.dims, hidden, spec.classes, compressors::stream_seed(spec.seed, 1, 0));
  Dataset data = empty_set(spec.examples, spec.dims, spec.classes);
  fill_normal(rng, data.features);
  const Matrix scores = teacher.logits(data.features);
  for (std::int64_t i = 0; i < spec.examples; ++i) {
    Eigen::Index best = 0;
    scores.row(i).maxCoeff(&best);
    data.labels[static_cast<std::size_t>(i)] = static_cast<int>(best);
  }
  return data;
}

Dataset subset(const Dataset& data, std::span<const std::int64_t> rows) {
  Dataset out;
  out.shape = data.shape;
  out.features.resize(static_cast<Eigen::Index>(rows.size()), data.features.cols());
  out.labels.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.features.row(static_cast<Eigen::Index>(i)) = data.features.row(rows[i]);
    out.labels[i] = data.labels[static_cast<std::size_t>(rows[i])];
  }
  return out;
}

std::pair<Dataset, Dataset> train_test_split(const Dataset& data, double test_fraction, std::uint64_t seed) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    throw core::InputError("test fraction " + std::to_string(test_fraction), "a fraction in (0, 1)");
  }
  compressors::Rng rng(seed);
  const std::vector<std::int64_t> order = permutation(rng, data.size());
  const auto test = static_cast<std::size_t>(std::llround(static_cast<double>(data.size()) * test_fraction));
  if (test == 0 || test == order.size()) {
    throw core::InputError("a test fraction of " + std::to_string(test_fraction) + " of " +
                               std::to_string(data.size()) + " examples leaves one side empty",
                           "a fraction that keeps at least one example on each side");
  }
  const std::span<const std::int64_t> all(order);
  return {subset(data, all.subspan(test)), subset(data, all.first(test))};
}

}  // namespace dtsim::numerics
