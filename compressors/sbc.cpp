/// sbc: sparse binary compression (Sattler, Wiedemann, Mueller & Samek, "Sparse Binary Compression: Towards
/// Distributed Deep Learning with minimal Communication", IJCNN 2019, Algorithm 1). Of the k = max(1,
/// floor(n ratio)) largest positive elements and the k most negative ones, the side with the larger mean magnitude
/// is kept (positives on a tie), every kept element replaced by that mean with its sign: positions and one number.
/// The positions are Golomb-coded (compressors/golomb.hpp, parameter from the density k / n). Run it under residual
/// error feedback.
/// Wire: [uint32 count][fp32 signed mean][Golomb positions]; aggregation allgather. Parameters: ratio (0.01, in (0, 1]).
#include <algorithm>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/golomb.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class Sbc final : public Compressor {
 public:
  explicit Sbc(double ratio) : ratio_(ratio) {}
  std::string_view name() const override { return "sbc"; }
  /// torch.topk's radix selection of each side (the positives, the negatives), their means (two reductions over k),
  /// the kept side's positions sorted and Golomb-coded (golomb.hpp); decoding the positions and a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const double k = static_cast<double>(golomb::budget(msg.numel, ratio_).kept);
    const double sent = wire::get<std::uint32_t>(msg.payload, 0);
    const KernelWork sides = 2 * (kernel::pass(n, 4, 4) + kernel::radix_select(n, k, ib) + kernel::reduction(k));
    return {sides + kernel::radix_sort(sent, ib, 0) + golomb::encode_work(sent, ib, wire), {},
            golomb::decode_work(sent, ib, wire) + kernel::scatter(n, sent, sent * ib)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const golomb::Budget b = golomb::budget(grad.size(), ratio_);
    const std::size_t k = b.kept;
    const double positive = side(grad, k, 1.0f, positives_), negative = side(grad, k, -1.0f, negatives_);
    const bool up = positive >= negative;
    const std::vector<std::int64_t>& kept = up ? positives_ : negatives_;
    wire::put_one(msg.payload, static_cast<std::uint32_t>(kept.size()));
    wire::put_one(msg.payload, static_cast<float>(up ? positive : -negative));
    golomb::encode(msg.payload, kept, b.rice_bits);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const auto count = wire::get<std::uint32_t>(msg.payload, 0);
    const auto mean = wire::get<float>(msg.payload, 4);
    std::vector<std::int64_t> positions;
    const int b = golomb::budget(out.size(), ratio_).rice_bits;
    const std::size_t end = golomb::decode(msg.payload, 8, count, b, positions);
    DTSIM_CHECK(end == msg.payload.size(), "sbc payload does not match its count");
    for (const std::int64_t i : positions) out[static_cast<std::size_t>(i)] = mean;
  }

 private:
  // The (at most) k elements of largest sign * x among those with sign * x > 0, and their mean sign * x.
  double side(std::span<const float> x, std::size_t k, float sign, std::vector<std::int64_t>& kept) {
    signed_.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) signed_[i] = sign * x[i] > 0.0f ? sign * x[i] : 0.0f;
    select_top_k(signed_, k, kept);
    std::erase_if(kept, [&](std::int64_t i) { return !(signed_[static_cast<std::size_t>(i)] > 0.0f); });
    double total = 0.0;
    for (const std::int64_t i : kept) total += signed_[static_cast<std::size_t>(i)];
    return kept.empty() ? 0.0 : total / static_cast<double>(kept.size());
  }

  double ratio_;
  std::vector<float> signed_;
  std::vector<std::int64_t> positives_, negatives_;
};

}  // namespace

std::unique_ptr<Compressor> make_sbc(const Options& options) {
  OptionReader reader("compressor 'sbc'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<Sbc>(ratio);
}

}  // namespace dtsim::compressors
