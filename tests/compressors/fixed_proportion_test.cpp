// fixed_proportion (Dryden et al., MLHPC 2016): a proportion of each sign's elements through two thresholds, each
// side sent as its mean, in exact bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compressors/registry.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

Options proportion(double p) { return {{"proportion", p}}; }

TEST(FixedProportion, TakesAProportionOfEachSignAndSendsEachSideAsItsMean) {
  // Positives 3, 2, 0.5, 1 (P = 4): floor(4 / 2) = 2 go, 3 and 2, as 2.5; negatives -1, -4, -0.5 (N = 3): floor(1.5)
  // = 1 goes, -4; NaN and 0 are neither.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {3.0f, -1.0f, 2.0f, -4.0f, 0.5f, -0.5f, 1.0f, nan, 0.0f};
  auto c = make_compressor("fixed_proportion", proportion(0.5));
  const Compressed msg = c->compress(x, 1);
  std::vector<std::byte> want(24);
  const float means[2] = {2.5f, -4.0f};
  const std::uint32_t positives = 2;
  const std::int32_t indices[3] = {0, 2, 3};
  std::memcpy(want.data(), means, 8);
  std::memcpy(want.data() + 8, &positives, 4);
  std::memcpy(want.data() + 12, indices, 12);
  EXPECT_EQ(msg.payload, want);
  EXPECT_EQ(msg.wire_size, 24);
  std::vector<float> out(x.size());
  c->decompress(msg, out);
  EXPECT_EQ(out, (std::vector<float>{2.5f, 0.0f, 2.5f, -4.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}));
}

TEST(FixedProportion, WireIsTwelveBytesAndFourPerIndexOfMaxOneFloorPiTimesEachSidesCount) {
  for (const double p : {0.001, 0.01, 0.1, 1.0}) {
    const auto x = testing::gaussian(10007, 3);
    std::int64_t positive = 0, negative = 0;
    for (const float v : x) (v > 0 ? positive : negative) += 1;
    const auto side = [&](std::int64_t count) {
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(count) * p));
    };
    auto c = make_compressor("fixed_proportion", proportion(p));
    EXPECT_EQ(c->compress(x, 1).wire_size, 12 + 4 * (side(positive) + side(negative))) << p;
  }
  EXPECT_EQ(make_compressor("fixed_proportion")->compress(std::vector<float>{}, 1).wire_size, 12);
}

TEST(FixedProportion, TwoLevelTensorsComeBackExactlyAtProportionOne) {
  const std::vector<float> x = {2.0f, -3.0f, 2.0f, 0.0f, -3.0f, 2.0f};
  auto c = make_compressor("fixed_proportion", proportion(1.0));
  std::vector<float> out(x.size());
  c->decompress(c->compress(x, 1), out);
  EXPECT_EQ(out, x);
}

TEST(FixedProportion, ProportionOutsideZeroToOneIsAnInputError) {
  EXPECT_THROW(make_compressor("fixed_proportion", proportion(0.0)), core::InputError);
  EXPECT_THROW(make_compressor("fixed_proportion", proportion(1.5)), core::InputError);
}

}  // namespace
}  // namespace dtsim::compressors
