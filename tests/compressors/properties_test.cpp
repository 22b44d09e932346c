// Per-method properties: wire bytes, exactness, grids, contraction, unbiasedness.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <set>

#include "compressors/registry.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

using testing::gaussian;
using testing::norm2;

std::vector<float> round_trip(Compressor& c, const std::vector<float>& x, TensorId id = 1, core::Bytes* sent = nullptr) {
  std::vector<float> out(x.size());
  const core::Bytes bytes = exchange_local(c, x, id, out);
  if (sent) *sent = bytes;
  return out;
}

struct WireCase {
  std::string name;
  Options options;
  core::Bytes bytes;  // for n = 1000 Gaussian values
};

TEST(WireBytes, ExactForEveryFixedSizeCompressor) {
  const std::vector<WireCase> cases = {
      {"none", {}, 4000},
      {"fp16", {}, 2000},
      {"bf16", {}, 2000},
      {"int8", {}, 4 + 1000},
      {"natural", {}, 1000},
      {"qsgd", {}, 8 * 4 + 1000},                                            // 8 buckets of 128, 8-bit codes
      {"qsgd", {{"levels", std::int64_t{3}}, {"bucket_size", std::int64_t{0}}}, 4 + 375},  // 3 bits each
      {"qsgd", {{"levels", std::int64_t{255}}}, 8 * 4 + 1125},               // 9 bits each
      {"terngrad", {}, 4 + 250},
      {"signsgd", {}, 125},
      {"signum", {}, 125},
      {"efsignsgd", {}, 4 + 125},
      {"onebit", {}, 8 + 125},
      {"onebit_adam", {}, 4 + 125},
      {"topk", {}, 10 * 8},                                                  // k = 10: int32 + fp32
      {"topk", {{"ratio", 0.1}}, 100 * 8},
      {"randomk", {}, 10 * 4},                                               // values only
      {"powersgd", {}, 32 * 4 + 32 * 4},                                     // 32x32 padded, rank 1: P + Q
      {"powersgd", {{"rank", std::int64_t{4}}}, 4 * (32 * 4 + 32 * 4)},
      {"polar", {}, 4 + 64},                                                 // one block, K = 512 bits
      {"polar", {{"block", std::int64_t{256}}, {"rate", 0.1}}, 4 + 4 * 26 / 8},  // 4 blocks x 26 bits
  };
  const auto x = gaussian(1000, 17);
  for (const WireCase& c : cases) {
    auto compressor = make_compressor(c.name, c.options);
    core::Bytes sent = 0;
    round_trip(*compressor, x, 1, &sent);
    EXPECT_EQ(sent, c.bytes) << c.name;
  }
}

TEST(WireBytes, VariableSizeSparsifiersSendEightBytesPerKeptElement) {
  const auto x = gaussian(5000, 18);
  for (const std::string name : {"threshold", "dgc", "sidco"}) {
    auto c = make_compressor(name, name == "threshold" ? Options{{"threshold", 1.5}} : Options{});
    const Compressed msg = c->compress(x, 1);
    std::vector<float> out(x.size());
    c->decompress(msg, out);
    const auto kept = static_cast<core::Bytes>(std::count_if(out.begin(), out.end(), [](float v) { return v != 0.0f; }));
    EXPECT_EQ(msg.wire_size, 8 * kept) << name;
    EXPECT_GT(kept, 0) << name;
  }
  auto adacomp = make_compressor("adacomp");
  const Compressed msg = adacomp->compress(x, 1);
  std::vector<float> out(x.size());
  adacomp->decompress(msg, out);
  const auto sent = static_cast<core::Bytes>(std::count_if(out.begin(), out.end(), [](float v) { return v != 0.0f; }));
  EXPECT_EQ(msg.wire_size, 4 + 4 * sent + (sent + 7) / 8);  // scale, indices, sign bits
  auto threshold = make_compressor("threshold", {{"threshold", 1.5}});
  const auto expected = std::count_if(x.begin(), x.end(), [](float v) { return std::fabs(v) > 1.5f; });
  EXPECT_EQ(threshold->compress(x, 1).wire_size, 8 * expected);
}

TEST(None, RoundTripsBitExactly) {
  auto x = gaussian(333, 1);
  x[5] = -0.0f;
  x[6] = std::numeric_limits<float>::denorm_min();
  auto c = make_compressor("none");
  const auto out = round_trip(*c, x);
  EXPECT_EQ(std::memcmp(out.data(), x.data(), x.size() * 4), 0);
}

