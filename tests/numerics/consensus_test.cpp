// Model averaging, gossip mixing and the consensus distance.
#include <gtest/gtest.h>

#include "numerics/consensus.hpp"

namespace dtsim::numerics {
namespace {

TEST(Consensus, EqualReplicasAverageToThemselvesBitForBit) {
  const std::vector<float> x = {0.1f, -3.3f, 1e-7f, 12345.679f};
  for (const int n : {1, 3, 7, 8}) {
    const Models models(static_cast<std::size_t>(n), x);
    std::vector<float> out(x.size());
    average(models, out);
    EXPECT_EQ(out, x) << n;
    EXPECT_EQ(consensus_distance(models), 0.0);
  }
}

TEST(Consensus, DistanceIsTheMeanSquaredDeviationFromTheAverage) {
  const std::vector<float> a = {1.0f, 0.0f}, b = {3.0f, 4.0f};
  const Models models = {a, b};
  std::vector<float> out(2);
  average(models, out);
  EXPECT_EQ(out, (std::vector<float>{2.0f, 2.0f}));
  EXPECT_DOUBLE_EQ(consensus_distance(models), (1.0 + 4.0 + 1.0 + 4.0) / 2.0);
}

TEST(Consensus, MixingAppliesTheMatrixRowByRow) {
  const std::vector<float> a = {1.0f, 2.0f}, b = {3.0f, 6.0f};
  const std::vector<double> w = {0.75, 0.25, 0.25, 0.75};
  std::vector<float> x(2), y(2);
  const std::vector<std::span<float>> out = {x, y};
  mix(w, {a, b}, out);
  EXPECT_EQ(x, (std::vector<float>{1.5f, 3.0f}));
  EXPECT_EQ(y, (std::vector<float>{2.5f, 5.0f}));
  EXPECT_LT(consensus_distance({x, y}), consensus_distance({a, b}));
}

}  // namespace
}  // namespace dtsim::numerics
