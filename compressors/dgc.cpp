/// dgc: Deep Gradient Compression's sparsifier with sampled threshold estimation (Lin et al.,
/// "Deep Gradient Compression", ICLR 2018), as the reference synxlin/deep-gradient-compression
/// does it: sample |x| with stride s from a random start, thr = k_s-th largest sample, keep
/// |x| >= thr; up to max_iters times: above upper * k -> exact top-k among the kept and stop,
/// below lower * k -> thr *= lower; finally keep the first k (index order). Pair it with the
/// "dgc" error feedback layer (momentum correction, factor masking, local clipping).
/// Warm-up: during epoch e < warmup_epochs the density is max(c^(e+1), ratio),
/// c = ratio^(1 / (warmup_epochs + 1)); epoch = step / steps_per_epoch.
/// Wire: sparse layout of compressors/wire.hpp (count <= k); aggregation allgather.
/// Parameters: ratio (0.001), sample_ratio (0.01), upper (1.3), lower (0.8), max_iters (10),
/// warmup_epochs (0), steps_per_epoch (1), seed (0).
#include <algorithm>
#include <bit>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/rng.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

struct DgcParams {
  double ratio = 0.001;
  double sample_ratio = 0.01;
  double upper = 1.3;
  double lower = 0.8;
  std::int64_t max_iters = 10;
  std::int64_t warmup_epochs = 0;
  std::int64_t steps_per_epoch = 1;
  std::uint64_t seed = 0;
};

std::int32_t key_of(float x) { return magnitude_key(std::bit_cast<std::uint32_t>(x)); }

class Dgc final : public Compressor {
 public:
  explicit Dgc(const DgcParams& p) : p_(p) {}
  std::string_view name() const override { return "dgc"; }
  /// The strided sample (scattered reads), torch.topk of the sample for the threshold, one count above it, then
  /// one compaction (DGC's first round; the reference's further rounds are not counted); a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    const double samples = std::ceil(n * p_.sample_ratio);
    const double k_samples = std::max(1.0, std::ceil(samples * p_.ratio));
    return {kernel::gather(samples, 4 * samples) + kernel::radix_select(samples, k_samples, 8) + kernel::reduction(n) +
                kernel::select_if(n, c, ib),
            {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    const std::size_t n = grad.size();
    if (n > 0) select(grad, density(step), Rng(stream_seed(p_.seed, id, step)));
    else indices_.clear();
    wire::put_selected(msg.payload, grad, indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  double density(std::uint64_t step) const {
    const auto epoch = static_cast<std::int64_t>(step / static_cast<std::uint64_t>(p_.steps_per_epoch));
    if (epoch >= p_.warmup_epochs) return p_.ratio;
    const double coeff = std::pow(p_.ratio, 1.0 / static_cast<double>(p_.warmup_epochs + 1));
    return std::max(std::pow(coeff, static_cast<double>(epoch + 1)), p_.ratio);
  }

  void select(std::span<const float> x, double ratio, Rng rng) {
    const std::size_t n = x.size();
    const auto pct = static_cast<std::size_t>(std::ceil(static_cast<double>(n) * p_.sample_ratio));
    const auto cpr = static_cast<std::size_t>(std::ceil(2.0 / ratio));
    std::size_t stride = 1;
    if (n > cpr) {
      const std::size_t want = std::max(pct, cpr);
      stride = static_cast<std::size_t>(std::ceil(static_cast<double>(n) / static_cast<double>(want) / 32.0)) * 32 + 1;
      while (stride > 8 && n / stride < want) stride -= 8;
    }
    const std::size_t start = stride > 1 ? rng.below(stride) : 0;
    samples_.clear();
    for (std::size_t i = start; i < n; i += stride) samples_.push_back(key_of(x[i]));
    const auto k = static_cast<std::size_t>(std::ceil(static_cast<double>(n) * ratio));
    const std::size_t k_samples = std::min(samples_.size(),
        std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(static_cast<double>(samples_.size()) * ratio))));
    std::nth_element(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(k_samples - 1), samples_.end(),
                     std::greater<>());
    float thr = std::bit_cast<float>(static_cast<std::uint32_t>(samples_[k_samples - 1]));
    select_at_least(x, key_of(thr), indices_);
    for (std::int64_t iter = 0; iter < p_.max_iters; ++iter) {
      if (static_cast<double>(indices_.size()) > p_.upper * static_cast<double>(k)) {
        kept_.resize(indices_.size());
        for (std::size_t i = 0; i < indices_.size(); ++i) kept_[i] = x[static_cast<std::size_t>(indices_[i])];
        select_top_k(kept_, k, local_);
        for (std::size_t i = 0; i < local_.size(); ++i) local_[i] = indices_[static_cast<std::size_t>(local_[i])];
        indices_.swap(local_);
        break;
      }
      if (static_cast<double>(indices_.size()) >= p_.lower * static_cast<double>(k)) break;
      thr *= static_cast<float>(p_.lower);
      select_at_least(x, key_of(thr), indices_);
    }
    if (indices_.size() > k) indices_.resize(k);
  }

  DgcParams p_;
  std::vector<std::int32_t> samples_;
  std::vector<std::int64_t> indices_, local_;
  std::vector<float> values_, kept_;
};

}  // namespace

std::unique_ptr<Compressor> make_dgc(const Options& options) {
  OptionReader reader("compressor 'dgc'", options);
  DgcParams p;
  p.ratio = reader.real("ratio", p.ratio, 0.0, 1.0, true);
  p.sample_ratio = reader.real("sample_ratio", p.sample_ratio, 0.0, 1.0, true);
  p.upper = reader.real("upper", p.upper, 1.0, 100.0);
  p.lower = reader.real("lower", p.lower, 0.0, 1.0, true);
  p.max_iters = reader.integer("max_iters", p.max_iters, 0, 1000);
  p.warmup_epochs = reader.integer("warmup_epochs", p.warmup_epochs, 0, 1000);
  p.steps_per_epoch = reader.integer("steps_per_epoch", p.steps_per_epoch, 1, INT64_MAX);
  p.seed = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
  reader.finish();
  return std::make_unique<Dgc>(p);
}

}  // namespace dtsim::compressors
