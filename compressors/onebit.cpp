/// onebit: 1-bit SGD with per-column reconstruction values (Seide et al., "1-Bit Stochastic
/// Gradient Descent and its Application to Data-Parallel Distributed Training of Speech DNNs",
/// Interspeech 2014); run it under the residual error feedback layer. Bit i = 1[x_i >= 0]; each
/// column c of the declared rows x cols view (set_shape; default one column = whole tensor, as
/// GRACE) sends mu-(c) = mean of its negatives and mu+(c) = mean of its non-negatives (0 if none).
/// Wire: [cols x (fp32 mu-, fp32 mu+)][ceil(n / 8) bytes of bits]; aggregation allgather.
/// No parameters.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class OneBit final : public Compressor {
 public:
  std::string_view name() const override { return "onebit"; }
  /// The per-column means (a segmented reduction over every element), then one sign-packing kernel; one
  /// unpacking kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const std::size_t cols = columns(id, grad.size());
    if (cols == 1) {  // whole tensor: vectorised sums (a NaN makes both means NaN)
      msg.payload.resize(8);  // mu-, mu+: known after the one pass below
      const wire::SignSums s = wire::put_sign_bits(msg.payload, grad);
      const std::int64_t pos = s.non_negative, neg = static_cast<std::int64_t>(grad.size()) - pos;
      const float means[2] = {wire_mean((s.sum - s.sum_abs) / 2.0, neg), wire_mean((s.sum + s.sum_abs) / 2.0, pos)};
      std::memcpy(msg.payload.data(), means, 8);
      msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
      return;
    }
    std::vector<double> sum_neg(cols, 0.0), sum_pos(cols, 0.0);
    std::vector<std::int64_t> count_neg(cols, 0), count_pos(cols, 0);
    for (std::size_t row = 0; row < grad.size(); row += cols) {
      for (std::size_t c = 0; c < cols; ++c) {
        const float x = grad[row + c];
        const bool pos = x >= 0.0f;  // NaN counts as negative: its column's mu- becomes NaN
        sum_pos[c] += pos ? x : 0.0f;
        count_pos[c] += pos;
        sum_neg[c] += pos ? 0.0f : x;
        count_neg[c] += !pos;
      }
    }
    for (std::size_t c = 0; c < cols; ++c) {
      wire::put_one(msg.payload, wire_mean(sum_neg[c], count_neg[c]));
      wire::put_one(msg.payload, wire_mean(sum_pos[c], count_pos[c]));
    }
    wire::put_sign_bits(msg.payload, grad);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::size_t cols = columns(msg.tensor, out.size());
    DTSIM_CHECK(msg.payload.size() == 8 * cols + wire::bit_bytes(msg.numel), "onebit payload does not match the tensor");
    const auto bits = std::span(msg.payload).subspan(8 * cols);
    if (cols == 1) {
      wire::expand_bits(bits, wire::get<float>(msg.payload, 0), wire::get<float>(msg.payload, 4), out);
      return;
    }
    for (std::size_t i = 0, c = 0; i < out.size(); ++i, c = c + 1 == cols ? 0 : c + 1) {
      const bool pos = (static_cast<unsigned>(bits[i / 8]) >> (i % 8)) & 1u;
      out[i] = wire::get<float>(msg.payload, 8 * c + (pos ? 4 : 0));
    }
  }

 private:
  std::size_t columns(TensorId id, std::size_t n) const {
    const auto [rows, cols] = shape(id);
    if (cols == 0) return 1;
    DTSIM_CHECK(static_cast<std::size_t>(rows * cols) == n, "onebit: declared shape does not match the tensor");
    return static_cast<std::size_t>(cols);
  }
};

}  // namespace

std::unique_ptr<Compressor> make_onebit(const Options& options) {
  OptionReader("compressor 'onebit'", options).finish();
  return std::make_unique<OneBit>();
}

}  // namespace dtsim::compressors
