// The contract every registered compressor keeps, run over the whole registry.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

using testing::gaussian;

std::vector<std::string> all_names() {
  std::vector<std::string> names;
  for (const CompressorEntry& entry : compressor_registry()) names.emplace_back(entry.name);
  return names;
}

// One full exchange of `x`, checking wire_size == payload size on every round.
std::vector<float> exchange(Compressor& c, const std::vector<float>& x, TensorId id, std::vector<std::vector<std::byte>>* wire = nullptr) {
  Compressed msg = c.compress(x, id);
  EXPECT_EQ(msg.wire_size, static_cast<core::Bytes>(msg.payload.size()));
  EXPECT_EQ(msg.numel, static_cast<std::int64_t>(x.size()));
  if (wire) wire->push_back(msg.payload);
  if (msg.how == Aggregation::kLowRank) {
    msg = c.next_round(c.reduce(std::span<const Compressed>(&msg, 1)));
    EXPECT_EQ(msg.wire_size, static_cast<core::Bytes>(msg.payload.size()));
    if (wire) wire->push_back(msg.payload);
  }
  std::vector<float> out(x.size(), 12345.0f);
  aggregate(c, std::span<const Compressed>(&msg, 1), out);
  return out;
}

class Contract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Compressor> make() const { return make_compressor(GetParam()); }
};

TEST_P(Contract, NameIsTheRegistryKey) { EXPECT_EQ(make()->name(), GetParam()); }

TEST_P(Contract, WireSizeIsPayloadSizeForManyLengths) {
  for (const std::size_t n : {1u, 2u, 7u, 64u, 1000u, 4099u}) {
    auto c = make();
    const auto x = gaussian(n, 7 + n);
    const auto out = exchange(*c, x, 3);
    for (const float v : out) EXPECT_TRUE(std::isfinite(v)) << GetParam() << " n=" << n;
  }
}

TEST_P(Contract, SameSeedSameBits) {
  auto a = make();
  auto b = make();
  for (int step = 0; step < 3; ++step) {
    const auto x = gaussian(3000, 11 + step);
    std::vector<std::vector<std::byte>> wa, wb;
    const auto ra = exchange(*a, x, 5, &wa);
    const auto rb = exchange(*b, x, 5, &wb);
    EXPECT_EQ(wa, wb) << GetParam() << " step " << step;
    EXPECT_EQ(ra, rb);
  }
}

TEST_P(Contract, EmptyTensor) {
  auto c = make();
  const std::vector<float> x;
  const auto out = exchange(*c, x, 1);
  EXPECT_TRUE(out.empty());
}

TEST_P(Contract, LengthOne) {
  auto c = make();
  const std::vector<float> x{-0.75f};
  const auto out = exchange(*c, x, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(std::isfinite(out[0]));
}

TEST_P(Contract, NanAndInfGiveADefinedResult) {
  auto x = gaussian(500, 3);
  x[10] = std::numeric_limits<float>::quiet_NaN();
  x[20] = std::numeric_limits<float>::infinity();
  x[30] = -std::numeric_limits<float>::infinity();
  std::vector<float> first, second;
  for (std::vector<float>* result : {&first, &second}) {
    auto c = make();
    try {
      *result = exchange(*c, x, 2);
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(';'), std::string::npos);  // "problem; what is allowed"
      return;
    }
  }
  ASSERT_EQ(first.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isnan(first[i]) || !std::isnan(second[i])) {
      EXPECT_EQ(first[i], second[i]) << i;
    }
  }
}

TEST_P(Contract, StateIsPerTensor) {
  // Interleaving another tensor does not change what tensor 1 sends.
  auto a = make();
  auto b = make();
  const auto x = gaussian(2048, 21), y = gaussian(512, 22);
  std::vector<std::vector<std::byte>> wa, wb, ignore;
  exchange(*a, x, 1, &wa);
  exchange(*b, y, 9, &ignore);
  exchange(*b, x, 1, &wb);
  exchange(*a, x, 1, &wa);
  exchange(*b, y, 9, &ignore);
  exchange(*b, x, 1, &wb);
  EXPECT_EQ(wa, wb);
}

TEST_P(Contract, UnknownParameterIsAnInputError) {
  try {
    make_compressor(GetParam(), Options{{"no_such_knob", std::int64_t{1}}});
    FAIL() << "accepted an unknown parameter";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_knob"), std::string::npos);
    EXPECT_NE(e.allowed().find("known:"), std::string::npos);
  }
}