TEST(Fp16, RoundsToNearestEvenAndRoundTripsEveryHalf) {
  auto c = make_compressor("fp16");
  const std::vector<float> x = {1.0f, 65504.0f, 65519.0f, 65520.0f, 0x1p-24f, 0x1p-25f, 1.0f + 0x1p-11f,
                                1.0f + 0x1p-10f + 0x1p-11f, -2.0f, 1e-8f, std::numeric_limits<float>::infinity()};
  const Compressed msg = c->compress(x, 1);
  std::vector<std::uint16_t> h(x.size());
  std::memcpy(h.data(), msg.payload.data(), msg.payload.size());
  EXPECT_EQ(h, (std::vector<std::uint16_t>{0x3c00, 0x7bff, 0x7bff, 0x7c00, 0x0001, 0x0000, 0x3c00, 0x3c02, 0xc000, 0x0000, 0x7c00}));
  std::vector<float> all;  // every finite half value must survive float -> half -> float
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7c00) == 0x7c00) continue;
    Compressed one;
    one.payload.resize(2);
    std::memcpy(one.payload.data(), &bits, 2);
    one.numel = 1;
    float v = 0;
    c->decompress(one, std::span<float>(&v, 1));
    all.push_back(v);
  }
  const Compressed again = c->compress(all, 2);
  std::vector<float> back(all.size());
  c->decompress(again, back);
  EXPECT_EQ(std::memcmp(back.data(), all.data(), all.size() * 4), 0);
}

TEST(Bf16, RoundsToNearestEven) {
  auto c = make_compressor("bf16");
  const std::vector<float> x = {1.0f + 0x1p-8f, 1.0f + 0x1p-7f + 0x1p-8f, 3.0f, -1.5f};
  const auto out = round_trip(*c, x);
  EXPECT_EQ(out, (std::vector<float>{1.0f, 1.0f + 0x1p-6f, 3.0f, -1.5f}));
}

TEST(Int8, ErrorIsAtMostHalfAStep) {
  const auto x = gaussian(4096, 2);
  auto c = make_compressor("int8");
  const auto out = round_trip(*c, x);
  float max_abs = 0;
  for (const float v : x) max_abs = std::max(max_abs, std::fabs(v));
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_LE(std::fabs(out[i] - x[i]), max_abs / 127 * 0.5001f);
}

TEST(Natural, ValuesArePowersOfTwoNeighbours) {
  const auto x = gaussian(4096, 3);
  auto c = make_compressor("natural");
  const auto out = round_trip(*c, x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float lo = std::exp2(std::floor(std::log2(std::fabs(x[i]))));
    EXPECT_TRUE(std::fabs(out[i]) == lo || std::fabs(out[i]) == 2 * lo) << x[i] << " -> " << out[i];
    EXPECT_EQ(std::signbit(out[i]), std::signbit(x[i]));
  }
}

TEST(Qsgd, MagnitudesLieOnTheGrid) {
  const std::int64_t s = 5;
  const auto x = gaussian(1000, 4);
  auto c = make_compressor("qsgd", {{"levels", s}, {"bucket_size", std::int64_t{100}}});
  const auto out = round_trip(*c, x);
  for (std::size_t b = 0; b < 10; ++b) {
    double sq = 0;
    for (std::size_t i = 100 * b; i < 100 * b + 100; ++i) sq += static_cast<double>(x[i]) * x[i];
    const double norm = static_cast<float>(std::sqrt(sq));
    for (std::size_t i = 100 * b; i < 100 * b + 100; ++i) {
      const double level = std::fabs(out[i]) * s / norm;
      EXPECT_NEAR(level, std::round(level), 1e-4);
      EXPECT_LE(std::round(level), s);
      const double exact = std::fabs(x[i]) * s / norm;  // one of the two neighbouring levels
      EXPECT_TRUE(std::round(level) == std::floor(exact) || std::round(level) == std::floor(exact) + 1);
    }
  }
}

