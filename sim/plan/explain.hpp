#pragma once
/// `dtsim explain RUN_DIR`: why the iteration of a run takes what it takes, in sentences with numbers (what
/// bounds it, the critical path, the exposed buckets, the busiest link, the straggler), and which knob moves it
/// most, found by simulating the neighbouring what-ifs (each one change to the run's resolved scenario).
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/plan/evaluate.hpp"

namespace dtsim::plan {

/// One neighbouring what-if and what it did.
struct Neighbour {
  std::vector<std::pair<std::string, std::string>> settings;  ///< (key, value as --set takes it)
  std::string why;
  Evaluation result;
  std::string command;  ///< the run's command with the settings: `dtsim run` on it gives `result`
};

/// The explanation of one run.
struct Explanation {
  double iteration_s = 0;       ///< the run's mean iteration, which every effect is relative to
  std::string scenario_digest;  ///< the run's (report.json provenance): explain.json belongs to that run
  std::vector<std::string> sentences;
  std::vector<Neighbour> neighbours;  ///< simulated, the largest improvement first; then those that do not fit
  std::vector<std::string> not_run;   ///< what-ifs left out, with the reason
};

/// The sentences of `report` (report.json) and its neighbouring what-ifs, not yet simulated.
Explanation explanation(const nlohmann::json& report);

/// Simulates the neighbours of the run in `run_dir` (its resolved scenario, at its fidelity; points under
/// run_dir/explain, content-keyed) and orders them by iteration time. A layout run's neighbours include its
/// neighbouring layouts (layout_neighbours.hpp): each checked as `dtsim run` checks it first (one it refuses is
/// listed as not run, with the reason; one that does not fit the GPU is listed after the simulated ones, with
/// what it needs), and every simulated one says what it changed on the critical path and in memory.
Explanation explain_run(const std::string& run_dir, const EvaluateOptions& options, std::ostream& progress,
                        bool terminal);

/// explain.json: the run's iteration and digest, the sentences, every neighbour with its settings, command, result
/// and effect ((its iteration - the run's) / the run's), the what-ifs not run.
nlohmann::json explanation_json(const Explanation& e);

/// The what-ifs ranked with how much each moves the iteration, each as the --set flags that make it (at most `shown`; fewer than all: the best of each
/// kind of change, the keys it sets), and the knob that moves it most: what `dtsim explain` and `dtsim run
/// --explain` print.
void print_what_ifs(std::ostream& out, const Explanation& e, std::size_t shown);

/// The sentences, then every what-if (print_what_ifs).
void print_explanation(std::ostream& out, const Explanation& e);

}  // namespace dtsim::plan
