/// fixed_proportion: the adaptive quantisation of Dryden, Jacobs, Moon & Van Essen, "Communication Quantization for
/// Data-parallel Training of Deep Neural Networks", MLHPC 2016: instead of Strom's fixed threshold, a fixed
/// proportion pi of the elements goes each exchange, through a positive and a negative threshold chosen to meet it
/// (the seed survey's wording): the k+ = max(1, floor(pi P)) largest of the P positive elements and the
/// k- = max(1, floor(pi N)) most negative of the N negative ones (none of a sign that has no element; ties to the
/// lower index). Each side travels as one value, the mean of what it sends (mu+, mu-), as 1-bit SGD reconstructs;
/// run it under error_feedback = "residual", which keeps the rest. NaN and zeros are never sent.
/// Wire: [fp32 mu+][fp32 mu-][uint32 k+][k+ int32 indices][k- int32 indices], each list ascending (int64 indices when
/// n >= 2^31); aggregation allgather. Parameters: proportion (0.01, (0, 1]).
#include <algorithm>

#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class FixedProportion final : public Compressor {
 public:
  explicit FixedProportion(double proportion) : proportion_(proportion) {}
  std::string_view name() const override { return "fixed_proportion"; }
  /// For each sign: the signed copy and its count (one kernel), torch.topk's radix selection of its share, the
  /// mean of the kept (a reduction over them), their indices sorted; a scatter of both lists.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const double positives = wire::get<std::uint32_t>(msg.payload, 8), all = (wire - 12) / ib;
    KernelWork work;
    for (const double k : {positives, all - positives})
      work += kernel::pass(n, 4, 4) + kernel::radix_select(n, k, ib) + kernel::reduction(k) + kernel::radix_sort(k, ib, 0);
    return {work, {}, kernel::scatter(n, all, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const auto n = static_cast<std::int64_t>(grad.size());
    const float mean_positive = side(grad, 1.0f, positive_);
    const float mean_negative = side(grad, -1.0f, negative_);
    wire::put_one(msg.payload, mean_positive);
    wire::put_one(msg.payload, mean_negative);
    wire::put_one(msg.payload, static_cast<std::uint32_t>(positive_.size()));
    wire::put_indices(msg.payload, n, positive_);
    wire::put_indices(msg.payload, n, negative_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const std::size_t ib = wire::index_bytes(msg.numel);
    DTSIM_CHECK(msg.payload.size() >= 12 && (msg.payload.size() - 12) % ib == 0, "fixed_proportion payload is cut");
    const float means[2] = {wire::get<float>(msg.payload, 0), wire::get<float>(msg.payload, 4)};
    const std::size_t positives = wire::get<std::uint32_t>(msg.payload, 8), all = (msg.payload.size() - 12) / ib;
    DTSIM_CHECK(positives <= all, "fixed_proportion payload holds fewer indices than it announces");
    for (std::size_t p = 0; p < all; ++p) {
      const std::int64_t i = ib == 4 ? wire::get<std::int32_t>(msg.payload, 12 + 4 * p)
                                     : wire::get<std::int64_t>(msg.payload, 12 + 8 * p);
      DTSIM_CHECK(i >= 0 && i < msg.numel, "fixed_proportion index outside the tensor");
      out[static_cast<std::size_t>(i)] = means[p < positives ? 0 : 1];
    }
  }

 private:
  // The side of sign `s`: its max(1, floor(pi count)) elements of largest s x into `indices`; returns their mean.
  float side(std::span<const float> grad, float s, std::vector<std::int64_t>& indices) {
    signed_.resize(grad.size());
    std::int64_t count = 0;
    for (std::size_t i = 0; i < grad.size(); ++i) {
      signed_[i] = s * grad[i] > 0.0f ? grad[i] : 0.0f;  // NaN fails the comparison
      count += signed_[i] != 0.0f ? 1 : 0;
    }
    const auto share = static_cast<std::int64_t>(static_cast<double>(count) * proportion_);
    const std::int64_t k = count == 0 ? 0 : std::max<std::int64_t>(1, share);
    select_top_k(signed_, static_cast<std::size_t>(k), indices);
    double sum = 0.0;
    for (const std::int64_t i : indices) sum += grad[static_cast<std::size_t>(i)];
    return wire_mean(sum, k);
  }

  double proportion_;
  std::vector<float> signed_;
  std::vector<std::int64_t> positive_, negative_;
};

}  // namespace

std::unique_ptr<Compressor> make_fixed_proportion(const Options& options) {
  OptionReader reader("compressor 'fixed_proportion'", options);
  const double proportion = reader.real("proportion", 0.01, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<FixedProportion>(proportion);
}

}  // namespace dtsim::compressors
