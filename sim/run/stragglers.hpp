#pragma once
/// Straggler models: how long a worker's compute phase takes, given when it starts.
#include <memory>
#include <vector>

#include "sim/results/timeline.hpp"
#include "sim/taskgraph/list_schedule.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// A stretch of time during which a worker's exchange runs: [start_s, end_s).
using BusySpan = taskgraph::Span;

/// Speed of a worker over time: the product of its trace-driven profile and periodic interference.
class SpeedProfile {
 public:
  SpeedProfile() = default;  ///< speed 1 at all times
  SpeedProfile(const scenario::Stragglers& stragglers, int worker);
  /// True when the speed is 1 at all times.
  bool nominal() const { return steps_.empty() && !interference_; }
  /// When `work_s` of nominal-speed work started at `start_s` ends. Inside the `busy` spans (in time order,
  /// disjoint) the speed is further divided by `busy_slowdown` (CommOverlap).
  double finish_s(double start_s, double work_s, const std::vector<BusySpan>& busy = {},
                  double busy_slowdown = 1) const;
  /// The speed at time t (1 = nominal).
  double speed_at(double t) const;
  /// The first time after t at which the speed changes (infinity when it never does).
  double next_change_after(double t) const;

 private:
  std::vector<scenario::SpeedStep> steps_;
  std::optional<scenario::Interference> interference_;
};

/// A phase of `work_s` nominal seconds of worker w in iteration i, started at t, takes
/// profile(w).finish_s(t, work_s x factor(w, i)) - t, where factor is (slow_factor if w is a slow worker, else 1)
/// x noise, and the noise of (w, i) comes from its own stream of the seed: exp(scale N(0,1)) (lognormal) or
/// 1 + Exp(scale) (exponential tail). Default-constructed or without slowed workers: every worker at nominal
/// speed, and false. Same seed, same times.
class Slowdown final : public ComputeSpeed {
 public:
  Slowdown() = default;
  Slowdown(const scenario::Stragglers& stragglers, int workers);
  /// True when some worker is slowed.
  explicit operator bool() const { return profiles_ != nullptr; }
  /// Worker w's time-varying speed.
  const SpeedProfile& profile(int worker) const;
  /// Duration of the phase described above.
  double operator()(int worker, int iteration, double start_s, double work_s) const {
    return duration_s(worker, iteration, start_s, work_s);
  }
  bool slowed() const override { return profiles_ != nullptr; }
  double duration_s(int worker, int iteration, double start_s, double work_s) const override;
  double factor(int worker, int iteration) const override;
  double speed_at(int worker, double t) const override { return profile(worker).speed_at(t); }
  double next_change_after(int worker, double t) const override { return profile(worker).next_change_after(t); }

 private:
  scenario::Stragglers stragglers_;
  std::shared_ptr<const std::vector<SpeedProfile>> profiles_;
};

/// Slowdown(stragglers, workers).
Slowdown slowdown_of(const scenario::Stragglers& stragglers, int workers);

}  // namespace dtsim::run
