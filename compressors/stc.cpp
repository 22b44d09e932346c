/// stc: sparse ternary compression (Sattler, Wiedemann, Mueller & Samek, "Robust and Communication-Efficient
/// Federated Learning from Non-IID Data", IEEE TNNLS 2019, Algorithm 1): the k = max(1, floor(n ratio)) elements
/// of largest magnitude keep only their sign, all scaled by mu = mean |x| over them; the positions are
/// Golomb-coded (compressors/golomb.hpp, parameter from the density k / n). Run it under residual error feedback.
/// Wire: [uint32 k][fp32 mu][Golomb positions, padded to a byte][k sign bits, 1 = negative]; aggregation
/// allgather. Parameters: ratio (0.01, in (0, 1]).
#include <algorithm>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/golomb.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class Stc final : public Compressor {
 public:
  explicit Stc(double ratio) : ratio_(ratio) {}
  std::string_view name() const override { return "stc"; }
  /// torch.topk's radix selection, the k pairs sorted by index, mu (a reduction over the k), the Golomb code of the
  /// positions (golomb.hpp) and the sign bits; decoding the positions and a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const double k = wire::get<std::uint32_t>(msg.payload, 0);
    const KernelWork select = kernel::radix_select(n, k, ib) + kernel::radix_sort(k, ib, 4) + kernel::reduction(k);
    return {select + golomb::encode_work(k, ib, wire), {}, golomb::decode_work(k, ib, wire) + kernel::scatter(n, k, k * ib)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const std::size_t n = grad.size();
    const golomb::Budget b = golomb::budget(n, ratio_);
    select_top_k(grad, b.kept, indices_);
    double total = 0.0;
    for (const std::int64_t i : indices_) total += std::fabs(static_cast<double>(grad[static_cast<std::size_t>(i)]));
    const auto mu = indices_.empty() ? 0.0f : static_cast<float>(total / static_cast<double>(indices_.size()));
    wire::put_one(msg.payload, static_cast<std::uint32_t>(indices_.size()));
    wire::put_one(msg.payload, mu);
    golomb::encode(msg.payload, indices_, b.rice_bits);
    signs_.resize(indices_.size());
    for (std::size_t j = 0; j < indices_.size(); ++j) signs_[j] = grad[static_cast<std::size_t>(indices_[j])] < 0.0f;
    wire::put_bits(msg.payload, signs_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const auto count = wire::get<std::uint32_t>(msg.payload, 0);
    const auto mu = wire::get<float>(msg.payload, 4);
    std::vector<std::int64_t> positions;
    const int b = golomb::budget(out.size(), ratio_).rice_bits;
    const std::size_t signs = golomb::decode(msg.payload, 8, count, b, positions);
    DTSIM_CHECK(msg.payload.size() == signs + wire::bit_bytes(count), "stc payload does not match its count");
    for (std::size_t j = 0; j < count; ++j) {
      const bool negative = (static_cast<unsigned>(msg.payload[signs + j / 8]) >> (j % 8)) & 1u;
      out[static_cast<std::size_t>(positions[j])] = negative ? -mu : mu;
    }
  }

 private:
  double ratio_;
  std::vector<std::int64_t> indices_;
  std::vector<std::uint8_t> signs_;
};

}  // namespace

std::unique_ptr<Compressor> make_stc(const Options& options) {
  OptionReader reader("compressor 'stc'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<Stc>(ratio);
}

}  // namespace dtsim::compressors
