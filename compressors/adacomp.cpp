/// adacomp: adaptive residual gradient compression (Chen et al., "AdaComp: Adaptive Residual
/// Gradient Compression for Data-Parallel Distributed Training", AAAI 2018), with its own residue
/// r per tensor (use error_feedback = "none"): G = r + g, H = G + g; in every bin of bin_size
/// elements, send i when |H_i| >= max_bin |G| (and G_i != 0); sent values are quantised to
/// sign(G_i) * scale, scale = mean |G_i| over the sent elements; r = G - sent.
/// Wire: [fp32 scale][c x int32 index ascending (int64 when n >= 2^31)][ceil(c / 8) bytes, bit j =
/// 1[G >= 0] of the j-th sent element]; aggregation allgather. Parameters: bin_size (50).
#include <algorithm>
#include <cmath>
#include <map>

#include "compressors/factories.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class AdaComp final : public Compressor {
 public:
  explicit AdaComp(std::size_t bin) : bin_(bin) {}
  std::string_view name() const override { return "adacomp"; }
  /// G = r + g (reads r and g, writes G), the bin maxima (a segmented reduction), one compaction of the elements
  /// whose |G + g| reaches their bin's maximum (reads G and g), the scale (a reduction over the sent), r = G - sent
  /// (reads G, writes r); a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const double c = std::floor((wire - 4) * 8 / (8 * ib + 1));  // [fp32 scale][c indices][c sign bits]
    const KernelWork select = KernelWork{4 * n, 0, 0} + kernel::select_if(n, c, ib) + kernel::reduction(c);
    return {kernel::pass(n, 8, 4) + kernel::reduction(n) + select + kernel::pass(n, 4, 4), {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const std::size_t n = grad.size();
    std::vector<float>& r = residue_[id];
    r.resize(n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) r[i] += grad[i];  // r now holds G
    sent_.resize(n);
    positive_.resize(n);
    std::size_t count = 0;
    double sum = 0.0;
    for (std::size_t lo = 0; lo < n; lo += bin_) {
      const std::size_t hi = std::min(n, lo + bin_);
      float g_max = 0.0f;
      for (std::size_t i = lo; i < hi; ++i) {
        const float a = std::fabs(r[i]);
        g_max = a > g_max ? a : g_max;
      }
      for (std::size_t i = lo; i < hi; ++i) {  // branch-free append of the selected elements
        const bool take = r[i] != 0.0f && std::fabs(r[i] + grad[i]) >= g_max;
        sent_[count] = static_cast<std::int64_t>(i);
        positive_[count] = r[i] >= 0.0f;
        sum += take ? std::fabs(r[i]) : 0.0f;
        count += take;
      }
    }
    sent_.resize(count);
    positive_.resize(count);
    const std::vector<std::int64_t>& sent = sent_;
    const std::vector<std::uint8_t>& positive = positive_;
    const float scale = sent.empty() ? 0.0f : static_cast<float>(sum / static_cast<double>(sent.size()));
    const float signed_scale[2] = {-scale, scale};
    for (std::size_t j = 0; j < sent.size(); ++j) r[static_cast<std::size_t>(sent[j])] -= signed_scale[positive[j]];
    wire::put_one(msg.payload, scale);
    wire::put_indices(msg.payload, msg.numel, sent);
    wire::put_bits(msg.payload, positive);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::size_t ib = wire::index_bytes(msg.numel);
    const std::size_t body = msg.payload.size() - 4;
    std::size_t c = body * 8 / (8 * ib + 1);
    while (c * ib + (c + 7) / 8 > body) --c;
    DTSIM_CHECK(4 + c * ib + (c + 7) / 8 == msg.payload.size(), "adacomp payload does not match any count");
    const float scale = wire::get<float>(msg.payload, 0);
    const std::size_t bits = 4 + c * ib;
    const float signed_scale[2] = {-scale, scale};
    constexpr std::size_t kChunk = 4096;  // zero a cache-sized chunk, then place its values
    std::size_t j = 0;
    std::int64_t last = -1;
    for (std::size_t lo = 0; lo < out.size(); lo += kChunk) {
      const std::size_t hi = std::min(out.size(), lo + kChunk);
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(lo), out.begin() + static_cast<std::ptrdiff_t>(hi), 0.0f);
      for (; j < c; ++j) {
        const std::int64_t at = ib == 4 ? wire::get<std::int32_t>(msg.payload, 4 + 4 * j) : wire::get<std::int64_t>(msg.payload, 4 + 8 * j);
        if (at >= static_cast<std::int64_t>(hi)) break;
        DTSIM_CHECK(at > last, "adacomp indices must ascend within the tensor");
        last = at;
        out[static_cast<std::size_t>(at)] = signed_scale[(static_cast<unsigned>(msg.payload[bits + j / 8]) >> (j % 8)) & 1u];
      }
    }
    DTSIM_CHECK(j == c, "adacomp index out of range");
  }

 private:
  std::size_t bin_;
  std::map<TensorId, std::vector<float>> residue_;
  std::vector<std::int64_t> sent_;
  std::vector<std::uint8_t> positive_;
};

}  // namespace

std::unique_ptr<Compressor> make_adacomp(const Options& options) {
  OptionReader reader("compressor 'adacomp'", options);
  const auto bin = reader.integer("bin_size", 50, 1, INT64_MAX);
  reader.finish();
  return std::make_unique<AdaComp>(static_cast<std::size_t>(bin));
}

}  // namespace dtsim::compressors
