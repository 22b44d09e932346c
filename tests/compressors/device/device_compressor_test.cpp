// The device kernels through the CPU launcher: the same wire bytes and expansions as the host compressors
// for the deterministic methods (with and without residual error feedback), Philox draws for natural, and
// clear errors for what the device cannot do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "compressors/device/device_compressor.hpp"
#include "compressors/device/registry.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/error_feedback.hpp"
#include "compressors/philox.hpp"
#include "compressors/registry.hpp"
#include "compressors/rng.hpp"
#include "sim/core/error.hpp"
#include "tests/compressors/device/device_test_data.hpp"

namespace dtsim::compressors::device {
namespace {

struct Case {
  const char* name;
  Options options;
};

// Every deterministic compressor with device kernels, with the options that change its selection.
const Case kDeterministic[] = {
    {"none", {}},       {"fp16", {}}, {"bf16", {}}, {"int8", {}}, {"signsgd", {}}, {"signum", {}},
    {"signum", {{"momentum", 0.5}}}, {"efsignsgd", {}}, {"onebit", {}}, {"onebit_adam", {}}, {"topk", {{"ratio", 0.001}}},
    {"topk", {}},       {"topk", {{"ratio", 0.5}}}, {"topk", {{"ratio", 1.0}}},       {"threshold", {}},
    {"threshold", {{"threshold", 1.0}}}, {"adacomp", {}}, {"adacomp", {{"bin_size", std::int64_t{7}}}},
    {"dgc", {}},        {"dgc", {{"ratio", 0.01}, {"max_iters", std::int64_t{0}}}},
    {"dgc", {{"ratio", 0.05}, {"warmup_epochs", std::int64_t{2}}, {"lower", 0.99}, {"upper", 1.01}}},
    {"sidco", {}},      {"sidco", {{"distribution", std::string("gpareto")}, {"ratio", 0.01}}},
    {"sidco", {{"stages", std::int64_t{1}}}}, {"sidco", {{"distribution", std::string("gamma")}}},
    {"randomk", {}},    {"randomk", {{"ratio", 0.5}, {"rescale", true}, {"seed", std::int64_t{9}}}},
    {"eightbit", {}},   {"gaussiank", {}}, {"gaussiank", {{"ratio", 0.001}}}, {"gaussiank", {{"ratio", 0.5}}},
    {"stc", {}},        {"stc", {{"ratio", 0.001}}}, {"stc", {{"ratio", 0.3}}}, {"stc", {{"ratio", 1.0}}},
    {"sbc", {}},        {"sbc", {{"ratio", 0.001}}}, {"sbc", {{"ratio", 0.3}}}, {"sbc", {{"ratio", 1.0}}},
    {"redsync", {}},    {"redsync", {{"ratio", 0.001}}}, {"redsync", {{"ratio", 0.3}}},
    {"redsync", {{"selection", std::string("binary_search")}}},
    {"redsync", {{"selection", std::string("binary_search")}, {"ratio", 0.3}}},
    {"variance_based", {}}, {"variance_based", {{"density", 0.001}}}, {"variance_based", {{"density", 0.5}}},
    {"variance_based", {{"density", 1.0}}},
    {"fixed_proportion", {}}, {"fixed_proportion", {{"proportion", 0.3}}}, {"fixed_proportion", {{"proportion", 1.0}}},
};

std::string label(const Case& c, std::size_t n, std::size_t input) {
  std::ostringstream s;
  s << c.name << " n=" << n << " input " << input;
  for (const auto& [key, value] : c.options) std::visit([&](const auto& v) { s << " " << key << "=" << v; }, value);
  return s.str();
}

TEST(DeviceKernelsOnCpu, WireBytesAndExpansionEqualTheHostCompressors) {
  for (const Case& c : kDeterministic) {
    auto host = make_compressor(c.name, c.options);
    auto dev = make_device_compressor("cpu", c.name, c.options);
    for (const std::size_t n : testing::kDeviceSizes) {
      const auto xs = testing::device_inputs(n, 17 + n);
      for (std::size_t k = 0; k < xs.size(); ++k) {
        SCOPED_TRACE(label(c, n, k));
        testing::expect_same_exchange(*host, *dev, xs[k], 1);
      }
    }
  }
}

TEST(DeviceKernelsOnCpu, ResidualErrorFeedbackOnTheDeviceKeepsTheHostBits) {
  for (const Case& c : kDeterministic) {
    if (make_compressor(c.name, c.options)->wants_second_moment()) continue;  // keeps its own residual: refused
    auto host = make_error_feedback("residual", make_compressor(c.name, c.options));
    auto dev = make_device_compressor("cpu", c.name, c.options, "residual");
    const auto xs = testing::device_inputs(4097, 5);
    for (int step = 0; step < 4; ++step) {
      SCOPED_TRACE(label(c, 4097, 0) + " step " + std::to_string(step));
      const Compressed want = host->compress(xs[0], 3);
      ASSERT_EQ(dev->compress(xs[0], 3).payload, want.payload);
    }
  }
}

TEST(DeviceKernelsOnCpu, OneBitColumnMeansOfADeclaredShapeAreTheHostBits) {
  struct Shape {
    std::int64_t rows, cols;
  };
  for (const Shape shape : {Shape{64, 64}, Shape{4097, 1}, Shape{17, 241}, Shape{1, 4097}}) {
    const auto n = static_cast<std::size_t>(shape.rows * shape.cols);
    auto host = make_compressor("onebit", {});
    auto dev = make_device_compressor("cpu", "onebit", {});
    host->set_shape(8, shape.rows, shape.cols);
    dev->set_shape(8, shape.rows, shape.cols);
    for (const auto& x : testing::device_inputs(n, n)) {
      SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.cols));
      testing::expect_same_exchange(*host, *dev, x, 8);
    }
  }
}