TEST(TernGrad, TernaryAndUnbiasedWithoutClipping) {
  const auto x = gaussian(32, 5);
  auto c = make_compressor("terngrad", {{"clip", 0.0}});
  EXPECT_TRUE(c->unbiased());
  EXPECT_FALSE(make_compressor("terngrad")->unbiased());
  float s = 0;
  for (const float v : x) s = std::max(s, std::fabs(v));
  const int trials = 6000;
  std::vector<double> mean(x.size(), 0.0);
  for (int t = 0; t < trials; ++t) {
    const auto out = round_trip(*c, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(out[i] == 0.0f || std::fabs(out[i]) == s);
      mean[i] += out[i] / trials;
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double sd = std::sqrt(std::fabs(x[i]) * (s - std::fabs(x[i])) / trials);  // Bernoulli variance
    EXPECT_NEAR(mean[i], x[i], 5 * sd + 1e-6);
  }
}

TEST(TernGrad, ClipsAtTwoAndAHalfSigma) {
  auto x = gaussian(10000, 6);
  x[0] = 100.0f;
  auto c = make_compressor("terngrad");
  const Compressed msg = c->compress(x, 1);
  double mean = 0, var = 0;
  for (const float v : x) mean += v / 10000.0;
  for (const float v : x) var += (v - mean) * (v - mean) / 10000.0;
  float max_clipped = 0;  // the outlier is clipped, so s is the largest |x| at or below 2.5 sigma
  for (const float v : x) max_clipped = std::max(max_clipped, std::min(std::fabs(v), static_cast<float>(2.5 * std::sqrt(var))));
  EXPECT_FLOAT_EQ(wire::get<float>(msg.payload, 0), max_clipped);
}

TEST(RandomK, ExactlyKDistinctFromTheSharedSeed) {
  const auto x = gaussian(10000, 7);
  auto a = make_compressor("randomk", {{"ratio", 0.013}});
  auto b = make_compressor("randomk", {{"ratio", 0.013}});
  const auto y = gaussian(10000, 8);  // another worker, another gradient: same mask
  std::vector<float> out_a(x.size()), out_b(x.size()), sum(x.size());
  const Compressed ma = a->compress(x, 3), mb = b->compress(y, 3);
  a->decompress(ma, out_a);
  b->decompress(mb, out_b);
  EXPECT_EQ(ma.wire_size, 130 * 4);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool in_a = out_a[i] != 0.0f, in_b = out_b[i] != 0.0f;
    EXPECT_EQ(in_a, in_b);
    if (in_a) {
      ++kept;
      EXPECT_EQ(out_a[i], x[i]);
    }
  }
  EXPECT_EQ(kept, 130u);
  const std::vector<Compressed> both = {ma, mb};
  aggregate(*a, both, sum);  // all-reduce of values only equals the sum of the sparse tensors
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(sum[i], out_a[i] + out_b[i]);
  // Another step draws another mask.
  std::vector<float> next(x.size());
  a->decompress(a->compress(x, 3), next);
  EXPECT_NE(next, out_a);
}

TEST(RandomK, RescaledIsUnbiased) {
  const auto x = gaussian(40, 9);
  auto c = make_compressor("randomk", {{"ratio", 0.25}, {"rescale", true}});
  ASSERT_TRUE(c->unbiased());
  const int trials = 8000;
  std::vector<double> mean(x.size(), 0.0);
  for (int t = 0; t < trials; ++t) {
    const auto out = round_trip(*c, x);
    for (std::size_t i = 0; i < x.size(); ++i) mean[i] += out[i] / trials;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double sd = std::fabs(x[i]) * std::sqrt(3.0 / trials);  // value 4x w.p. 1/4: variance 3 x^2
    EXPECT_NEAR(mean[i], x[i], 5 * sd + 1e-6);
  }
}

std::vector<std::int64_t> brute_top_k(const std::vector<float>& x, std::size_t k) {
  std::vector<std::int64_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto key = [&](std::int64_t i) { return magnitude_key(std::bit_cast<std::uint32_t>(x[static_cast<std::size_t>(i)])); };
  std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) { return key(a) > key(b); });
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

TEST(TopK, ExactOnTheSampledPathAndWithTies) {
  for (const std::size_t n : {300000u, 1u << 18}) {
    auto x = gaussian(n, n);
    for (std::size_t i = 0; i < n; i += 7) x[i] = std::round(x[i] * 4) / 4;  // many ties
    for (const double ratio : {0.001, 0.01, 0.2}) {
      const auto k = static_cast<std::size_t>(static_cast<double>(n) * ratio);
      std::vector<std::int64_t> got;
      select_top_k(x, k, got);
      EXPECT_EQ(got, brute_top_k(x, k)) << n << " " << ratio;
    }
  }
  std::vector<float> flat(100000, 0.5f);  // all equal: the lowest indices win
  flat[99999] = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::int64_t> got;
  select_top_k(flat, 5, got);
  EXPECT_EQ(got, (std::vector<std::int64_t>{0, 1, 2, 3, 99999}));
}

