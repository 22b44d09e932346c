// Pinned wire bytes of the element-wise compressors: a hash of every payload over many lengths
// (vector bodies and scalar tails), special values and three steps (random streams, momentum) into
// a reused message, so a faster kernel must give the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compressors/registry.hpp"
#include "tests/compressors/test_data.hpp"

namespace dtsim::compressors {
namespace {

using testing::gaussian;

// FNV-1a, 64 bits.
void mix(std::uint64_t& h, std::span<const std::byte> bytes) {
  for (const std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ULL;
}

// Writes `values` at the start and the end of x (cyclically when x is short).
void sprinkle(std::vector<float>& x, std::span<const float> values) {
  for (std::size_t j = 0; j < values.size(); ++j) {
    x[(3 * j) % x.size()] = values[j];
    x[x.size() - 1 - (5 * j) % x.size()] = values[j];
  }
}

// Inputs of one length: plain Gaussian, Gaussian with finite extremes, Gaussian with NaN and Inf.
std::vector<std::vector<float>> inputs(std::size_t n, std::uint64_t seed) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float finite[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 1e-35f, -1e-33f, 1e6f, -3e5f, 3e38f, -3e38f,
                          std::numeric_limits<float>::min(), 0.5f, -2.0f};
  const float special[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf, 0.0f, -0.0f, 1e-40f};
  std::vector<std::vector<float>> xs = {gaussian(n, seed), gaussian(n, seed + 1, 1e-3), gaussian(n, seed + 2)};
  sprinkle(xs[1], finite);
  sprinkle(xs[2], special);
  return xs;
}

struct GoldenCase {
  std::string name;
  Options options;
  std::uint64_t hash;
};

TEST(Golden, ElementWiseWireBytesArePinned) {
  const std::vector<GoldenCase> cases = {
      {"bf16", {}, 0xbf6024a7e29d56d1ULL},
      {"fp16", {}, 0x151f9ded27770766ULL},
      {"int8", {}, 0x359d228dcf413a6dULL},
      {"natural", {}, 0x1fbfad7bb6e8bef5ULL},
      {"natural", {{"seed", std::int64_t{9}}}, 0x148265c398256fccULL},
      {"qsgd", {}, 0xeacccd8a8994084dULL},
      {"qsgd", {{"levels", std::int64_t{3}}, {"bucket_size", std::int64_t{0}}}, 0xaf11414051b27c3aULL},
      {"qsgd", {{"levels", std::int64_t{255}}, {"bucket_size", std::int64_t{100}}}, 0xfce553220dd5764ULL},
      {"qsgd", {{"levels", std::int64_t{1}}, {"bucket_size", std::int64_t{1000}}, {"seed", std::int64_t{4}}}, 0x16f26ce7ee91c78aULL},
      {"terngrad", {}, 0xc41d6d88f7e32a7aULL},
      {"terngrad", {{"clip", 0.0}, {"seed", std::int64_t{3}}}, 0xd7a90946a6c86f34ULL},
      {"signsgd", {}, 0xb032c527de645a19ULL},
      {"signum", {}, 0xf6774d72e2e8c7cbULL},
      {"signum", {{"momentum", 0.5}}, 0x14823bb6a303fb55ULL},
      {"efsignsgd", {}, 0x3f29b76407034cc3ULL},
      {"onebit_adam", {}, 0xb21cf78c1d768674ULL},
  };
  for (const GoldenCase& c : cases) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const std::size_t n : {1u, 7u, 100u, 1000u, 4099u, 70001u}) {
      std::uint64_t seed = 100 + n;
      for (const std::vector<float>& first : inputs(n, seed)) {
        auto compressor = make_compressor(c.name, c.options);
        Compressed msg;  // reused, as in the benchmark, with stale bytes that must all be overwritten
        for (int step = 0; step < 3; ++step) {
          const std::vector<float> x = step == 0 ? first : gaussian(n, ++seed);
          std::fill(msg.payload.begin(), msg.payload.end(), std::byte{0xa5});
          compressor->compress(x, 5, msg);
          EXPECT_EQ(msg.wire_size, static_cast<core::Bytes>(msg.payload.size())) << c.name;
          mix(h, msg.payload);
        }
      }
    }
    EXPECT_EQ(h, c.hash) << c.name << " " << c.options.size() << " options: 0x" << std::hex << h;
  }
}

}  // namespace
}  // namespace dtsim::compressors
