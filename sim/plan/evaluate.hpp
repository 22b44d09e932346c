#pragma once
/// Simulating candidates: each one a point of a sweep (one `dtsim run` process per point, -j at once,
/// content-keyed so that a plan run again reuses every point whose resolved scenario did not change).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/plan/candidate.hpp"

namespace dtsim::plan {

/// What one simulation of a candidate says.
struct Evaluation {
  bool ok = false;
  std::string error;            ///< why the run failed
  double iteration_s = 0;       ///< mean iteration
  double samples_per_s = 0;
  double scaling_efficiency = 0;
  double exposed_comm_s = 0;    ///< mean over workers and iterations
  double idle_s = 0;
  std::string report_path;      ///< the run's report.json
  std::string run;              ///< the run's folder relative to the output folder ("points/<content key>")
  /// Numerics mode with a target accuracy: the training curve's answer.
  bool trained = false;
  std::optional<double> time_to_accuracy_s;  ///< simulated end of the first evaluated step at or above the target
  double steps_to_accuracy = 0;              ///< that step
  double steps_run = 0;                      ///< the last step trained (numerics.steps)
  double trained_s = 0;                      ///< simulated end of that step
  double best_accuracy = 0;                  ///< the best test accuracy evaluated
};

/// How candidates are run.
struct EvaluateOptions {
  std::string dtsim_binary;
  int jobs = 1;
  std::string fidelity = "analytic";  ///< strategy.fidelity of every run
  bool timeline = false;              ///< the runs write timeline.json (output.timeline = true)
  int shard = 0;                      ///< this process searches the shard-th of `shards` (sim/plan/shards.hpp)
  int shards = 1;
};

/// Runs `candidates` at `options.fidelity` under the plan's output folder and reads their results, in order.
/// Progress (a bar with an ETA on a terminal) goes to `progress`. Also counts the points reused.
std::vector<Evaluation> evaluate(const scenario::PlanSpec& plan, const std::vector<const Candidate*>& candidates,
                                 const EvaluateOptions& options, std::ostream& progress, bool terminal);

}  // namespace dtsim::plan
