/// Shifted compression as error-feedback kinds: worker i compresses its gradient x minus a shift h_i that the
/// receiver holds too (it has decoded every message), and the receiver's estimate is h_i + C(x - h_i):
///   diana (Mishchenko, Gorbunov, Takac & Richtarik, "Distributed Learning with Compressed Gradient Differences",
///          2019):  estimate h_i + C(x - h_i), then h_i <- h_i + alpha C(x - h_i)
///   ef21  (Richtarik, Sokolov & Fatkhullin, NeurIPS 2021): the same with alpha = 1, so h_i is the last estimate
///   clag  (3PC, Richtarik et al., "3PC: Three Point Compressors for Communication-Efficient Distributed Training
///          and a Better Theory for Lazy Aggregation", ICML 2022): ef21's step only when
///          ||x - h_i||^2 > zeta ||x - y_i||^2, y_i the previous gradient; otherwise nothing is sent and the
///          estimate stays h_i
/// The first exchange of a tensor always sends (h_i = 0). The receiver's sum of the decoded messages is the sum of
/// the estimates. h_i travels in Compressed::shared (context both sides hold, never sent); the wire carries C's
/// payload, or nothing when clag skips. An all-reduce cannot leave a worker out, so with a compressor that
/// aggregates by all-reduce a skipping worker sends C(0) (same bytes, adds nothing). Majority votes and low-rank
/// compressors are refused: a vote cannot add h_i, and low rank uses Compressor::shared for its own factor.
/// Parameters: alpha (diana, required: at most 1 / (omega + 1) for a compressor of variance omega), zeta (clag:
/// 1.0, >= 0; 0 is ef21), clip_norm and workers (local clipping, as every kind).
#include <cmath>
#include <map>
#include <string>

#include "compressors/error_feedback.hpp"
#include "compressors/factories.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

double squared_distance(std::span<const float> a, std::span<const float> b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
  return d;
}

[[noreturn]] void refuse(const Compressor& inner, Aggregation how, const std::string& kind) {
  throw core::InputError("error feedback '" + kind + "' adds each worker's shift to its decoded message, which '" +
                             std::string(inner.name()) + "' (" + std::string(to_string(how)) + ") cannot carry",
                         "compressors that aggregate by all-reduce or all-gather");
}

