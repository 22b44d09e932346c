/// randomk: k = max(1, floor(n * ratio)) distinct indices drawn uniformly from a seed shared by all
/// ranks, so only the values travel and payloads sum with an all-reduce (Stich, Cordonnier &
/// Jaggi, "Sparsified SGD with Memory", NeurIPS 2018). Indices come from Floyd's sampling on
/// stream (seed, tensor, step); with rescale = true values are multiplied by n / k (unbiased).
/// Wire: [k x fp32 value, in ascending index order]; aggregation allreduce.
/// Parameters: ratio (0.01, in (0, 1]), rescale (false), seed (0).
#include <algorithm>
#include <bit>
#include <cstring>

#include "compressors/factories.hpp"
#include "compressors/random_mask.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {

// Floyd's algorithm on a bitmap: k distinct indices, ascending, identical on every rank.
std::vector<std::int64_t> random_mask(std::size_t n, double ratio, std::uint64_t seed, TensorId id, std::uint64_t step) {
  const std::size_t k = n == 0 ? 0 : std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * ratio));
  std::vector<std::uint64_t> bitmap((n + 63) / 64, 0);
  Rng rng(stream_seed(seed, id, step));
  for (std::size_t j = n - k; j < n; ++j) {
    const std::size_t t = rng.below(j + 1);
    const bool taken = (bitmap[t / 64] >> (t % 64)) & 1u;
    const std::size_t pick = taken ? j : t;
    bitmap[pick / 64] |= std::uint64_t{1} << (pick % 64);
  }
  std::vector<std::int64_t> indices;
  indices.reserve(k);
  for (std::size_t w = 0; w < bitmap.size(); ++w) {
    for (std::uint64_t word = bitmap[w]; word != 0; word &= word - 1) {
      indices.push_back(static_cast<std::int64_t>(64 * w + static_cast<std::size_t>(std::countr_zero(word))));
    }
  }
  return indices;
}

namespace {

class RandomK final : public Compressor {
 public:
  RandomK(double ratio, bool rescale, std::uint64_t seed) : ratio_(ratio), rescale_(rescale), seed_(seed) {}
  std::string_view name() const override { return "randomk"; }
  /// The k indices drawn from the shared seed (one kernel) and sorted (a radix sort of the keys), then the
  /// values gathered; the receiver draws and sorts the same indices and scatters the values.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const double k = wire / 4;
    const KernelWork indices = kernel::pass(k, 0, ib) + kernel::radix_sort(k, ib, 0);
    return {indices + kernel::gather(k, wire), {}, indices + kernel::scatter(n, k, wire + k * ib)};
  }
  bool unbiased() const override { return rescale_; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllReduce);
    const std::vector<std::int64_t> indices = random_mask(grad.size(), ratio_, seed_, id, step);
    const float scale = rescale_ && !indices.empty() ? static_cast<float>(grad.size()) / static_cast<float>(indices.size()) : 1.0f;
    msg.payload.resize(4 * indices.size());
    auto* dst = reinterpret_cast<float*>(msg.payload.data());
    for (std::size_t i = 0; i < indices.size(); ++i) dst[i] = grad[static_cast<std::size_t>(indices[i])] * scale;
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::vector<std::int64_t> indices = random_mask(out.size(), ratio_, seed_, msg.tensor, msg.step);
    DTSIM_CHECK(msg.payload.size() == 4 * indices.size(), "randomk payload does not match the tensor");
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t i = 0; i < indices.size(); ++i) out[static_cast<std::size_t>(indices[i])] = wire::get<float>(msg.payload, 4 * i);
  }

 private:
  double ratio_;
  bool rescale_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Compressor> make_randomk(const Options& options) {
  OptionReader reader("compressor 'randomk'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  const bool rescale = reader.boolean("rescale", false);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<RandomK>(ratio, rescale, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
