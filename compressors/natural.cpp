/// natural: natural compression, stochastic rounding to a power of two (Horvath et al., "Natural
/// Compression for Distributed Deep Learning", MSML 2022), in GRACE's 8-bit code.
/// |x| = 2^e (1 + m), m in [0, 1): 2^(e+1) with probability m, else 2^e (unbiased).
/// Wire: [n x uint8 code = sign << 7 | (E - 18)], E the biased exponent after rounding, clipped
/// to [19, 145]; code exponent 0 means 0 (|x| < 2^-108 flushes to zero, |x| >= 2^19 and Inf/NaN
/// give 2^18). Aggregation allgather. Parameters: seed (0).
#include <algorithm>
#include <cstring>

#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/rng.hpp"
#include "compressors/simd.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kChunk = 256;

// Codes of x[0, m) with the draws u[0, m).
DTSIM_SIMD_BODY inline void encode(const float* x, const std::uint32_t* u, std::uint8_t* dst, std::size_t m) {
  for (std::size_t j = 0; j < m; ++j) dst[j] = to_natural(x[j], u[j]);
}

class Natural final : public Compressor {
 public:
  explicit Natural(std::uint64_t seed) : seed_(seed) {}
  std::string_view name() const override { return "natural"; }
  /// One rounding kernel (Philox draws in registers); one expanding kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }
  bool unbiased() const override { return true; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    msg.payload.resize(grad.size());
    auto* dst = reinterpret_cast<std::uint8_t*>(msg.payload.data());
    UniformStream rng(stream_seed(seed_, id, step));
    const float* x = grad.data();
    const std::size_t n = grad.size();
    simd::dispatch([&]() DTSIM_SIMD_BODY {
      alignas(32) std::uint32_t u[kChunk];
      for (std::size_t base = 0; base < n; base += kChunk) {
        rng.fill(u);
        simd::prefetch_ahead(x + base, sizeof(float) * kChunk);
        encode(x + base, u, dst + base, std::min(kChunk, n - base));
      }
    });
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == out.size(), "natural payload does not match the tensor");
    const auto* src = reinterpret_cast<const std::uint8_t*>(msg.payload.data());
    float* dst = out.data();
    for (std::size_t i = 0; i < out.size(); ++i) dst[i] = from_natural(src[i]);
  }

 private:
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Compressor> make_natural(const Options& options) {
  OptionReader reader("compressor 'natural'", options);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<Natural>(static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