class Shifted final : public Compressor {
 public:
  Shifted(std::unique_ptr<Compressor> inner, std::string kind, double alpha, double zeta, const FeedbackParams& params)
      : inner_(std::move(inner)), kind_(std::move(kind)), lazy_(kind_ == "clag"), alpha_(static_cast<float>(alpha)),
        zeta_(zeta), p_(params) {}
  std::string_view name() const override { return inner_->name(); }
  using Compressor::compress;

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    std::vector<float> x(grad.begin(), grad.end());
    clip_locally(x, p_);
    State& s = state_[id];
    const bool first = s.g.empty();
    s.g.resize(x.size(), 0.0f);
    std::vector<float> delta(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) delta[i] = x[i] - s.g[i];
    const bool send = first || !lazy_ || squared_distance(x, s.g) > zeta_ * squared_distance(x, s.y);
    if (send || s.how == Aggregation::kAllReduce) {
      if (!send) std::fill(delta.begin(), delta.end(), 0.0f);
      inner_->compress(delta, id, msg);
      s.how = msg.how;  // the first exchange always sends, so it is known before any skip
      if (s.how == Aggregation::kMajorityVote || s.how == Aggregation::kLowRank) refuse(*inner_, s.how, kind_);
    } else {
      start_message(msg, grad, id, 0, s.how);
    }
    msg.shared = s.g;
    if (!msg.payload.empty()) {  // h_i <- h_i + alpha C(x - h_i), as the receiver decodes it
      std::vector<float> sent(x.size());
      inner_->decompress(msg, sent);
      for (std::size_t i = 0; i < x.size(); ++i) s.g[i] += alpha_ * sent[i];
    }
    s.y = std::move(x);
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    if (msg.payload.empty()) {
      std::fill(out.begin(), out.end(), 0.0f);
    } else {
      inner_->decompress(msg, out);
    }
    for (std::size_t i = 0; i < msg.shared.size(); ++i) out[i] += msg.shared[i];
  }

  Compressed reduce(std::span<const Compressed> msgs) const override {
    Compressed sum = inner_->reduce(msgs);
    for (std::size_t w = 1; w < msgs.size(); ++w)
      for (std::size_t i = 0; i < sum.shared.size(); ++i) sum.shared[i] += msgs[w].shared[i];
    return sum;
  }

  void set_shape(TensorId id, std::int64_t rows, std::int64_t cols) override { inner_->set_shape(id, rows, cols); }

  /// The clipping (a norm and a scaling pass), x - h_i (reads x and h_i, writes the difference), clag's two distances
  /// (one reduction reading x, h_i and y_i) and its copy of y_i, the inner kernels, then h_i += alpha C(x - h_i)
  /// (decompressing the own message, reading and writing h_i); the receiver adds h_i to the decoded message. A
  /// skipped message (clag) costs the tests only, and the receiver's zero tensor plus h_i.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel);
    KernelWork before = kernel::pass(n, 8, 4);
    if (p_.clip_norm > 0.0) before = kernel::reduction(n) + kernel::pass(n, 4, 4) + before;
    if (lazy_) before += KernelWork{12 * n, 0, 2} + kernel::pass(n, 4, 4);
    const KernelWork add_shift = kernel::pass(n, 8, 4);
    if (msg.payload.empty()) return {before, {}, kernel::pass(n, 0, 4) + add_shift};
    const KernelCost inner = inner_->kernel_cost(msg);
    return {before + inner.compress + inner.decompress + add_shift, {}, inner.decompress + add_shift};
  }

 private:
  struct State {
    std::vector<float> g, y;
    Aggregation how = Aggregation::kAllGather;
  };

  std::unique_ptr<Compressor> inner_;
  std::string kind_;
  bool lazy_;
  float alpha_;
  double zeta_;
  FeedbackParams p_;
  std::map<TensorId, State> state_;
};

std::unique_ptr<Compressor> make_shifted(std::unique_ptr<Compressor> inner, const Options& options,
                                         const std::string& kind) {
  OptionReader reader("error feedback '" + kind + "'", options);
  const FeedbackParams p = read_common_feedback(reader);
  if (kind == "diana" && !options.count("alpha"))
    throw core::InputError("error feedback 'diana' needs its shift step alpha, which depends on the compressor",
                           "alpha in (0, 1], at most 1 / (omega + 1) for a compressor of variance omega "
                           "(Mishchenko et al.), in [compression.error_feedback_options]");
  const double alpha = kind == "diana" ? reader.real("alpha", 1.0, 0.0, 1.0, true) : 1.0;
  const double zeta = kind == "clag" ? reader.real("zeta", 1.0, 0.0, 1e30) : 0.0;
  reader.finish();
  // Votes do not depend on the tensor: refuse them when the scenario is loaded (a probe on an id no model uses).
  // Low-rank compressors send a one-element tensor dense, so they are refused at their first matrix.
  const Aggregation how = inner->compress(std::vector<float>{1.0f}, ~TensorId{0}).how;
  if (how == Aggregation::kMajorityVote) refuse(*inner, how, kind);
  return std::make_unique<Shifted>(std::move(inner), kind, alpha, zeta, p);
}

}  // namespace

std::unique_ptr<Compressor> make_diana_feedback(std::unique_ptr<Compressor> inner, const Options& options) {
  return make_shifted(std::move(inner), options, "diana");
}

std::unique_ptr<Compressor> make_ef21_feedback(std::unique_ptr<Compressor> inner, const Options& options) {
  return make_shifted(std::move(inner), options, "ef21");
}

std::unique_ptr<Compressor> make_clag_feedback(std::unique_ptr<Compressor> inner, const Options& options) {
  return make_shifted(std::move(inner), options, "clag");
}

}  // namespace dtsim::compressors
