#pragma once
/// Straggler models: how long a worker's compute phase takes, given when it starts.
#include "sim/run/timeline.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// Speed of a worker over time: the product of its trace-driven profile and periodic interference.
class SpeedProfile {
 public:
  SpeedProfile(const scenario::Stragglers& stragglers, int worker);
  /// True when the speed is 1 at all times.
  bool nominal() const { return steps_.empty() && !interference_; }
  /// When `work_s` of nominal-speed work started at `start_s` ends.
  double finish_s(double start_s, double work_s) const;

 private:
  double speed_at(double t) const;
  double next_change_after(double t) const;

  std::vector<scenario::SpeedStep> steps_;
  std::optional<scenario::Interference> interference_;
};

/// A phase of `work_s` nominal seconds of worker w in iteration i, started at t, takes
/// finish_s(t, work_s x factor(w, i)) - t, where factor is (slow_factor if w is a slow worker, else 1) x noise,
/// and the noise of (w, i) comes from its own stream of the seed: exp(scale N(0,1)) (lognormal) or
/// 1 + Exp(scale) (exponential tail). Empty when no worker is slowed. Same seed, same times.
Slowdown slowdown_of(const scenario::Stragglers& stragglers, int workers);

/// A stretch of time during which a worker's exchange runs: [start_s, end_s).
struct BusySpan {
  double start_s = 0;
  double end_s = 0;
};

/// When `work_s` of compute started at `start_s` ends if it progresses at 1 / `slowdown` of its speed inside
/// the `busy` spans (in time order, disjoint) and at full speed outside them (CommOverlap).
double overlapped_finish_s(double start_s, double work_s, const std::vector<BusySpan>& busy, double slowdown);

}  // namespace dtsim::run
