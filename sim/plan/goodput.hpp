#pragma once
/// Goodput under failures, restarts and checkpoints: the share of a cluster's hours that trains, for a job
/// that every failure of a component it uses interrupts (synchronous training), that writes a checkpoint every
/// `interval` of work and, after a failure, restarts and restores the last checkpoint.
///
/// The model (Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 2006,
/// section 3): failures arrive as a Poisson process of rate lambda = 1 / MTBF at any moment (during work,
/// checkpoint writes and restarts alike). A segment is `interval` tau of work followed by a checkpoint write
/// of C seconds; a failure during a segment loses the segment, and the job restarts (R seconds: relaunch plus
/// restore, itself interrupted by failures) and runs the segment again. The expected wall time of a segment is
///   E(tau) = e^(lambda R) (e^(lambda (tau + C)) - 1) / lambda,
/// goodput = tau / E(tau), and it splits exactly into tau (training), C (the checkpoint written),
/// (e^(lambda W) - 1) / lambda - W (work and checkpoint writes lost to failures, W = tau + C) and
/// (e^(lambda W) - 1)(e^(lambda R) - 1) / lambda (restarts and restores).
#include <optional>

#include "sim/plan/bounds.hpp"
#include "sim/scenario/plan_spec.hpp"

namespace dtsim::plan {

/// Seconds of one interruption's recovery and of one checkpoint.
struct GoodputInputs {
  double failures_per_s = 0;  ///< lambda: the job's failure rate (every component it uses)
  double checkpoint_s = 0;    ///< C: writing one checkpoint (training waits for it)
  double restart_s = 0;       ///< R: relaunch plus restoring the last checkpoint
};

/// The interval and what the hours go to, as fractions of the wall time (they sum to 1).
struct Goodput {
  double interval_s = 0;       ///< tau: work between checkpoints (infinite when nothing fails and none is asked)
  double young_daly_s = 0;     ///< sqrt(2 C MTBF); infinite when nothing fails
  double optimum_s = 0;        ///< the tau that maximises goodput in this model
  double fraction = 1;         ///< goodput: training / wall time
  double checkpoint = 0;       ///< checkpoints written
  double lost_work = 0;        ///< work and checkpoint writes lost since the last checkpoint
  double restart = 0;          ///< restarts and restores
  double mtbf_s = 0;           ///< 1 / lambda (infinite when nothing fails)
};

/// Young/Daly's first-order interval sqrt(2 C MTBF) (Young, CACM 1974; Daly 2006 eq. 7 at first order).
double young_daly_interval(double checkpoint_s, double mtbf_s);

/// The exact optimum of E(tau) / tau: the root in (0, 1/lambda) of (1 - lambda tau) e^(lambda (tau + C)) = 1,
/// i.e. tau = (1 + W0(-e^(-1 - lambda C))) / lambda with W0 the principal branch of Lambert's W. It does not
/// depend on R. Found by bisection to the last bit (deterministic).
double optimal_interval(double failures_per_s, double checkpoint_s);

/// E(tau): expected wall seconds of one segment of `interval_s` of work.
double expected_segment_s(const GoodputInputs& in, double interval_s);

/// Goodput at `interval_s` (the optimum when absent; with no failures and no interval, no checkpoint at all).
Goodput goodput(const GoodputInputs& in, std::optional<double> interval_s);

/// The inputs for the cluster `b` describes: lambda = GPUs x the GPU rate + nodes x the node rate + NICs x the
/// NIC rate + switches x the switch rate (a failure of any component the job uses interrupts it; one node uses
/// no NIC nor switch); C = the larger of the checkpoint over the storage's write bandwidth and the fullest node's
/// share over its NIC bandwidth; R = the restart time + the same for reading it back.
GoodputInputs goodput_inputs(const Bounds& b, const scenario::PlanGoodput& g);

/// goodput() at the interval `g` chooses (optimal, young_daly or fixed).
Goodput goodput(const GoodputInputs& in, const scenario::PlanGoodput& g);

/// Work lost by a failure at `failure_s` of a job that started at 0 and writes a checkpoint (C seconds) after
/// every `interval_s` of work: the time since the last checkpoint completed.
double lost_at(double failure_s, double interval_s, double checkpoint_s);

}  // namespace dtsim::plan
