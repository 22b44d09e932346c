/// variance_based: variance-based gradient compression (Tsuzuku, Imachi & Akiba, "Variance-based Gradient Compression
/// for Efficient Distributed Deep Learning", ICLR 2018 workshop, arXiv 1802.06058, Algorithm 1). An element is sent
/// once it is unambiguous: large against its variance over the mini-batch's samples. Each worker keeps, per element,
/// r_i (the gradient not yet sent) and v_i (the variance accumulated with it):
///   r_i <- r_i + g_i,   v_i <- v_i + m_i        g the batch-mean gradient, m_i = sum_z (g_zi / B)^2 over the B
///                                               samples (Compressor::observe_second_moment)
///   r_i^2 > alpha v_i:  send q(r_i);  r_i <- r_i - q(r_i),  v_i <- 0
///   otherwise:          v_i <- zeta v_i
/// The rule and its two hyper-parameters are the paper's (alpha: how unambiguous, zeta: how fast old variance is
/// forgotten). q rounds r_i to a power of two below the largest magnitude sent, top: +-top 2^-k, k in [0, 7]
/// nearest in the log domain (compressors/element_codecs.hpp, to_power_code); what rounding leaves stays in r_i.
/// Without the samples' moment for a step (the time line's kernel measurement has no samples) it sends the
/// max(1, floor(n density)) largest magnitudes of the gradient as they come (no state), coded the same way:
/// `density` is the user's expectation of the fraction sent, which only numerics mode's training can measure. (A
/// scenario's time line always measures one kernel run per bucket size without samples, numerics scenarios too, so
/// refusing that run would leave the method out of every scenario; the expected density is the honest stand-in.)
/// Run it with error_feedback = "none": r is its own memory.
/// Wire: [fp32 top][c x int32 index ascending (int64 when n >= 2^31)][c 4-bit codes, LSB first, ceil(c / 2)
/// bytes]; aggregation allgather. Parameters: alpha (2.0, > 0), zeta (0.999, [0, 1]), density (0.01, (0, 1]).
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "compressors/bit_codes.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class VarianceBased final : public Compressor {
 public:
  VarianceBased(double alpha, double zeta, double density)
      : alpha_(static_cast<float>(alpha)), zeta_(static_cast<float>(zeta)), density_(density) {}
  std::string_view name() const override { return "variance_based"; }
  /// The accumulation r += g, v += m (reads r, g, v, m, writes r and v), one compaction of the elements with
  /// r^2 > alpha v (reads r and v), the largest magnitude sent (a reduction over them) and their codes, then the
  /// update of r and v (reads and writes both); a scatter.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const double c = std::floor((wire - 4) * 2 / (2 * ib + 1));  // [fp32 top][c indices][c 4-bit codes]
    const KernelWork select = KernelWork{4 * n, 0, 0} + kernel::select_if(n, c, ib) + kernel::reduction(c);
    return {kernel::pass(n, 16, 8) + select + kernel::encode(c, wire) + kernel::pass(n, 8, 8), {}, kernel::scatter(n, c, wire)};
  }
  bool wants_second_moment() const override { return true; }

  void observe_second_moment(TensorId id, std::span<const float> m) override {
    moment_[id].assign(m.begin(), m.end());
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const auto n = static_cast<std::int64_t>(grad.size());
    const auto moment = moment_.find(id);
    if (moment == moment_.end()) {
      expected_density(grad);
      write(msg.payload, n, grad);
      return finish(msg);
    }
    DTSIM_CHECK(moment->second.size() == grad.size(), "the second moment does not match the gradient");
    State& s = state_[id];
    s.r.resize(grad.size(), 0.0f);
    s.v.resize(grad.size(), 0.0f);
    indices_.clear();
    for (std::size_t i = 0; i < grad.size(); ++i) {
      s.r[i] += grad[i];
      s.v[i] += moment->second[i];
      if (s.r[i] * s.r[i] > alpha_ * s.v[i]) {
        indices_.push_back(static_cast<std::int64_t>(i));
      } else {
        s.v[i] *= zeta_;
      }
    }
    moment_.erase(moment);
    const float top = write(msg.payload, n, s.r);
    for (const std::int64_t i : indices_) {
      const auto at = static_cast<std::size_t>(i);
      s.r[at] -= from_power_code(to_power_code(s.r[at], top), top);
      s.v[at] = 0.0f;
    }
    finish(msg);
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const std::size_t ib = wire::index_bytes(msg.numel);
    DTSIM_CHECK(msg.payload.size() >= 4, "variance_based payload without its scale");
    const std::size_t c = 2 * (msg.payload.size() - 4) / (2 * ib + 1);
    DTSIM_CHECK(4 + c * ib + (c + 1) / 2 == msg.payload.size(), "variance_based payload does not hold whole elements");
    const float top = wire::get<float>(msg.payload, 0);
    const std::size_t codes = 8 * (4 + c * ib);
    for (std::size_t p = 0; p < c; ++p) {
      const auto i = ib == 4 ? wire::get<std::int32_t>(msg.payload, 4 + 4 * p)
                             : wire::get<std::int64_t>(msg.payload, 4 + 8 * p);
      DTSIM_CHECK(i >= 0 && i < msg.numel, "variance_based index outside the tensor");
      out[static_cast<std::size_t>(i)] = from_power_code(bit_codes::get(msg.payload, codes, 4, p), top);
    }
  }

 private:
  struct State {
    std::vector<float> r, v;
  };

  // The time line's stand-in: the max(1, floor(n density)) largest magnitudes, zeros left out.
  void expected_density(std::span<const float> grad) {
    const std::size_t n = grad.size();
    const auto share = static_cast<std::size_t>(static_cast<double>(n) * density_);
    const std::size_t k = n == 0 ? 0 : std::max<std::size_t>(1, share);
    select_top_k(grad, k, indices_);
    std::erase_if(indices_, [&](std::int64_t i) { return grad[static_cast<std::size_t>(i)] == 0.0f; });
  }

  // Appends [top][indices_][codes of x at indices_] and returns top.
  float write(std::vector<std::byte>& out, std::int64_t n, std::span<const float> x) const {
    float top = 0.0f;
    for (const std::int64_t i : indices_) top = std::max(top, std::fabs(x[static_cast<std::size_t>(i)]));
    for (const std::int64_t i : indices_)  // NaN wins, as the canonical quiet NaN (the device's too)
      if (std::isnan(x[static_cast<std::size_t>(i)])) top = std::bit_cast<float>(0x7fc00000u);
    wire::put_one(out, top);
    wire::put_indices(out, n, indices_);
    const std::size_t start = out.size();
    out.resize(start + (indices_.size() + 1) / 2, std::byte{0});
    for (std::size_t p = 0; p < indices_.size(); ++p)
      bit_codes::put(out, 8 * start, 4, p, to_power_code(x[static_cast<std::size_t>(indices_[p])], top));
    return top;
  }

  static void finish(Compressed& msg) { msg.wire_size = static_cast<core::Bytes>(msg.payload.size()); }

  float alpha_, zeta_;
  double density_;
  std::map<TensorId, State> state_;
  std::map<TensorId, std::vector<float>> moment_;
  std::vector<std::int64_t> indices_;
};

}  // namespace

std::unique_ptr<Compressor> make_variance_based(const Options& options) {
  OptionReader reader("compressor 'variance_based'", options);
  const double alpha = reader.real("alpha", 2.0, 0.0, 1e30, true);
  const double zeta = reader.real("zeta", 0.999, 0.0, 1.0);
  const double density = reader.real("density", 0.01, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<VarianceBased>(alpha, zeta, density);
}

}  // namespace dtsim::compressors
