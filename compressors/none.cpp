/// none: the uncompressed baseline (GRACE's NoneCompressor).
/// Wire: [n x fp32]; aggregation allreduce. No parameters.
#include <cstring>

#include "compressors/factories.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

class None final : public Compressor {
 public:
  std::string_view name() const override { return "none"; }
  /// No kernel: the gradient buffer is the payload, and the reduced buffer the result.
  KernelCost kernel_cost(const Compressed&) const override { return {}; }
  bool unbiased() const override { return true; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllReduce);
    wire::put(msg.payload, grad);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    if (!out.empty()) std::memcpy(out.data(), msg.payload.data(), out.size_bytes());
  }
};

}  // namespace

std::unique_ptr<Compressor> make_none(const Options& options) {
  OptionReader("compressor 'none'", options).finish();
  return std::make_unique<None>();
}

}  // namespace dtsim::compressors