TEST(DeviceKernelsOnCpu, NaturalDrawsPhiloxBlockOfEachFourElements) {
  const Options options{{"seed", std::int64_t{42}}};
  auto host = make_compressor("natural", options);
  for (const std::size_t n : testing::kDeviceSizes) {
    auto dev = make_device_compressor("cpu", "natural", options);
    const std::vector<float> x = testing::device_inputs(n, n)[1];
    for (std::uint64_t step = 0; step < 2; ++step) {
      const Compressed msg = dev->compress(x, 9);
      ASSERT_EQ(msg.payload.size(), n);
      const std::uint64_t key = stream_seed(42, 9, step);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t u = philox_block(key, i / 4).v[i % 4];
        ASSERT_EQ(static_cast<std::uint8_t>(msg.payload[i]), to_natural(x[i], u)) << "n " << n << " element " << i;
      }
      std::vector<float> host_out(n), dev_out(n);
      host->decompress(msg, host_out);
      dev->decompress(msg, dev_out);
      EXPECT_EQ(0, std::memcmp(host_out.data(), dev_out.data(), n * sizeof(float)));
    }
  }
}

TEST(DeviceKernelsOnCpu, NaturalIsUnbiased) {
  auto dev = make_device_compressor("cpu", "natural", {});
  const std::vector<float> x(1 << 16, 0.3f);  // 0.3 = 2^-2 * 1.2: 2^-1 with probability 0.2, else 2^-2
  std::vector<float> out(x.size());
  dev->decompress(dev->compress(x, 0), out);
  double sum = 0;
  for (const float v : out) sum += v;
  // Mean of 65536 draws of {0.25, 0.5} with p = 0.2: standard error 0.1 / 256 = 3.9e-4; 5 of them.
  EXPECT_NEAR(sum / static_cast<double>(x.size()), 0.3, 2e-3);
}

TEST(DeviceKernelsOnCpu, TernGradCodesEachByteWithOnePhiloxBlock) {
  for (const double clip : {0.0, 2.5}) {
    const Options options{{"clip", clip}, {"seed", std::int64_t{3}}};
    auto host = make_compressor("terngrad", options);
    for (const std::size_t n : testing::kDeviceSizes) {
      auto dev = make_device_compressor("cpu", "terngrad", options);
      const std::vector<float> x = testing::device_inputs(n, n)[0];
      const Compressed msg = dev->compress(x, 4);
      const Compressed reference = host->compress(x, 4);
      ASSERT_EQ(msg.payload.size(), reference.payload.size());
      float s = 0.0f, host_s = 0.0f, max_abs = 0.0f;
      std::memcpy(&s, msg.payload.data(), 4);
      std::memcpy(&host_s, reference.payload.data(), 4);
      EXPECT_NEAR(s, host_s, 1e-6 * host_s) << "n " << n;  // sums in another order
      for (const float v : x) max_abs = std::max(max_abs, std::fabs(v));
      const float bound = s < max_abs ? s : INFINITY;  // s = min(max |x|, bound)
      const std::uint64_t key = stream_seed(3, 4, 0);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t u = philox_block(key, i / 4).v[i % 4];
        const auto code = (static_cast<std::uint32_t>(msg.payload[4 + i / 4]) >> (2 * (i % 4))) & 3u;
        ASSERT_EQ(code, to_ternary(x[i], u, bound, s)) << "clip " << clip << " n " << n << " element " << i;
      }
      std::vector<float> host_out(n), dev_out(n);
      host->decompress(msg, host_out);
      dev->decompress(msg, dev_out);
      EXPECT_EQ(0, std::memcmp(host_out.data(), dev_out.data(), n * sizeof(float)));
    }
  }
}

