#pragma once
/// `dtsim plan`'s search: every candidate is priced and bounded without simulating; those that cannot fit
/// or cannot meet the target are pruned; the rest are simulated at the analytic level, cheapest lower bound
/// first, dropping those an earlier simulated one dominates (sim/plan/simulate.hpp); the best are re-run at
/// the flow level (contention), and the recommendation is the best that meets every target.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/plan/bounds.hpp"
#include "sim/plan/candidate.hpp"
#include "sim/plan/evaluate.hpp"
#include "sim/plan/goodput.hpp"
#include "sim/plan/pricing.hpp"

namespace dtsim::plan {

/// One candidate through the search.
struct Outcome {
  Candidate candidate;
  Bounds bounds;
  Rate rate;
  GoodputInputs goodput_inputs;     ///< with the plan's [goodput]
  Goodput goodput;                  ///< fraction 1 without it
  std::string pruned;                 ///< why it was not simulated ("memory", "bound", "dominated"); empty if it was
  std::string pruned_why;             ///< the numbers behind it
  Evaluation analytic;
  std::optional<Evaluation> flow;     ///< when re-checked
  std::optional<double> flow_cpu_s;   ///< its flow run's CPU time estimate, when it was up for a re-check
  std::string recheck_skipped;        ///< why its re-check was skipped (estimated above the limit); empty otherwise
  /// The most faithful evaluation: flow when re-checked.
  const Evaluation& best() const { return flow ? *flow : analytic; }
  bool simulated() const { return pruned.empty() && analytic.ok; }
  /// False for a simulated candidate of an accuracy job that did not reach the accuracy in the steps it trained.
  bool reaches() const { return !bounds.to_accuracy || !simulated() || best().time_to_accuracy_s.has_value(); }
  /// Iterations to train: the job's, or the steps to the accuracy (all steps trained when not reached).
  double iterations() const;
  /// Time to train, cost and energy from the best evaluation (or from the lower bound when not simulated); for an
  /// accuracy job the simulated time to reach it, or, when not reached, to the last step trained (a lower bound).
  /// With [goodput], the wall time: the training time over the goodput fraction.
  double time_s() const { return training_s() / goodput.fraction; }
  /// The time spent training: as time_s() when every hour trains.
  double training_s() const;
  Spend spend() const { return plan::spend(rate, time_s()); }
};

/// A time to train in words: hours, minutes or seconds ("7.12 h", "12.5 min").
std::string time_text(double s);

/// The targets `o` misses, in words with numbers ("time 9.20 h > 8.00 h (+15.0 %)"); empty when it meets all.
std::vector<std::string> misses(const Outcome& o, const scenario::PlanTarget& target);
/// The value the plan minimises (cost, time or energy) for `o`.
double objective(const Outcome& o, const scenario::PlanTarget& target);

/// The whole search.
struct PlanResult {
  std::vector<Outcome> outcomes;  ///< every candidate, in enumeration order
  std::vector<int> front;         ///< Pareto front of time vs cost over the simulated candidates
  std::vector<int> energy_front;  ///< Pareto front of time vs energy over the simulated candidates
  int recommended = -1;           ///< the best candidate that meets every target; -1 when none does
  int next_cheaper = -1;          ///< the simulated candidate just below it in the objective, which misses a target
  std::string timeline;           ///< run folder with the recommended candidate's timeline.json (simulate.hpp)
  /// A layout search ([search] layout): the feasible candidate next after the recommendation in the objective, and
  /// why the recommendation beats it, from both simulations at one level (the flow level's when both were re-checked):
  /// the parts of the critical path that moved most (computation, recomputation, the pipeline's bubble, each kind
  /// of communication), the exposed communication and the peak memory against the GPU's.
  int runner_up = -1;
  std::string runner_up_why;
  /// When no candidate meets the target and one was refused by the memory model: the ways out of `dtsim run`'s
  /// refusal of the one closest to fitting (what would make it fit, its breakdown); empty otherwise.
  std::string memory_way_out;
};

/// Searches `plan`; progress with an ETA on `progress`.
PlanResult search(const scenario::PlanSpec& plan, const EvaluateOptions& options, std::ostream& progress,
                  bool terminal);

}  // namespace dtsim::plan
