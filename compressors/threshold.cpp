/// threshold: every element with |x| > tau, values as they are (Strom, "Scalable Distributed DNN
/// Training Using Commodity GPU Cloud Computing", Interspeech 2015; GRACE's ThresholdCompressor);
/// run it under the residual error feedback layer. NaN is always sent.
/// Wire: sparse layout of compressors/wire.hpp (variable count); aggregation allgather.
/// Parameters: threshold (0.01, >= 0).
#include <bit>

#include "compressors/factories.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

class Threshold final : public Compressor {
 public:
  explicit Threshold(float tau) : tau_(tau) {}
  std::string_view name() const override { return "threshold"; }
  /// One compaction of the elements above tau; a scatter into a zeroed tensor.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    return {kernel::select_if(n, c, ib), {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    select_at_least(grad, magnitude_key(std::bit_cast<std::uint32_t>(tau_)) + 1, indices_);  // |x| > tau
    wire::put_selected(msg.payload, grad, indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  float tau_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

}  // namespace

std::unique_ptr<Compressor> make_threshold(const Options& options) {
  OptionReader reader("compressor 'threshold'", options);
  const double tau = reader.real("threshold", 0.01, 0.0, 3.0e38);
  reader.finish();
  return std::make_unique<Threshold>(static_cast<float>(tau));
}

}  // namespace dtsim::compressors
