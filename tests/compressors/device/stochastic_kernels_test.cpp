// The device kernels of the stochastic compressors added later (srq, gspar, ecqsgd, aqsgd) through the CPU launcher:
// every code, kept element and error is the one its Philox draw gives (computed here from the element functions
// of compressors/element_codecs.hpp), and the host compressor expands the device's payload to the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "compressors/aqsgd_levels.hpp"
#include "compressors/device/device_compressor.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/gspar_law.hpp"
#include "compressors/philox.hpp"
#include "compressors/registry.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "tests/compressors/device/device_test_data.hpp"

namespace dtsim::compressors::device {
namespace {

float payload_float(const Compressed& msg, std::size_t at) {
  float v = 0.0f;
  std::memcpy(&v, msg.payload.data() + at, 4);
  return v;
}

std::uint32_t draw(std::uint64_t key, std::size_t i) { return philox_block(key, i / 4).v[i % 4]; }

TEST(StochasticKernelsOnCpu, EcqsgdCodesAndAccumulatedErrorsFollowTheirPhiloxDraws) {
  struct Setting {
    std::int64_t levels;
    const char* norm;
    double alpha, beta;
  };
  for (const Setting& c : {Setting{4, "l2", 1.0, 1.0}, Setting{1000, "linf", 0.5, 0.9}, Setting{1, "l2", 2.0, 0.0}}) {
    const Options options{{"levels", c.levels}, {"norm", std::string(c.norm)}, {"alpha", c.alpha}, {"beta", c.beta},
                          {"seed", std::int64_t{11}}};
    const auto s = static_cast<std::int32_t>(c.levels);
    const int bits = std::bit_width(static_cast<std::uint64_t>(2 * c.levels));
    auto host = make_compressor("ecqsgd", options);
    for (const std::size_t n : testing::kDeviceSizes) {
      auto dev = make_device_compressor("cpu", "ecqsgd", options);
      const auto xs = testing::device_inputs(n, n);
      std::vector<float> h(n, 0.0f), v(n);
      for (std::uint64_t step = 0; step < 4; ++step) {
        // Finite inputs first (their errors carry into the next steps), the one with NaN and Inf last.
        const std::vector<float>& g = xs[std::array<std::size_t, 4>{0, 2, 0, 1}[step]];
        SCOPED_TRACE(std::string(c.norm) + " levels " + std::to_string(c.levels) + " n " + std::to_string(n) +
                     " step " + std::to_string(step));
        const Compressed msg = dev->compress(g, 5);
        ASSERT_EQ(msg.payload.size(), 4 + wire::bit_bytes(static_cast<std::int64_t>(n) * bits));
        double squares = 0.0;
        float top = 0.0f;
        for (std::size_t i = 0; i < n; ++i) {
          v[i] = g[i] + static_cast<float>(c.alpha) * h[i];
          squares += static_cast<double>(v[i]) * v[i];
          top = std::max(top, std::fabs(v[i]));  // NaN ignored
        }
        const float norm = payload_float(msg, 0);
        if (std::string(c.norm) == "linf") {
          ASSERT_EQ(norm, top);
        } else {
          const auto want = static_cast<float>(std::sqrt(squares));
          if (std::isfinite(want)) {
            ASSERT_NEAR(norm, want, 1e-6f * want);  // sums in another order
          }
        }
        const float inv = norm > 0.0f ? static_cast<float>(s) / norm : 0.0f, unit = norm / static_cast<float>(s);
        const std::uint64_t key = stream_seed(11, 5, step);
        const std::span<const std::byte> codes = std::span(msg.payload).subspan(4);
        for (std::size_t i = 0; i < n; ++i) {
          const std::int32_t level = ecqsgd_level(v[i], draw(key, i), inv, s);
          const std::int32_t signed_level = v[i] < 0.0f ? -level : level;
          ASSERT_EQ(testing::code_at(codes, i, bits), static_cast<std::uint32_t>(s + signed_level)) << "element " << i;
          h[i] = (static_cast<float>(c.beta) * h[i] + g[i]) - static_cast<float>(signed_level) * unit;
        }
        std::vector<float> host_out(n), dev_out(n);
        host->decompress(msg, host_out);
        dev->decompress(msg, dev_out);
        ASSERT_EQ(0, std::memcmp(host_out.data(), dev_out.data(), n * sizeof(float)));
      }
    }
  }
}

TEST(StochasticKernelsOnCpu, AqsgdCodesFollowTheirPhiloxDrawsAndTheLevelsAdaptAsTheHostFitsThem) {
  for (const std::int64_t bits : {2, 3, 5}) {
    const Options options{{"bits", bits}, {"seed", std::int64_t{3}}};
    const auto s = static_cast<std::int32_t>((1 << (bits - 1)) - 1);
    auto host = make_compressor("aqsgd", options);
    for (const std::size_t n : testing::kDeviceSizes) {
      auto dev = make_device_compressor("cpu", "aqsgd", options);
      const auto xs = testing::device_inputs(n, 3 * n);
      std::vector<float> levels = aqsgd_initial_levels(s);
      for (std::uint64_t step = 0; step < 3; ++step) {
        SCOPED_TRACE("bits " + std::to_string(bits) + " n " + std::to_string(n) + " step " + std::to_string(step));
        const std::vector<float>& x = xs[step == 2 ? 1 : 0];  // Gaussian, again, then the one with NaN and Inf
        const Compressed msg = dev->compress(x, 4);
        const std::size_t header = 4 * (static_cast<std::size_t>(s) + 1);
        ASSERT_EQ(msg.payload.size(), header + wire::bit_bytes(static_cast<std::int64_t>(n * bits)));
        for (std::int32_t j = 0; j < s; ++j) ASSERT_EQ(payload_float(msg, 4 * static_cast<std::size_t>(j)), levels[j]);
        double squares = 0.0;
        for (const float v : x) squares += static_cast<double>(v) * v;
        const float norm = payload_float(msg, header - 4);
        const auto want = static_cast<float>(std::sqrt(squares));
        if (std::isfinite(want)) {
          ASSERT_NEAR(norm, want, 1e-6f * want);  // sums in another order
        }
        const float inv = norm > 0.0f ? 1.0f / norm : 0.0f;
        const std::uint64_t key = stream_seed(3, 4, step);
        const std::span<const std::byte> codes = std::span(msg.payload).subspan(header);
        std::vector<float> r;
        for (std::size_t i = 0; i < n; ++i) {
          const float ri = std::fabs(x[i]) * inv;
          const float u = static_cast<float>(draw(key, i) >> 8) * 0x1p-24f;
          const std::uint32_t sign = x[i] < 0.0f ? 1u << (bits - 1) : 0u;
          ASSERT_EQ(testing::code_at(codes, i, static_cast<int>(bits)),
                    static_cast<std::uint32_t>(aqsgd_index(ri, u, levels.data(), s)) | sign) << "element " << i;
          if (std::isfinite(ri)) r.push_back(std::min(ri, 1.0f));
        }
        std::sort(r.begin(), r.end());
        aqsgd_fit(r, levels);  // what the next exchange's header must carry
        std::vector<float> host_out(n), dev_out(n);
        host->decompress(msg, host_out);
        dev->decompress(msg, dev_out);
        ASSERT_EQ(0, std::memcmp(host_out.data(), dev_out.data(), n * sizeof(float)));
      }
    }
  }
}

TEST(StochasticKernelsOnCpu, GSparKeepsElementIWithProbabilityPiAndSendsXiOverPi) {
  for (const double ratio : {0.01, 0.3, 1.0}) {
    const Options options{{"ratio", ratio}, {"seed", std::int64_t{4}}};
    auto host = make_compressor("gspar", options);
    for (const std::size_t n : testing::kDeviceSizes) {
      auto dev = make_device_compressor("cpu", "gspar", options);
      for (const auto& x : testing::device_inputs(n, 2 * n)) {
        SCOPED_TRACE("ratio " + std::to_string(ratio) + " n " + std::to_string(n));
        const Compressed msg = dev->compress(x, 6);
        const GSparLaw law = gspar_law_of(x, ratio);
        std::vector<std::int64_t> indices;
        std::vector<float> values;
        const std::uint64_t key = stream_seed(4, 6, msg.step);
        for (std::size_t i = 0; law.sends() && i < n; ++i) {
          const double p = gspar_probability(std::fabs(static_cast<double>(x[i])), law.lambda, law.cap);
          const Philox4x32 u = philox_block(key, i / 2);
          if (uniform53(u.v[2 * (i % 2)], u.v[2 * (i % 2) + 1]) < p) {
            indices.push_back(static_cast<std::int64_t>(i));
            values.push_back(static_cast<float>(x[i] / p));
          }
        }
        std::vector<std::byte> want;
        wire::put_sparse(want, static_cast<std::int64_t>(n), indices, values);
        ASSERT_EQ(msg.payload, want);
        std::vector<float> host_out(n), dev_out(n);
        host->decompress(msg, host_out);
        dev->decompress(msg, dev_out);
        ASSERT_EQ(0, std::memcmp(host_out.data(), dev_out.data(), n * sizeof(float)));
      }
    }
  }
}

TEST(StochasticKernelsOnCpu, GSparIsUnbiased) {
  auto dev = make_device_compressor("cpu", "gspar", {{"ratio", 0.25}});
  std::vector<float> x(1 << 16, 0.5f);
  x[0] = 100.0f;  // capped: always sent as it is
  std::vector<float> out(x.size());
  dev->decompress(dev->compress(x, 0), out);
  EXPECT_EQ(out[0], 100.0f);
  double sum = 0;
  for (std::size_t i = 1; i < out.size(); ++i) sum += out[i];
  // p = (0.25 n - 1) / (0.5 (n - 1)) ~ 0.5: each other element is 1 or 0; standard error of the mean 0.5 / 256.
  EXPECT_NEAR(sum / static_cast<double>(out.size() - 1), 0.5, 5 * 0.5 / 256);
}

// The unnormalised fast Walsh-Hadamard transform of v (its definition: the butterflies of compressors/srq.cpp).
void walsh_hadamard(std::vector<float>& v) {
  for (std::size_t half = 1; half < v.size(); half *= 2)
    for (std::size_t i = 0; i < v.size(); ++i)
      if ((i & half) == 0) {
        const float a = v[i], b = v[i + half];
        v[i] = a + b;
        v[i + half] = a - b;
      }
}

TEST(StochasticKernelsOnCpu, SrqRotatesWithPhiloxSignsAndRoundsWithPhiloxDraws) {
  for (const std::int64_t levels : {std::int64_t{16}, std::int64_t{2}, std::int64_t{65536}}) {
    const Options options{{"levels", levels}, {"seed", std::int64_t{8}}};
    const auto top = static_cast<std::uint32_t>(levels - 1);
    const int bits = std::bit_width(top);
    for (const std::size_t n : testing::kDeviceSizes) {
      auto dev = make_device_compressor("cpu", "srq", options);
      const std::size_t d = std::bit_ceil(n);
      const float norm = 1.0f / std::sqrt(static_cast<float>(d));
      const std::uint64_t signs = stream_seed(8, 2, 0), rounding = stream_seed(8 ^ 0x5eedu, 2, 0);
      auto diagonal = [&](std::size_t i) { return draw(signs, i) >> 31 ? -norm : norm; };
      const std::vector<float> x = testing::device_inputs(n, n)[0];
      SCOPED_TRACE("levels " + std::to_string(levels) + " n " + std::to_string(n));
      const Compressed msg = dev->compress(x, 2);
      ASSERT_EQ(msg.payload.size(), 8 + wire::bit_bytes(static_cast<std::int64_t>(d) * bits));
      std::vector<float> z(d, 0.0f);
      for (std::size_t i = 0; i < d; ++i) z[i] = (i < n ? x[i] : 0.0f) * diagonal(i);
      walsh_hadamard(z);
      const float lo = *std::min_element(z.begin(), z.end()), hi = *std::max_element(z.begin(), z.end());
      ASSERT_EQ(payload_float(msg, 0), lo);
      ASSERT_EQ(payload_float(msg, 4), hi);
      const float inv = hi - lo > 0.0f ? static_cast<float>(top) / (hi - lo) : 0.0f;
      const std::span<const std::byte> codes = std::span(msg.payload).subspan(8);
      std::vector<float> back(d);
      for (std::size_t i = 0; i < d; ++i) {
        const std::uint32_t code = srq_level(z[i], draw(rounding, i), lo, inv, top);
        ASSERT_EQ(testing::code_at(codes, i, bits), code) << "coordinate " << i;
        back[i] = lo + static_cast<float>(code) * ((hi - lo) / static_cast<float>(top));
      }
      walsh_hadamard(back);
      std::vector<float> out(n);
      dev->decompress(msg, out);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], back[i] * diagonal(i)) << "element " << i;
    }
  }
}

TEST(StochasticKernelsOnCpu, SrqCarriesARotatedSpikeExactlyWithTwoLevels) {
  // H D e_j / sqrt(d) has every coordinate +-1/sqrt(d), whatever the signs: both are levels, and D H / sqrt(d)
  // gives e_j back (d = 64: every step is a power of two, so exactly).
  std::vector<float> x(64, 0.0f);
  x[5] = 1.0f;
  auto dev = make_device_compressor("cpu", "srq", {{"levels", std::int64_t{2}}});
  const Compressed msg = dev->compress(x, 7);
  EXPECT_EQ(payload_float(msg, 0), -0.125f);
  EXPECT_EQ(payload_float(msg, 4), 0.125f);
  std::vector<float> out(64);
  dev->decompress(msg, out);
  EXPECT_EQ(out, x);
}

}  // namespace
}  // namespace dtsim::compressors::device
