#pragma once
/// The local-SGD family: after `first` iterations (each exchanging), every `period`-th iteration averages.
#include <algorithm>

#include "sim/sync/scheme.hpp"

namespace dtsim::sync {

/// Whether iteration `iteration` (from 0) ends a period of `period` iterations counted from iteration `first`.
inline bool ends_period(int iteration, int first, int period) {
  return iteration >= first && (iteration - first + 1) % period == 0;
}

/// The fewest iterations >= `iterations` that end on a whole period counted from `first`, at least one period.
inline int whole_periods(int iterations, int first, int period) {
  return first + std::max(1, (iterations - first + period - 1) / period) * period;
}

/// A scheme that exchanges every iteration before first(p), then every p.period-th, and averages models.
class PeriodicScheme : public Scheme {
 public:
  bool exchanges(const SyncPolicy& p, int iteration) const override {
    return iteration < first(p) || ends_period(iteration, first(p), p.period);
  }
  /// The iterations before the periods exchange gradients (post-local SGD's synchronous start, as PyTorch's
  /// PostLocalSGDState all-reduces them); the periods' ends average the models.
  bool averages_models(const SyncPolicy& p, int iteration) const override { return iteration >= first(p); }
  Meeting meeting() const override { return Meeting::kModels; }
  int whole_iterations(const SyncPolicy& p, int iterations) const override {
    return whole_periods(iterations, first(p), p.period);
  }
  std::optional<int> repeating_period(const SyncPolicy& p) const override { return p.period; }

 protected:
  /// Iterations before the periods start.
  virtual int first(const SyncPolicy&) const { return 0; }
};

}  // namespace dtsim::sync
