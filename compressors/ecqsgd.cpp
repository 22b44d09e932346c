/// ecqsgd: error-compensated quantised SGD (Wu, Huang, Huang & Zhang, "Error Compensated Quantized SGD and its
/// Applications to Large-scale Distributed Optimization", ICML 2018, section 3). Each worker keeps the quantisation
/// errors of all past steps, decayed by beta, and adds alpha times them before quantising:
///   h_t = beta h_{t-1} + (g_{t-1} - g~_{t-1}),   h_0 = 0
///   g~_t = Q_s(g_t + alpha h_t)
/// Q_s is the paper's stochastic uniform quantiser: v_i -> ||v|| sgn(v_i) xi_i, xi_i in {0, 1/s, ..., 1}, rounded
/// up from l/s with probability s |v_i| / ||v|| - l (unbiased), ||v|| the l2 or l-infinity norm. alpha = beta = 1
/// is residual error feedback over Q_s (the tests check it bit for bit). The accumulated error stays bounded when
/// alpha^2 gamma + (beta - alpha)^2 < 1, gamma = min(n / s^2, sqrt(n) / s) the quantiser's variance factor (l2).
/// Wire: [fp32 ||v||][n codes of r = ceil(log2(2s + 1)) bits, LSB-first: code = s + sgn(v_i) s xi_i]; aggregation
/// allgather. Draws come from stream (seed, tensor, step).
/// Parameters: levels s (4, the paper's setting for its linear models; 1..32767), norm ("l2" | "linf"),
/// alpha (1.0), beta (1.0), seed (0).
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "compressors/bit_codes.hpp"
#include "compressors/factories.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class EcqSgd final : public Compressor {
 public:
  EcqSgd(std::int64_t levels, bool linf, double alpha, double beta, std::uint64_t seed)
      : s_(levels), bits_(std::bit_width(static_cast<std::uint64_t>(2 * levels))), linf_(linf), alpha_(alpha),
        beta_(beta), seed_(seed) {}
  std::string_view name() const override { return "ecqsgd"; }
  /// v = g + alpha h (reads g and h, writes v), ||v|| (a reduction), one quantising kernel, and the error
  /// update h = beta h + v - Q(v) (reads h, v and the codes, writes h); one expanding kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const KernelWork error_update = kernel::pass(n, 8, 4) + KernelWork{wire, 0, 0};
    return {kernel::pass(n, 8, 4) + kernel::reduction(n) + kernel::encode(n, wire) + error_update, {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    const std::size_t n = grad.size();
    std::vector<float>& h = errors_[id];
    h.resize(n, 0.0f);
    v_.resize(n);
    for (std::size_t i = 0; i < n; ++i) v_[i] = grad[i] + static_cast<float>(alpha_) * h[i];
    const float norm = scale(v_);
    const float inv = norm > 0.0f ? static_cast<float>(s_) / norm : 0.0f;
    wire::put_one(msg.payload, norm);
    msg.payload.resize(4 + wire::bit_bytes(static_cast<std::int64_t>(n) * bits_), std::byte{0});
    Rng rng(stream_seed(seed_, id, step));
    const float step_value = norm / static_cast<float>(s_);
    for (std::size_t i = 0; i < n; ++i) {
      const float a = std::min(std::fabs(v_[i]) * inv, static_cast<float>(s_));  // NaN stays NaN
      const auto l = std::isnan(a) ? 0 : static_cast<std::int64_t>(a);
      const std::int64_t level = l + (l < s_ && rng.uniform() < static_cast<double>(a - static_cast<float>(l)) ? 1 : 0);
      const std::int64_t signed_level = v_[i] < 0.0f ? -level : level;
      bit_codes::put(msg.payload, 32, bits_, i, static_cast<std::uint32_t>(s_ + signed_level));
      // h_{t+1} = (beta h_t + g_t) - g~_t, with g~_t exactly what decompress gives.
      h[i] = (static_cast<float>(beta_) * h[i] + grad[i]) - static_cast<float>(signed_level) * step_value;
    }
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 4 + wire::bit_bytes(static_cast<std::int64_t>(out.size()) * bits_),
                "ecqsgd payload does not match the tensor");
    const float step_value = wire::get<float>(msg.payload, 0) / static_cast<float>(s_);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<float>(static_cast<std::int64_t>(bit_codes::get(msg.payload, 32, bits_, i)) - s_) * step_value;
  }

 private:
  float scale(std::span<const float> v) const {
    double acc = 0.0;
    for (const float x : v) acc = linf_ ? std::max(acc, std::fabs(static_cast<double>(x))) : acc + static_cast<double>(x) * x;
    return static_cast<float>(linf_ ? acc : std::sqrt(acc));
  }

  std::int64_t s_;
  int bits_;
  bool linf_;
  double alpha_, beta_;
  std::uint64_t seed_;
  std::map<TensorId, std::vector<float>> errors_;
  std::vector<float> v_;
};

}  // namespace

std::unique_ptr<Compressor> make_ecqsgd(const Options& options) {
  OptionReader reader("compressor 'ecqsgd'", options);
  const auto levels = reader.integer("levels", 4, 1, 32767);
  const bool linf = reader.choice("norm", "l2", {"l2", "linf"}) == "linf";
  const double alpha = reader.real("alpha", 1.0, 0.0, 1e6);
  const double beta = reader.real("beta", 1.0, 0.0, 1.0);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<EcqSgd>(levels, linf, alpha, beta, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