// Every compressor that claims unbiasedness with its defaults (read from the registry, so a new one is tested
// without being listed), plus configurations that make a biased default unbiased.
struct UnbiasedCase {
  std::string name;
  Options options;
};

std::vector<UnbiasedCase> unbiased_cases() {
  std::vector<UnbiasedCase> cases;
  for (const CompressorEntry& entry : compressor_registry())
    if (entry.make({})->unbiased()) cases.push_back({std::string(entry.name), {}});
  cases.push_back({"qsgd", {{"levels", std::int64_t{3}}, {"bucket_size", std::int64_t{16}}}});
  cases.push_back({"terngrad", {{"clip", 0.0}}});
  cases.push_back({"randomk", {{"ratio", 0.25}, {"rescale", true}}});
  return cases;
}

class Unbiased : public ::testing::TestWithParam<UnbiasedCase> {};

TEST_P(Unbiased, MonteCarloMeanMatchesTheInput) {
  auto c = make_compressor(GetParam().name, GetParam().options);
  ASSERT_TRUE(c->unbiased());
  const auto x = gaussian(48, 99);
  const int trials = 4000;
  std::vector<double> sum(x.size(), 0.0), sum_sq(x.size(), 0.0);
  for (int t = 0; t < trials; ++t) {
    const auto out = exchange(*c, x, 4);  // each call is a new step: fresh randomness
    for (std::size_t i = 0; i < x.size(); ++i) {
      sum[i] += out[i];
      sum_sq[i] += static_cast<double>(out[i]) * out[i];
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double mean = sum[i] / trials;
    const double var = std::max(0.0, sum_sq[i] / trials - mean * mean);
    EXPECT_NEAR(mean, x[i], 5.0 * std::sqrt(var / trials) + 1e-6) << GetParam().name << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(StochasticCompressors, Unbiased, ::testing::ValuesIn(unbiased_cases()),
                         [](const auto& info) { return info.param.name + std::to_string(info.index); });

TEST_P(Contract, WorksUnderResidualErrorFeedbackOrRefusesItWhenItKeepsItsOwnResidual) {
  if (make()->wants_second_moment()) {  // variance_based: its r is the memory; the layer would add it twice
    EXPECT_THROW(make_error_feedback("residual", make()), core::InputError);
    return;
  }
  auto c = make_error_feedback("residual", make());
  const auto x = gaussian(1024, 5);
  for (int step = 0; step < 3; ++step) exchange(*c, x, 8);
  EXPECT_EQ(c->name(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllCompressors, Contract, ::testing::ValuesIn(all_names()),
                         [](const auto& info) { return info.param; });

TEST(Registry, UnknownNameListsTheKnownOnes) {
  try {
    make_compressor("zip");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(e.allowed().find("topk"), std::string::npos);
    EXPECT_NE(e.allowed().find("powersgd"), std::string::npos);
  }
  EXPECT_THROW(make_error_feedback("magic", make_compressor("none")), core::InputError);
}

TEST(Registry, BadParameterValuesAreInputErrors) {
  EXPECT_THROW(make_compressor("topk", {{"ratio", 0.0}}), core::InputError);
  EXPECT_THROW(make_compressor("topk", {{"ratio", std::string("many")}}), core::InputError);
  EXPECT_THROW(make_compressor("qsgd", {{"levels", std::int64_t{0}}}), core::InputError);
  EXPECT_THROW(make_compressor("qsgd", {{"levels", 2.5}}), core::InputError);
  EXPECT_THROW(make_compressor("sidco", {{"distribution", std::string("cauchy")}}), core::InputError);
  EXPECT_THROW(make_compressor("polar", {{"block", std::int64_t{1000}}}), core::InputError);
  EXPECT_THROW(make_compressor("randomk", {{"rescale", std::int64_t{1}}}), core::InputError);
  EXPECT_NO_THROW(make_compressor("topk", {{"ratio", std::int64_t{1}}}));  // integers are numbers
  try {
    make_compressor("topk", {{"ratio", 2.0}});
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "compressor 'topk': parameter 'ratio' = 2 is out of range; allowed: a number in (0, 1]");
  }
}

}  // namespace
}  // namespace dtsim::compressors
