// redsync: RedSync's trimmed top-k and threshold binary search (Fang et al., JPDC 2019): the thresholds between
// the mean and the maximum magnitude, the elements sent and the exact wire bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compressors/registry.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

// x_i = i / 1000, i < 1000: mean |x| = 0.4995, max |x| = 0.999, so threshold(r) = 0.4995 (1 + r).
std::vector<float> ramp() {
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) / 1000.0f;
  return x;
}

TEST(RedSync, BinarySearchBisectsTheRatioUntilKToTwoKPassAndSendsThemAll) {
  // k = 10. r = 1/2: tau = 0.74925 passes 250 > 2k; 3/4: 0.874 passes 125; 7/8: 0.937 passes 63; 15/16: 0.968
  // passes 32; 31/32: 0.98339 passes i >= 984, 16 in [k, 2k]: stop and send those 16.
  const auto x = ramp();
  auto c = make_compressor("redsync", {{"ratio", 0.01}, {"selection", std::string("binary_search")}});
  const Compressed msg = c->compress(x, 1);
  std::vector<std::int64_t> expected;
  for (std::int64_t i = 984; i < 1000; ++i) expected.push_back(i);
  EXPECT_EQ(testing::sparse_indices(msg), expected);
  ASSERT_EQ(msg.wire_size, 16 * (4 + 4));
  for (std::size_t p = 0; p < 16; ++p) EXPECT_EQ(wire::get<float>(msg.payload, 64 + 4 * p), x[984 + p]);
  std::vector<float> out(x.size());
  c->decompress(msg, out);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out[i], i >= 984 ? x[i] : 0.0f) << i;
}

TEST(RedSync, TrimmedStopsAtTheFirstRatioPassingKThenSendsExactlyTheTopK) {
  // Ramp, k = 10: r = 0.8 gives tau = 0.8991, 100 candidates >= k; the top 10 of them are 990..999.
  const auto x = ramp();
  auto c = make_compressor("redsync", {{"ratio", 0.01}});
  const Compressed msg = c->compress(x, 1);
  std::vector<std::int64_t> expected;
  for (std::int64_t i = 990; i < 1000; ++i) expected.push_back(i);
  EXPECT_EQ(testing::sparse_indices(msg), expected);
  EXPECT_EQ(msg.wire_size, 10 * 8);
}

TEST(RedSync, TrimmedTopKIsByteForByteTheExactTopK) {
  // Gaussian (r = 0.4 is the first to pass k: the trim keeps a few k) and Laplace tensors, and a constant one
  // (even the mean passes nothing: every element is a candidate, ties to the lower index as topk).
  std::vector<std::vector<float>> inputs{testing::gaussian(100000, 3), testing::laplace(30000, 4),
                                         std::vector<float>(1000, 0.5f)};
  for (const double ratio : {0.001, 0.01, 0.2}) {
    for (const auto& x : inputs) {
      auto red = make_compressor("redsync", {{"ratio", ratio}});
      auto top = make_compressor("topk", {{"ratio", ratio}});
      EXPECT_EQ(red->compress(x, 1).payload, top->compress(x, 1).payload) << ratio << " n=" << x.size();
    }
  }
}

TEST(RedSync, BinarySearchOnGaussianDataSendsBetweenKAndTwoKOfTheLargest) {
  const auto x = testing::gaussian(100000, 8);
  auto c = make_compressor("redsync", {{"ratio", 0.01}, {"selection", std::string("binary_search")}});
  const Compressed msg = c->compress(x, 1);
  const auto kept = testing::sparse_indices(msg);
  EXPECT_GE(kept.size(), 1000u);
  EXPECT_LE(kept.size(), 2000u);
  EXPECT_EQ(msg.wire_size, static_cast<core::Bytes>(8 * kept.size()));
  // A threshold: every element sent is larger than every element not sent.
  float smallest_sent = HUGE_VALF, largest_skipped = 0.0f;
  std::size_t next = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (next < kept.size() && kept[next] == static_cast<std::int64_t>(i)) {
      smallest_sent = std::min(smallest_sent, std::fabs(x[i]));
      ++next;
    } else {
      largest_skipped = std::max(largest_skipped, std::fabs(x[i]));
    }
  }
  EXPECT_GT(smallest_sent, largest_skipped);
}

TEST(RedSync, UnknownSelectionIsAnInputError) {
  try {
    make_compressor("redsync", {{"selection", std::string("sampled")}});
    FAIL() << "accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(e.allowed().find("trimmed, binary_search"), std::string::npos) << e.allowed();
  }
}

}  // namespace
}  // namespace dtsim::compressors
