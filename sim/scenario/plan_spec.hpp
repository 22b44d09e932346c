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
  /// The global batch every candidate trains: [job] global_batch (samples, sequences for a transformer) or
  /// global_batch_tokens (tokens, a whole number of the model's sequences). Each candidate derives from it its
  /// per-replica batch (global / data-parallel replicas), so that every candidate trains the same model the same
  /// way; 0 when the plan leaves the batch to [set] batch_size (per replica: the global batch grows with the data).
  double global_batch = 0;
  std::string global_batch_unit;   ///< "samples" or "tokens"
  std::string global_batch_place;  ///< where it is written ("plan.toml:12:16")
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

/// [goodput]: failures, restarts and checkpoints (present: times to train and costs are goodput). Defaults from
/// the Llama 3 405B pre-training (Dubey et al., "The Llama 3 Herd of Models", 2024): section 3.3.4, Table 5,
/// 419 unexpected interruptions in 54 days (1,296 h) on 16,384 H100s in 2,048 nodes of 8 GPUs and 8 NICs, by
/// root cause; section 3.3.1, its Tectonic storage's 2 TB/s sustained throughput. Rates are failures per
/// component-hour.
struct PlanGoodput {
  bool enabled = false;
  /// Faulty GPU 148 + HBM3 72 + SRAM 19 + GPU system processor 17 + silent data corruption 6 + thermal
  /// interface and sensor 6 = 268 over 16,384 GPUs x 1,296 h.
  double gpu_per_hour = 268.0 / (16384.0 * 1296.0);
  /// Host hardware (host maintenance 32, SSD 3, power supply 3, chassis 2, IO expansion board 2, CPU 2, system
  /// memory 2) + software (software bug 54, NCCL watchdog timeouts 7, dependency 2) = 109 over 2,048 nodes x 1,296 h.
  double node_per_hour = 109.0 / (2048.0 * 1296.0);
  /// NIC 7 over 16,384 NICs x 1,296 h.
  double nic_per_hour = 7.0 / (16384.0 * 1296.0);
  /// Network switch and cable 35 over the 1,024 rack switches (16 GPUs a rack, section 3.3.1) x 1,296 h: the
  /// higher layers and the cables share it, so a switch of a deeper fabric is charged as much (an upper bound).
  double switch_per_hour = 35.0 / (1024.0 * 1296.0);
  double write_Bps = 2e12;  ///< checkpoint write bandwidth of the storage (Tectonic, 2 TB/s sustained)
  double read_Bps = 2e12;   ///< checkpoint read (restore) bandwidth
  /// Relaunch after a failure (scheduling, process start, NCCL set-up), restore not included. No cited report
  /// gives a per-restart time: 10 minutes is an assumption, stated in docs/plan.md; set it.
  double restart_s = 600;
  std::string interval = "optimal";      ///< optimal | young_daly | fixed (interval_s)
  double interval_s = 0;                 ///< with interval = fixed
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
  /// [search] layout: the layout dimensions searched automatically (sim/plan/layout_space.hpp), "auto" for all of
  /// them; empty when the plan lists layouts by hand ([[search.axis]]).
  std::vector<std::string> layout;
  std::vector<std::string> layout_places;  ///< where each is written (for the names sim/plan does not know)
  std::string compression_kernel_time;     ///< TOML text of compression.kernel_time for candidates that compress; "" if none
  int recheck = 3;                         ///< best candidates re-simulated at the flow level
  double recheck_cpu_limit_s = 120;        ///< [search] recheck_cpu_limit: a re-check estimated above it is skipped
  int jobs = 0;                            ///< candidates simulated at once (-j overrides); 0: every core
  std::string output_dir;                  ///< relative to the working directory; default "<plan file stem>-plan"
  CostTable costs;
  PlanGoodput goodput;
};

/// Reads and validates a plan file; errors are core::InputError "file:line:col: problem; allowed".
PlanSpec load_plan(const std::string& path);

/// `e` placed at the plan file's line and column when the scenario loader reported it at one of the plan's [set]
/// values (as "--set key=value"); `e` otherwise.
core::InputError at_set_place(const PlanSpec& plan, const core::InputError& e);

}  // namespace dtsim::scenario
