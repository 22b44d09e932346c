#pragma once
/// The neighbouring layouts of a layout run, for `dtsim explain`: one step along each knob of its [parallel]
/// layout (tensor, pipeline, micro-batch, sharding), its activation recomputation and the data-parallel knobs that
/// apply to a layout, the workers and the global batch kept; each checked as `dtsim run` checks a scenario before
/// it is simulated, and, once simulated, told against the run by its critical path and memory.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"

namespace dtsim::plan {

/// One neighbouring layout, not yet checked or simulated.
struct LayoutWhatIf {
  std::vector<std::pair<std::string, std::string>> settings;  ///< (key, value as --set takes it), in order
  std::string why;      ///< the change in words: "tensor 4 x pipeline 1 x data 16, 32 samples a replica"
  std::string not_run;  ///< why no --set flags make it from this run (empty when they do)
};

/// The neighbours of `s` (a layout run: scenario::uses_layout(s), loaded from its resolved scenario), in knob
/// order: tensor x2 (within a node) and /2, pipeline x2 and /2 (data follows, the workers fixed, and
/// batch_size with it, the global batch fixed), micro_batch x2 and /2, the other activation recomputations,
/// sharding one step either way (none, zero1, zero2, zero3, hybrid), the other gradient dtype, and the
/// data-parallel schedulers and compression. A change of layout that would change the default gradient dtype
/// (parallel::default_gradient_dtype) keeps the run's with strategy.gradient_dtype, so that each what-if is one
/// change.
std::vector<LayoutWhatIf> layout_what_ifs(const scenario::Scenario& s);

/// The keys of `s`'s resolved scenario that a neighbour may make inapplicable (sequence_parallel without tensor
/// parallelism, schedule and virtual_stages without pipelining) and that hold their defaults, so that leaving
/// them out changes nothing: the base the neighbours are applied to leaves them out.
std::vector<std::string> inapplicable_defaults(const scenario::Scenario& s);

/// What `dtsim run` says of the scenario `base` with `settings` before it simulates anything.
struct WhatIfCheck {
  std::string refused;       ///< the loader's refusal (layout, divisibility, combination), its first line
  std::string does_not_fit;  ///< "does not fit: needs X of Y per GPU (where)", under memory.check = "refuse"
  std::string digest;        ///< the scenario's (Provenance::digest) when it loads
};
WhatIfCheck check_what_if(const std::string& base, const std::vector<std::pair<std::string, std::string>>& settings);

/// What the simulated neighbour changed against the run, from both reports (report.json): the kinds of task on
/// the critical path of the last iteration that moved most (at least 1 % of the run's iteration; at most three),
/// the exposed communication of the mean worker (when it moved as much), and the peak memory of the fullest GPU
/// against its capacity (when it moved).
std::string simulated_difference(const nlohmann::json& run, const nlohmann::json& neighbour);

}  // namespace dtsim::plan
