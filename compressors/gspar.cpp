/// gspar: unbiased probabilistic sparsification (Wangni, Wang, Liu & Zhang, "Gradient Sparsification for
/// Communication-Efficient Distributed Optimization", NeurIPS 2018; the compression survey's "variance-based"
/// sparsifier). Element i is kept with probability p_i and sent as x_i / p_i, so E[x'] = x. The probabilities
/// minimise the variance for an expected density `ratio`:
///   p_i = min(lambda |x_i|, 1),   sum_i p_i = ratio n
/// found as the paper's greedy Algorithm 2 does, to its fixed point: lambda = (ratio n - C) / (sum of |x_i|
/// not capped), C the number capped at 1, repeated until no new element reaches 1 (when ratio n exceeds the
/// non-zero count, every non-zero is sent as it is). Kept values that were not capped all have magnitude 1 /
/// lambda. The draws come from stream (seed, tensor, step). A tensor whose sum of |x| is 0 or not finite sends
/// nothing.
/// Wire: sparse layout of compressors/wire.hpp (random count, ratio n on average); aggregation allgather.
/// Parameters: ratio (0.01, in (0, 1]), seed (0).
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/gspar_law.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

}  // namespace

GSparLaw gspar_law_of(std::span<const float> x, double ratio) {
  double total = 0.0;
  for (const float v : x) total += std::fabs(static_cast<double>(v));
  return gspar_law(ratio, x.size(), total, [&](double cap) {
    GSparCapped c;
    for (const float v : x) {
      const double a = std::fabs(static_cast<double>(v));
      if (a >= cap) {
        ++c.capped;
      } else {
        c.rest += a;
      }
    }
    return c;
  });
}

namespace {

class GSpar final : public Compressor {
 public:
  GSpar(double ratio, std::uint64_t seed) : ratio_(ratio), seed_(seed) {}
  std::string_view name() const override { return "gspar"; }
  /// sum |x| and one fixed-point step of lambda (two reductions; a step more for each round that caps new
  /// elements is not counted), then one compaction with the Bernoulli draws; a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    return {2 * kernel::reduction(n) + kernel::select_if(n, c, ib), {}, kernel::scatter(n, c, wire)};
  }
  bool unbiased() const override { return true; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    indices_.clear();
    values_.clear();
    const GSparLaw law = gspar_law_of(grad, ratio_);
    if (law.sends()) {
      Rng rng(stream_seed(seed_, id, step));
      for (std::size_t i = 0; i < grad.size(); ++i) {
        const double a = std::fabs(static_cast<double>(grad[i]));
        const double p = gspar_probability(a, law.lambda, law.cap);
        if (rng.uniform() < p) {
          indices_.push_back(static_cast<std::int64_t>(i));
          values_.push_back(static_cast<float>(grad[i] / p));
        }
      }
    }
    wire::put_sparse(msg.payload, static_cast<std::int64_t>(grad.size()), indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  double ratio_;
  std::uint64_t seed_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

}  // namespace

std::unique_ptr<Compressor> make_gspar(const Options& options) {
  OptionReader reader("compressor 'gspar'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<GSpar>(ratio, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
