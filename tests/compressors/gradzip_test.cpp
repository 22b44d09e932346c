// gradzip: GradZip of Cho et al. (2019): each factor the least-squares solution given the other, exact on low-rank
// matrices, linear in the gradient so the all-reduced factors are the summed gradient's, warm start reaching the
// best rank-r approximation, and the exact bytes of both rounds.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "compressors/registry.hpp"
#include "compressors/wire.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

using Matrix = Eigen::MatrixXf;
constexpr std::int64_t kRows = 40, kCols = 30;

// The workers' exchange of tensor 1: compress, all-reduce P, next round, all-reduce Q, expand. Returns the sum.
std::vector<float> low_rank_exchange(std::vector<std::unique_ptr<Compressor>>& workers, const std::vector<std::vector<float>>& grads,
                            std::vector<Compressed>* rounds = nullptr) {
  std::vector<Compressed> first, second;
  for (std::size_t w = 0; w < workers.size(); ++w) first.push_back(workers[w]->compress(grads[w], 1));
  const Compressed p = workers[0]->reduce(first);
  for (auto& worker : workers) second.push_back(worker->next_round(p));
  if (rounds) *rounds = {first[0], second[0]};
  std::vector<float> sum(grads[0].size());
  aggregate(*workers[0], second, sum);
  return sum;
}

std::vector<std::unique_ptr<Compressor>> make_workers(int count, std::int64_t rank) {
  std::vector<std::unique_ptr<Compressor>> workers;
  for (int w = 0; w < count; ++w) {
    workers.push_back(make_compressor("gradzip", {{"rank", rank}}));
    workers.back()->set_shape(1, kRows, kCols);
  }
  return workers;
}

Matrix as_matrix(const std::vector<float>& x) {
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(x.data(), kRows, kCols);
}

TEST(GradZip, ExactOnARankTwoMatrixWithTheBytesOfBothRounds) {
  const auto a = testing::gaussian(2 * kRows, 3), b = testing::gaussian(2 * kCols, 4);
  std::vector<float> m(kRows * kCols);
  for (std::int64_t i = 0; i < kRows; ++i)
    for (std::int64_t j = 0; j < kCols; ++j) m[i * kCols + j] = a[i] * b[j] + a[kRows + i] * b[kCols + j];
  auto workers = make_workers(1, 2);
  std::vector<Compressed> rounds;
  const auto out = low_rank_exchange(workers, {m}, &rounds);
  EXPECT_EQ(rounds[0].how, Aggregation::kLowRank);
  EXPECT_EQ(rounds[0].wire_size, 4 * kRows * 2);  // P: rows x r fp32
  EXPECT_EQ(rounds[1].wire_size, 4 * kCols * 2);  // Q: cols x r fp32
  for (std::size_t i = 0; i < m.size(); ++i) EXPECT_NEAR(out[i], m[i], 1e-4) << i;
}

TEST(GradZip, EachFactorSolvesTheNormalEquationsGivenTheOther) {
  // Round 1's Q minimises ||M - P Q^T||: P^T (M - P Q^T) = 0, to fp32 rounding of the entries' scale.
  const auto x = testing::gaussian(kRows * kCols, 8);
  auto workers = make_workers(1, 3);
  std::vector<Compressed> rounds;
  low_rank_exchange(workers, {x}, &rounds);
  const Matrix p = Eigen::Map<const Matrix>(rounds[1].shared.data(), kRows, 3);
  Matrix q(kCols, 3);
  std::memcpy(q.data(), rounds[1].payload.data(), rounds[1].payload.size());
  const Matrix residual = p.transpose() * (as_matrix(x) - p * q.transpose());
  EXPECT_LT(residual.cwiseAbs().maxCoeff(), 1e-3f * (p.transpose() * as_matrix(x)).cwiseAbs().maxCoeff());
}

TEST(GradZip, AllReducedFactorsAreTheSummedGradientsAsBothStepsAreLinear) {
  // Three workers from one seed start from one Q: the all-reduced exchange equals one worker's on the sum.
  std::vector<std::vector<float>> grads;
  std::vector<float> total(kRows * kCols, 0.0f);
  for (int w = 0; w < 3; ++w) {
    grads.push_back(testing::gaussian(kRows * kCols, 20 + w));
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += grads.back()[i];
  }
  auto three = make_workers(3, 2), one = make_workers(1, 2);
  const auto summed = low_rank_exchange(three, grads), direct = low_rank_exchange(one, {total});
  for (std::size_t i = 0; i < total.size(); ++i) EXPECT_NEAR(summed[i], direct[i], 1e-4) << i;
}

TEST(GradZip, WarmStartConvergesToTheBestRankOneApproximation) {
  // Alternating least squares from the last Q is a power iteration: on one matrix the error falls to
  // Eckart-Young's sqrt(sum_{i>1} sigma_i^2).
  const auto x = testing::gaussian(kRows * kCols, 31);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(as_matrix(x).cast<double>());
  const Eigen::VectorXd sigma = svd.singularValues();
  const double best = std::sqrt(sigma.squaredNorm() - sigma(0) * sigma(0));
  auto workers = make_workers(1, 1);
  double previous = HUGE_VAL, error = 0.0;
  for (int step = 0; step < 200; ++step) {
    const auto out = low_rank_exchange(workers, {x});
    error = (as_matrix(x) - as_matrix(out)).cast<double>().norm();
    EXPECT_LE(error, previous * (1 + 1e-5)) << step;
    previous = error;
  }
  EXPECT_NEAR(error, best, 1e-4 * best);
}

TEST(GradZip, FactorsKeepTheGradientsScaleOverManyWorkersAndSteps) {
  // Each worker starts from its own last Q: unscaled, the sum of eight workers' P drifted by a constant factor a
  // step (here to 1e19 times its first norm after 40 steps; on the numerics model down to zero, and training
  // stopped). With the warm start's columns at unit norm, P stays at the scale of M q for unit q.
  auto workers = make_workers(8, 1);
  double first = 0.0, last = 0.0;
  for (int step = 0; step < 40; ++step) {
    std::vector<std::vector<float>> grads;
    for (std::uint64_t w = 0; w < 8; ++w) grads.push_back(testing::gaussian(kRows * kCols, 100 * step + w));
    std::vector<Compressed> rounds;
    low_rank_exchange(workers, grads, &rounds);
    const double norm = Eigen::Map<const Eigen::VectorXf>(rounds[1].shared.data(), kRows).cast<double>().norm();
    (step == 0 ? first : last) = norm;
  }
  EXPECT_GT(last, 0.1 * first);
  EXPECT_LT(last, 10 * first);
}

TEST(GradZip, ASmallTensorGoesUncompressedAsOneAllReduce) {
  auto c = make_compressor("gradzip", {{"rank", std::int64_t{4}}});
  const auto x = testing::gaussian(9, 2);  // 3 x 3: r' (3 + 3) >= 9
  const Compressed msg = c->compress(x, 5);
  EXPECT_EQ(msg.how, Aggregation::kAllReduce);
  EXPECT_EQ(msg.wire_size, 36);
}

}  // namespace
}  // namespace dtsim::compressors
