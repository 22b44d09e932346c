// variance_based (Tsuzuku, Imachi & Akiba, ICLR 2018 workshop): the rule r^2 > alpha v with its accumulation and
// decay, the power-of-two codes, the exact wire bytes, and what it refuses.
#include <gtest/gtest.h>

#include <cstring>

#include "compressors/element_codecs.hpp"
#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

std::vector<std::byte> bytes(float top, std::vector<std::int32_t> indices, std::vector<std::uint8_t> codes) {
  std::vector<std::byte> out(4 + 4 * indices.size());
  std::memcpy(out.data(), &top, 4);
  std::memcpy(out.data() + 4, indices.data(), 4 * indices.size());
  for (const std::uint8_t c : codes) out.push_back(static_cast<std::byte>(c));
  return out;
}

Compressed step(Compressor& c, std::vector<float> g, std::vector<float> m) {
  c.observe_second_moment(3, m);
  return c.compress(g, 3);
}

TEST(VarianceBased, SendsWhatIsLargeAgainstItsVarianceAndKeepsTheRest) {
  // alpha = 2, zeta = 0.5. Step 1: 1^2 > 2 * 0.4 goes; 0.1^2 <= 2 * 0.01 and 1^2 <= 2 * 0.6 wait and their
  // variances halve (0.005, 0.3); 0 never goes. Step 2: r = (0, 0.2, -2), v = (0, 0.015, 0.5): 0.04 > 0.03 and 4 > 1 go, top = 2;
  // 0.2 = 2 * 2^-3.32 codes as k = 3 (0.25), -2 as sign | k = 0.
  auto c = make_compressor("variance_based", {{"alpha", 2.0}, {"zeta", 0.5}});
  ASSERT_TRUE(c->wants_second_moment());
  const Compressed first = step(*c, {1.0f, 0.1f, -1.0f, 0.0f}, {0.4f, 0.01f, 0.6f, 0.0f});
  EXPECT_EQ(first.payload, bytes(1.0f, {0}, {0x00}));
  EXPECT_EQ(first.wire_size, 9);
  const Compressed second = step(*c, {0.0f, 0.1f, -1.0f, 0.0f}, {0.0f, 0.01f, 0.2f, 0.0f});
  EXPECT_EQ(second.payload, bytes(2.0f, {1, 2}, {0x83}));
  std::vector<float> out(4);
  c->decompress(second, out);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.25f, -2.0f, 0.0f}));
}

TEST(VarianceBased, ConstantGradientGoesOnceItsSquaredSumPassesAlphaTimesItsVariance) {
  // g = 1 and m = 10 every step, zeta = 1: after t steps r = t and v = 10 t, so it first goes at t = 21
  // (441 > 420; 400 > 400 fails); an element without variance goes every step, exactly while it is the top, and as
  // 21 * 2^-5 (0.5 / 21 = 1.52 * 2^-6 rounds to 2^-5) once 21 is.
  auto c = make_compressor("variance_based", {{"alpha", 2.0}, {"zeta", 1.0}});
  for (int t = 1; t <= 21; ++t) {
    const Compressed msg = step(*c, {1.0f, 0.5f}, {10.0f, 0.0f});
    std::vector<float> out(2);
    c->decompress(msg, out);
    EXPECT_EQ(out[0], t == 21 ? 21.0f : 0.0f) << t;
    EXPECT_EQ(out[1], t == 21 ? 0.65625f : 0.5f) << t;
  }
}

TEST(VarianceBased, CodesRoundToThePowerOfTwoNearestInTheLogDomain) {
  struct Case {
    float v;
    std::uint32_t code;
  };
  // 0.75 = 1.5 * 2^-1 and 1.5 > sqrt 2: k = 0; 0.7 = 1.4 * 2^-1: k = 1; 2^-7 and below: k = 7; the sign is bit 3.
  for (const Case& c : {Case{4.0f, 0}, Case{3.0f, 0}, Case{2.8f, 1}, Case{-1.0f, 8 | 2}, Case{0.03125f, 7},
                        Case{0.001f, 7}, Case{-0.0f, 8 | 7}})
    EXPECT_EQ(to_power_code(c.v, 4.0f), c.code) << c.v;
  for (std::uint32_t k = 0; k < 16; ++k)
    EXPECT_EQ(from_power_code(k, 4.0f), (k & 8 ? -4.0f : 4.0f) / static_cast<float>(1u << (k & 7))) << k;
}

TEST(VarianceBased, WithoutSamplesTheTimeLineSendsTheExpectedDensityInExactBytes) {
  // [fp32 top][c int32 indices][ceil(c / 2) code bytes], c = max(1, floor(n density)) largest magnitudes.
  const struct {
    std::size_t n;
    double density;
    core::Bytes wire;
  } cases[] = {{1000, 0.01, 4 + 40 + 5}, {1000, 0.003, 4 + 12 + 2}, {5, 0.01, 4 + 4 + 1}, {0, 0.01, 4}};
  for (const auto& k : cases) {
    auto c = make_compressor("variance_based", {{"density", k.density}});
    EXPECT_EQ(c->compress(testing::gaussian(k.n, 4), 1).wire_size, k.wire) << k.n << " " << k.density;
  }
  auto c = make_compressor("variance_based", {{"density", 0.5}});
  const Compressed msg = c->compress(std::vector<float>{0.0f, -3.0f, 0.0f, 0.0f}, 1);
  EXPECT_EQ(msg.payload, bytes(3.0f, {1}, {0x08}));  // the zeros among the two largest are left out
}

TEST(VarianceBased, RefusesErrorFeedbackAndOptionsOutOfRange) {
  try {
    make_error_feedback("residual", make_compressor("variance_based"));
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(e.problem().find("keeps what it does not send itself"), std::string::npos) << e.problem();
  }
  EXPECT_NO_THROW(make_error_feedback("none", make_compressor("variance_based")));
  EXPECT_THROW(make_compressor("variance_based", {{"alpha", 0.0}}), core::InputError);
  EXPECT_THROW(make_compressor("variance_based", {{"zeta", 1.5}}), core::InputError);
  EXPECT_THROW(make_compressor("variance_based", {{"density", 0.0}}), core::InputError);
}

}  // namespace
}  // namespace dtsim::compressors
