#pragma once
/// A plan file (`dtsim plan`): the training job, the target, the choices to search and the cost table.
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/cost_table.hpp"

namespace dtsim::scenario {

/// How much training the job is: samples, tokens (samples x the model's sequence length), iterations, or
/// training until a test accuracy (numerics mode: each candidate trains for real, its steps to reach it count).
struct PlanJob {
  std::string unit = "samples";  ///< samples | tokens | iterations | accuracy
  double amount = 0;             ///< how many; for accuracy, the target (0 to 1)
};

/// What the cluster must reach; every target given must hold. `minimise` orders the candidates that meet them.
struct PlanTarget {
  std::optional<double> time_s;              ///< time to train at most this
  std::optional<double> budget;              ///< cost at most this (the cost table's currency)
  std::optional<double> samples_per_s;       ///< throughput at least this
  std::optional<double> scaling_efficiency;  ///< at least this fraction
  std::string minimise = "cost";             ///< cost | time | energy
};

/// One searched choice: a scenario key and its values as TOML text; an empty value leaves the base's setting
/// (compression "none": no [compression]). A parallel layout is one more axis of this kind.
struct PlanAxis {
  std::string name;  ///< as the plan file names it ("scheduler", or the key of a [[search.axis]])
  std::string key;   ///< the scenario key it sets
  std::vector<std::string> values;
};

/// A validated plan file.
struct PlanSpec {
  std::string source;                      ///< the plan file
  std::string base;                        ///< base scenario path, "" for the built-in default
  std::vector<std::string> base_settings;  ///< [set] overrides of every candidate ("key=value")
  std::vector<std::string> set_places;     ///< where each of base_settings is written ("plan.toml:7:11")
  PlanJob job;
  PlanTarget target;
  std::vector<std::string> platforms;      ///< platform templates: built-in names or absolute paths
  std::vector<int> nodes;                  ///< nodes of each template (every GPU of a node is a worker)
  std::vector<double> oversubscription;    ///< fat-tree templates: leaf downlinks : uplinks (1 = full bisection)
  std::vector<PlanAxis> axes;              ///< nic, scheduler, collective, sync, precision, compression, [[search.axis]]
  std::string compression_kernel_time;     ///< TOML text of compression.kernel_time for candidates that compress; "" if none
  int recheck = 3;                         ///< best candidates re-simulated at the flow level
  double recheck_cpu_limit_s = 120;        ///< [search] recheck_cpu_limit: a re-check estimated above it is skipped
  int jobs = 1;                            ///< candidates simulated at once (-j overrides)
  std::string output_dir;                  ///< relative to the working directory; default "<plan file stem>-plan"
  CostTable costs;
};

/// Reads and validates a plan file; errors are core::InputError "file:line:col: problem; allowed".
PlanSpec load_plan(const std::string& path);

/// `e` placed at the plan file's line and column when the scenario loader reported it at one of the plan's [set]
/// values (as "--set key=value"); `e` otherwise.
core::InputError at_set_place(const PlanSpec& plan, const core::InputError& e);

}  // namespace dtsim::scenario
