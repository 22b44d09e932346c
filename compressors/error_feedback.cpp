#include "compressors/error_feedback.hpp"

#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {

void clip_locally(std::vector<float>& t, const FeedbackParams& params) {
  if (params.clip_norm <= 0.0) return;
  const double norm = std::sqrt(sum_squares(t));
  const double bound = params.clip_norm / std::sqrt(static_cast<double>(params.workers));
  if (norm > bound) {
    const auto scale = static_cast<float>(bound / norm);
    for (float& x : t) x *= scale;
  }
}

FeedbackParams read_common_feedback(OptionReader& reader) {
  FeedbackParams p;
  p.clip_norm = reader.real("clip_norm", p.clip_norm, 0.0, 1e30);
  p.workers = reader.integer("workers", p.workers, 1, 1 << 24);
  return p;
}

ErrorFeedback::ErrorFeedback(std::unique_ptr<Compressor> inner, FeedbackKind kind, const FeedbackParams& params)
    : inner_(std::move(inner)), kind_(kind), p_(params) {}

void ErrorFeedback::compress(std::span<const float> grad, TensorId id, Compressed& msg) {
  const std::size_t n = grad.size();
  std::vector<float> t(grad.begin(), grad.end());
  clip_locally(t, p_);
  if (kind_ == FeedbackKind::kNone) {
    inner_->compress(t, id, msg);
    return;
  }
  State& s = state_[id];
  if (kind_ == FeedbackKind::kResidual) {
    s.e.resize(n, 0.0f);
    const auto gamma = static_cast<float>(p_.gamma);
    for (std::size_t i = 0; i < n; ++i) t[i] = s.e[i] + gamma * t[i];
  } else {
    s.u.resize(n, 0.0f);
    s.e.resize(n, 0.0f);  // the velocity v
    const auto m = static_cast<float>(p_.momentum);
    for (std::size_t i = 0; i < n; ++i) {
      if (p_.nesterov) {
        s.u[i] = (s.u[i] + t[i]) * m;
        s.e[i] += s.u[i] + t[i];
      } else {
        s.u[i] = m * s.u[i] + t[i];
        s.e[i] += s.u[i];
      }
    }
    t = s.e;
  }
  inner_->compress(t, id, msg);
  s.pending = std::move(t);
  if (msg.how != Aggregation::kLowRank) update(s, msg);  // low-rank: after the second round
}

Compressed ErrorFeedback::next_round(const Compressed& reduced) {
  Compressed msg = inner_->next_round(reduced);
  if (kind_ != FeedbackKind::kNone) update(state_.at(msg.tensor), msg);
  return msg;
}

void ErrorFeedback::update(State& s, const Compressed& msg) {
  std::vector<float> sent(s.pending.size());
  inner_->decompress(msg, sent);
  if (kind_ == FeedbackKind::kResidual) {
    for (std::size_t i = 0; i < sent.size(); ++i) s.e[i] = s.pending[i] - sent[i];
  } else {
    for (std::size_t i = 0; i < sent.size(); ++i) {
      s.e[i] = s.pending[i] - sent[i];
      if (p_.masking && sent[i] != 0.0f) s.u[i] = 0.0f;
    }
  }
  // pending stays until the next compress: a second round run again (compression_work's timing loop) finds it and
  // sets the same memory again, where an empty one made the low-rank expansion divide by a zero row count.
}

KernelCost feedback_kernel_cost(KernelCost cost, FeedbackKind kind, const FeedbackParams& params, const Compressed& msg) {
  const auto n = static_cast<double>(msg.numel);
  KernelWork before, after;
  if (params.clip_norm > 0.0) before += kernel::reduction(n) + kernel::pass(n, 4, 4);
  if (kind == FeedbackKind::kResidual) {
    before += kernel::pass(n, 8, 4);                             // t = e + gamma g
    after = cost.decompress + kernel::pass(n, 8, 4);             // e = t - sent
  } else if (kind == FeedbackKind::kDgc) {
    before += kernel::pass(n, 12, 8);                            // u = m u + g, v = v + u
    after = cost.decompress + (params.masking ? kernel::pass(n, 12, 8) : kernel::pass(n, 8, 4));  // v -= sent, u masked
  }
  cost.compress = before + cost.compress;
  (msg.how == Aggregation::kLowRank ? cost.next_round : cost.compress) += after;
  return cost;
}

