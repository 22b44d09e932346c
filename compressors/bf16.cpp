/// bf16: bfloat16 (the upper half of binary32) with round-to-nearest-even (Kalamkar et al.,
/// "A Study of BFLOAT16 for Deep Learning Training", 2019).
/// Wire: [n x bfloat16]; aggregation allreduce (payloads summed in fp32, rounded once).
/// NaN stays a quiet NaN, overflow gives +-Inf. No parameters.
#include <algorithm>
#include <cstring>

#include "compressors/element_codecs.hpp"
#include "compressors/sum_16bit.hpp"
#include "compressors/factories.hpp"
#include "compressors/simd.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kChunk = 1024;

// to_bf16 of src[0, count) into dst.
DTSIM_SIMD_BODY inline void encode(const float* src, std::uint16_t* dst, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) dst[i] = to_bf16(src[i]);
}

class Bf16 final : public Compressor {
 public:
  std::string_view name() const override { return "bf16"; }
  /// One conversion kernel each way.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllReduce);
    msg.payload.resize(2 * grad.size());
    auto* dst = reinterpret_cast<std::uint16_t*>(msg.payload.data());
    const float* src = grad.data();
    const std::size_t n = grad.size();
    simd::dispatch([&]() DTSIM_SIMD_BODY {
      for (std::size_t lo = 0; lo < n; lo += kChunk) {
        const std::size_t count = std::min(n - lo, kChunk);
        simd::prefetch_ahead(src + lo, sizeof(float) * count);
        encode(src + lo, dst + lo, count);
      }
    });
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 2 * out.size(), "bf16 payload does not match the tensor");
    const auto* src = reinterpret_cast<const std::uint16_t*>(msg.payload.data());
    float* dst = out.data();
    for (std::size_t i = 0; i < out.size(); ++i) dst[i] = from_bf16(src[i]);
  }

  Compressed reduce(std::span<const Compressed> msgs) const override {
    return sum_16bit(
        msgs, [this](const Compressed& m, std::span<float> out) { decompress(m, out); },
        [](float x) { return to_bf16(x); });
  }
};

}  // namespace

std::unique_ptr<Compressor> make_bf16(const Options& options) {
  OptionReader("compressor 'bf16'", options).finish();
  return std::make_unique<Bf16>();
}

}  // namespace dtsim::compressors
