#include "numerics/lag.hpp"

#include <algorithm>
#include <numeric>

#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

double distance_sq(std::span<const float> a, std::span<const float> b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    sum += d * d;
  }
  return sum;
}

}  // namespace

bool lag_uploads(double gradient_change_sq, double xi, double lr, int workers,
                 std::span<const double> model_changes_sq) {
  if (model_changes_sq.empty()) return true;
  const double n = static_cast<double>(workers);
  const double moved = std::accumulate(model_changes_sq.begin(), model_changes_sq.end(), 0.0);
  return gradient_change_sq > xi / (lr * lr * n * n) * moved;
}

LazyAggregation::LazyAggregation(double xi, int window, int workers, std::size_t parameters)
    : xi_(xi),
      window_(static_cast<std::size_t>(window)),
      held_(static_cast<std::size_t>(workers), std::vector<float>(parameters)) {
  DTSIM_CHECK(xi > 0.0 && window >= 1 && workers >= 1, "LAG needs a threshold > 0, a window >= 1 and workers");
}

std::vector<bool> LazyAggregation::step(std::span<const float> model,
                                        const std::vector<std::span<const float>>& gradients, double lr) {
  DTSIM_CHECK(gradients.size() == held_.size() && model.size() == held_.front().size(),
              "LAG: one gradient per worker, of the model's size");
  if (!previous_.empty()) {
    model_changes_sq_.push_back(distance_sq(model, previous_));
    if (model_changes_sq_.size() > window_) model_changes_sq_.pop_front();
  }
  previous_.assign(model.begin(), model.end());
  const std::vector<double> changes(model_changes_sq_.begin(), model_changes_sq_.end());
  std::vector<bool> uploaded(held_.size());
  for (std::size_t m = 0; m < held_.size(); ++m) {
    uploaded[m] = lag_uploads(distance_sq(gradients[m], held_[m]), xi_, lr, static_cast<int>(held_.size()), changes);
    if (uploaded[m]) std::copy(gradients[m].begin(), gradients[m].end(), held_[m].begin());
  }
  return uploaded;
}

}  // namespace dtsim::numerics