KernelCost ErrorFeedback::kernel_cost(const Compressed& msg) const {
  return feedback_kernel_cost(inner_->kernel_cost(msg), kind_, p_, msg);
}

std::span<const float> ErrorFeedback::memory(TensorId id) const {
  const auto it = state_.find(id);
  return it == state_.end() ? std::span<const float>() : std::span<const float>(it->second.e);
}

namespace {

std::unique_ptr<Compressor> make_none_feedback(std::unique_ptr<Compressor> inner, const Options& options) {
  OptionReader reader("error feedback 'none'", options);
  const FeedbackParams p = read_common_feedback(reader);
  reader.finish();
  return std::make_unique<ErrorFeedback>(std::move(inner), FeedbackKind::kNone, p);
}

std::unique_ptr<Compressor> make_residual_feedback(std::unique_ptr<Compressor> inner, const Options& options) {
  OptionReader reader("error feedback 'residual'", options);
  FeedbackParams p = read_common_feedback(reader);
  p.gamma = reader.real("gamma", p.gamma, 0.0, 1e30, true);
  reader.finish();
  return std::make_unique<ErrorFeedback>(std::move(inner), FeedbackKind::kResidual, p);
}

std::unique_ptr<Compressor> make_dgc_feedback(std::unique_ptr<Compressor> inner, const Options& options) {
  OptionReader reader("error feedback 'dgc'", options);
  FeedbackParams p = read_common_feedback(reader);
  p.momentum = reader.real("momentum", p.momentum, 0.0, 0.999999);
  p.nesterov = reader.boolean("nesterov", p.nesterov);
  p.masking = reader.boolean("masking", p.masking);
  reader.finish();
  return std::make_unique<ErrorFeedback>(std::move(inner), FeedbackKind::kDgc, p);
}

constexpr FeedbackEntry kFeedback[] = {
    {"none", "no compensation (optional local clipping)", &make_none_feedback},
    {"residual", "error feedback: e = t - decompress(compress(t))", &make_residual_feedback},
    {"dgc", "DGC momentum correction with momentum factor masking", &make_dgc_feedback},
    {"diana", "DIANA: C(grad - h_i) sent, h_i <- h_i + alpha C(grad - h_i), the receiver keeps h_i",
     &make_diana_feedback},
    {"ef21", "EF21: g_i <- g_i + C(grad - g_i), the receiver keeps g_i", &make_ef21_feedback},
    {"clag", "3PC's CLAG: EF21 step only when ||grad - g_i||^2 > zeta ||grad - grad_prev||^2", &make_clag_feedback},
};

}  // namespace

std::span<const FeedbackEntry> error_feedback_registry() { return kFeedback; }

std::unique_ptr<Compressor> make_error_feedback(std::string_view kind, std::unique_ptr<Compressor> inner,
                                                const Options& options) {
  if (kind != "none" && inner->wants_second_moment())
    throw core::InputError("error feedback '" + std::string(kind) + "' around '" + std::string(inner->name()) +
                               "', which keeps what it does not send itself (the layer would add it twice)",
                           "error_feedback = \"none\" with " + std::string(inner->name()));
  std::vector<std::string> known;
  for (const FeedbackEntry& entry : kFeedback) {
    if (entry.name == kind) return entry.make(std::move(inner), options);
    known.emplace_back(entry.name);
  }
  throw core::unknown_name("error feedback", kind, known);
}

}  // namespace dtsim::compressors