TEST(TopK, KeepsExactlyKAndContracts) {
  const auto x = gaussian(20000, 10);
  auto c = make_compressor("topk", {{"ratio", 0.05}});
  const auto out = round_trip(*c, x);
  EXPECT_EQ(std::count_if(out.begin(), out.end(), [](float v) { return v != 0.0f; }), 1000);
  std::vector<float> diff(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) diff[i] = out[i] - x[i];
  EXPECT_LE(norm2(diff), (1.0 - 0.05) * norm2(x));  // delta = k / n
}

TEST(Contraction, BiasedCompressorsShrinkTheError) {
  const auto x = gaussian(4096, 11);
  struct Case {
    std::string name;
    Options options;
  };
  for (const Case& c : std::vector<Case>{{"efsignsgd", {}}, {"onebit", {}}, {"dgc", {}}, {"sidco", {}}, {"threshold", {}},
                                         {"powersgd", {{"rank", std::int64_t{2}}}}, {"polar", {{"rate", 0.9}}}}) {
    auto compressor = make_compressor(c.name, c.options);
    const auto out = round_trip(*compressor, x);
    std::vector<float> diff(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) diff[i] = out[i] - x[i];
    EXPECT_LT(norm2(diff), norm2(x)) << c.name;
  }
  // Scaled sign: ||C(x) - x||^2 = (1 - ||x||_1^2 / (n ||x||_2^2)) ||x||^2 exactly.
  double l1 = 0;
  for (const float v : x) l1 += std::fabs(v);
  auto ef = make_compressor("efsignsgd");
  const auto out = round_trip(*ef, x);
  std::vector<float> diff(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) diff[i] = out[i] - x[i];
  EXPECT_NEAR(norm2(diff), (1.0 - l1 * l1 / (4096.0 * norm2(x))) * norm2(x), 1e-3 * norm2(x));
}

TEST(Aggregation, ModesNamedAndDeclaredByEachCompressor) {
  EXPECT_EQ(to_string(Aggregation::kAllReduce), "allreduce");
  EXPECT_EQ(to_string(Aggregation::kAllGather), "allgather");
  EXPECT_EQ(to_string(Aggregation::kMajorityVote), "majority_vote");
  EXPECT_EQ(to_string(Aggregation::kLowRank), "low_rank");
  const auto x = gaussian(4096, 19);
  const std::map<std::string, Aggregation> expected = {
      {"none", Aggregation::kAllReduce},     {"fp16", Aggregation::kAllReduce},      {"randomk", Aggregation::kAllReduce},
      {"signsgd", Aggregation::kMajorityVote}, {"signum", Aggregation::kMajorityVote}, {"topk", Aggregation::kAllGather},
      {"qsgd", Aggregation::kAllGather},     {"powersgd", Aggregation::kLowRank}};
  for (const auto& [name, how] : expected) EXPECT_EQ(make_compressor(name)->compress(x, 1).how, how) << name;
}

TEST(MajorityVote, SignOfTheSumWithTiesPositive) {
  auto c = make_compressor("signsgd");
  const std::vector<float> a = {1, -1, 1, -1}, b = {1, -1, -1, 1}, d = {-1, -1, 1, 0};
  const std::vector<Compressed> msgs = {c->compress(a, 1), c->compress(b, 1), c->compress(d, 1)};
  std::vector<float> out(4);
  aggregate(*c, msgs, out);
  EXPECT_EQ(out, (std::vector<float>{1, -1, 1, 1}));
  const std::vector<Compressed> two = {msgs[0], msgs[1]};
  aggregate(*c, two, out);
  EXPECT_EQ(out, (std::vector<float>{1, -1, 1, 1}));  // 0 votes -> +1
}

TEST(OneBit, PerColumnMeans) {
  auto c = make_compressor("onebit");
  c->set_shape(1, 3, 2);
  const std::vector<float> x = {1, -2, 3, -4, -5, 6};  // columns {1, 3, -5} and {-2, -4, 6}
  EXPECT_EQ(c->compress(x, 1).wire_size, 2 * 8 + 1);
  const auto out = round_trip(*c, x);
  EXPECT_EQ(out, (std::vector<float>{2, -3, 2, -3, -5, 6}));
}