TEST(DeviceKernelsOnCpu, QsgdKeepsTheHostNormsAndCodesEachElementWithItsPhiloxDraw) {
  struct Setting {
    std::int64_t levels, bucket;
    int bits;
  };
  for (const Setting& q : {Setting{127, 128, 8}, Setting{3, 128, 3}, Setting{1000, 7, 11}, Setting{32767, 0, 16}}) {
    const Options options{{"levels", q.levels}, {"bucket_size", q.bucket}, {"seed", std::int64_t{5}}};
    auto host = make_compressor("qsgd", options);
    for (const std::size_t n : testing::kDeviceSizes) {
      auto dev = make_device_compressor("cpu", "qsgd", options);
      const std::vector<float> x = testing::device_inputs(n, n)[1];
      const Compressed msg = dev->compress(x, 2), reference = host->compress(x, 2);
      ASSERT_EQ(msg.payload.size(), reference.payload.size());
      const std::size_t bucket = q.bucket == 0 ? n : static_cast<std::size_t>(q.bucket);
      const std::size_t buckets = (n + bucket - 1) / bucket;
      ASSERT_EQ(0, std::memcmp(msg.payload.data(), reference.payload.data(), 4 * buckets)) << "norms, n " << n;
      const std::span<const std::byte> codes = std::span(msg.payload).subspan(4 * buckets);
      const std::uint64_t key = stream_seed(5, 2, 0);
      const auto s = static_cast<float>(q.levels);
      for (std::size_t i = 0; i < n; ++i) {
        float norm = 0.0f;
        std::memcpy(&norm, msg.payload.data() + 4 * (i / bucket), 4);
        const std::uint32_t u = philox_block(key, i / 4).v[i % 4];
        const auto level = static_cast<std::uint32_t>(qsgd_level(x[i], u, qsgd_inverse_unit(norm, s), s));
        const std::uint32_t want = level | (x[i] < 0.0f ? 1u << (q.bits - 1) : 0u);
        ASSERT_EQ(testing::code_at(codes, i, q.bits), want) << "levels " << q.levels << " n " << n << " element " << i;
      }
      std::vector<float> host_out(n), dev_out(n);
      host->decompress(msg, host_out);
      dev->decompress(msg, dev_out);
      EXPECT_EQ(0, std::memcmp(host_out.data(), dev_out.data(), n * sizeof(float))) << "levels " << q.levels;
    }
  }
}

TEST(DeviceKernelsOnCpu, TernGradWithoutClippingIsUnbiased) {
  auto dev = make_device_compressor("cpu", "terngrad", {{"clip", 0.0}});
  std::vector<float> x(1 << 16, 0.25f);
  x[0] = 1.0f;  // s = 1: every other element is kept as +1 with probability 1/4
  std::vector<float> out(x.size());
  dev->decompress(dev->compress(x, 0), out);
  double sum = 0;
  for (std::size_t i = 1; i < out.size(); ++i) sum += out[i];
  // Mean of 65535 Bernoulli(1/4): standard error sqrt(0.1875 / 65535) = 1.7e-3; 5 of them.
  EXPECT_NEAR(sum / static_cast<double>(out.size() - 1), 0.25, 8.5e-3);
}

TEST(DeviceKernelsOnCpu, EveryKernelSetIsARegisteredCompressorAndEveryCompressorHasOne) {
  for (const KernelEntry& entry : cpu_kernels())
    EXPECT_NO_THROW(make_compressor(entry.name, {})) << entry.name;
  for (const CompressorEntry& c : compressor_registry()) {
    const auto table = cpu_kernels();
    EXPECT_EQ(1, std::count_if(table.begin(), table.end(), [&](const KernelEntry& e) { return e.name == c.name; }))
        << c.name;
    EXPECT_NO_THROW(make_device_compressor("cpu", c.name, {})) << c.name;
  }
}

TEST(DeviceErrors, UnknownDeviceMissingKernelsAndFeedbackAreInputErrors) {
  try {
    make_device_compressor("tpu", "topk", {});
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.problem(), "unknown device 'tpu'");
    EXPECT_EQ(e.allowed(), "did you mean 'cpu'? known: cpu, cuda");
  }
  try {
    make_device_compressor("cpu", "zip", {});
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.problem(), "unknown compressor 'zip'");
  }
  EXPECT_THROW(make_device_compressor("cpu", "topk", {}, "dgc"), core::InputError);
  EXPECT_THROW(make_device_compressor("cpu", "topk", {{"ratio", 2.0}}), core::InputError);
}

TEST(DeviceErrors, CudaWithoutADeviceSaysWhy) {
  const std::string why = cuda_unavailable();
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present: the cuda label's tests cover it";
  try {
    make_device_compressor("cuda", "topk", {});
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.problem(), "device \"cuda\" is not available: " + why);
    EXPECT_EQ(e.allowed(), "device = \"cpu\" (the default)");
  }
}

}  // namespace
}  // namespace dtsim::compressors::device
