/// signsgd: the sign of every element, aggregated by majority vote (Bernstein et al., "signSGD:
/// Compressed Optimisation for Non-Convex Problems", ICML 2018).
/// Wire: [ceil(n / 8) bytes, bit i = 1[x_i >= 0]]; x' = +-1; aggregation majority_vote
/// (sign of the sum, 0 -> +1). NaN sends -1. No parameters.
#include "compressors/factories.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class SignSgd final : public Compressor {
 public:
  std::string_view name() const override { return "signsgd"; }
  /// One sign-packing kernel; one unpacking kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kMajorityVote);
    wire::put_sign_bits(msg.payload, grad);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == wire::bit_bytes(msg.numel), "signsgd payload does not match the tensor");
    wire::expand_bits(msg.payload, -1.0f, 1.0f, out);
  }
};

}  // namespace

std::unique_ptr<Compressor> make_signsgd(const Options& options) {
  OptionReader("compressor 'signsgd'", options).finish();
  return std::make_unique<SignSgd>();
}

}  // namespace dtsim::compressors