TEST(Dgc, WarmUpDensitiesAndAtMostK) {
  const std::size_t n = 200000;
  auto c = make_compressor("dgc", {{"warmup_epochs", std::int64_t{4}}, {"steps_per_epoch", std::int64_t{2}}});
  const double coeff = std::pow(0.001, 1.0 / 5);
  for (int step = 0; step < 10; ++step) {
    const auto x = testing::laplace(n, 30 + step);
    const Compressed msg = c->compress(x, 1);
    const double density = step / 2 < 4 ? std::max(std::pow(coeff, step / 2 + 1), 0.001) : 0.001;
    const auto k = std::ceil(n * density);
    const auto kept = static_cast<double>(msg.wire_size / 8);
    EXPECT_LE(kept, k) << step;
    EXPECT_GE(kept, 0.8 * k * 0.8) << step;
  }
}

TEST(Sidco, AchievedDensityNearTarget) {
  const auto x = testing::laplace(1 << 18, 12);
  for (const std::string law : {"exponential", "gpareto", "gamma"}) {
    for (const std::int64_t stages : {1, 0}) {
      auto c = make_compressor("sidco", {{"ratio", 0.01}, {"distribution", law}, {"stages", stages}});
      const double density = static_cast<double>(c->compress(x, 1).wire_size / 8) / (1 << 18);
      EXPECT_GT(density, 0.01 / 3) << law << " stages " << stages;
      EXPECT_LT(density, 0.01 * 3) << law << " stages " << stages;
    }
  }
}

TEST(PowerSgd, ExactOnALowRankMatrixAndOverWorkers) {
  const std::int64_t rows = 64, cols = 48;
  const auto a = gaussian(rows * 2, 13), b = gaussian(cols * 2, 14);
  std::vector<float> m(rows * cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) m[i * cols + j] = a[i] * b[j] + a[rows + i] * b[cols + j];
  }
  auto c = make_compressor("powersgd", {{"rank", std::int64_t{2}}});
  c->set_shape(1, rows, cols);
  core::Bytes sent = 0;
  const auto out = round_trip(*c, m, 1, &sent);
  EXPECT_EQ(sent, 4 * 2 * (rows + cols));
  for (std::size_t i = 0; i < m.size(); ++i) EXPECT_NEAR(out[i], m[i], 1e-3);
  // Three workers: the result is the projection of the summed matrices on span(sum P).
  std::vector<std::unique_ptr<Compressor>> workers;
  std::vector<std::vector<float>> grads;
  std::vector<Compressed> first, second;
  for (int w = 0; w < 3; ++w) {
    workers.push_back(make_compressor("powersgd", {{"rank", std::int64_t{2}}}));
    workers.back()->set_shape(7, rows, cols);
    grads.push_back(m);
    for (float& v : grads.back()) v *= static_cast<float>(w + 1);
    first.push_back(workers.back()->compress(grads.back(), 7));
  }
  const Compressed p = workers[0]->reduce(first);
  for (int w = 0; w < 3; ++w) second.push_back(workers[static_cast<std::size_t>(w)]->next_round(p));
  std::vector<float> sum(m.size());
  aggregate(*workers[0], second, sum);
  for (std::size_t i = 0; i < m.size(); ++i) EXPECT_NEAR(sum[i], 6 * m[i], 5e-3);
}

TEST(AdaComp, SendsQuantisedSignsAndKeepsTheResidue) {
  const auto x = gaussian(5000, 15);
  auto c = make_compressor("adacomp");
  std::vector<double> total(x.size(), 0.0);
  for (int step = 0; step < 20; ++step) {
    const auto out = round_trip(*c, x);
    std::set<float> magnitudes;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (out[i] != 0.0f) magnitudes.insert(std::fabs(out[i]));
      total[i] += out[i];
    }
    EXPECT_EQ(magnitudes.size(), 1u);  // one scale per message
  }
  // Over time, what was sent follows the accumulated gradient (residue stays bounded).
  double err = 0, ref = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    err += (total[i] - 20.0 * x[i]) * (total[i] - 20.0 * x[i]);
    ref += 400.0 * x[i] * x[i];
  }
  EXPECT_LT(err, 0.2 * ref);
}

}  // namespace
}  // namespace dtsim::compressors
