/// onebit_adam: the compressor of 1-bit Adam, C(x) = (||x||_2 / ||sign(x)||_2) sign(x), used with
/// error feedback on the momentum after the warm-up (Tang et al., "1-bit Adam: Communication
/// Efficient Large-Scale Training with Adam's Convergence Speed", ICML 2021). The frozen-variance
/// optimiser itself lives outside the compressor.
/// Wire: [fp32 scale = ||x||_2 / sqrt(n)][ceil(n / 8) bytes, bit i = 1[x_i >= 0]]; x' = +-scale;
/// aggregation allgather. No parameters.
#include <cmath>
#include <cstring>

#include "compressors/factories.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class OneBitAdam final : public Compressor {
 public:
  std::string_view name() const override { return "onebit_adam"; }
  /// ||x||_2 (a reduction), then one sign-packing kernel; one unpacking kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    wire::put_one(msg.payload, 0.0f);  // the scale, known after the one pass below
    const wire::SignSums sums = wire::put_sign_bits(msg.payload, grad);
    const float scale = grad.empty() ? 0.0f : static_cast<float>(std::sqrt(sums.sum_squares / static_cast<double>(grad.size())));
    std::memcpy(msg.payload.data(), &scale, 4);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 4 + wire::bit_bytes(msg.numel), "onebit_adam payload does not match the tensor");
    const float scale = wire::get<float>(msg.payload, 0);
    wire::expand_bits(std::span(msg.payload).subspan(4), -scale, scale, out);
  }
};

}  // namespace

std::unique_ptr<Compressor> make_onebit_adam(const Options& options) {
  OptionReader("compressor 'onebit_adam'", options).finish();
  return std::make_unique<OneBitAdam>();
}

}  // namespace dtsim::compressors
