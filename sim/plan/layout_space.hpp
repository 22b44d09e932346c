#pragma once
/// `search.layout = "auto"`: every valid parallel layout of a model on a cluster at a fixed global batch. The
/// layouts are made by a list of dimension enumerators applied in order (tensor, context, pipeline, data,
/// expert_tensor, expert, micro-batch, recomputation, sharding), each extending every layout the ones before it
/// made; a new parallelism dimension is one more entry of layout_enumerators().
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/memory/recomputation.hpp"
#include "sim/parallel/layout.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::plan {

/// What every layout of one cluster keeps.
struct LayoutSpace {
  const scenario::Scenario* base = nullptr;  ///< the plan's base with its [set]: the model, and fixed dimensions
  int workers = 0;
  int gpus_per_node = 0;  ///< the scale-up (NVLink) domain a tensor group stays within
  int global_batch = 0;   ///< samples a step over every replica
};

/// A layout in the making.
struct LayoutPoint {
  parallel::Layout layout;
  memory::Recomputation recomputation = memory::Recomputation::none;
  int batch = 0;  ///< samples a replica a step (global batch / data), once the data step has run
};

/// One dimension of the search: the layouts it makes of a layout the dimensions before it made.
struct DimensionEnumerator {
  std::string_view name;               ///< as search.layout names it
  std::vector<std::string_view> keys;  ///< the scenario keys it sets: one of them in [set] or [[search.axis]] fixes it
  std::string_view what;               ///< what it tries, for the docs and errors
  /// Appends to `out` every value of the dimension valid with `p`.
  void (*extend)(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out);
  bool derived = false;  ///< computed from the others (data): always applied, never named in search.layout
  bool routed_experts_only = false;  ///< a dimension of routed experts: 1 on a dense model, which has none to split
};

/// The enumerators in the order they apply.
std::span<const DimensionEnumerator> layout_enumerators();

/// The names search.layout accepts ("auto" and every enumerator's but the derived ones).
std::vector<std::string> layout_dimension_names();

/// The dimensions of `searched` that apply to `model`: those of routed experts only when it has some (on a dense
/// model they would only write their extent of 1 into every candidate).
std::vector<std::string> applicable_dimensions(const std::vector<std::string>& searched, const models::Model& model);

/// Every layout of `space` searching the dimensions `searched` (enumerator names); the others keep the base's
/// values (a fixed dimension is still checked: a layout it makes invalid is not made). Each layout is valid for the
/// loader's layout rules (parallel::layout_refusal) and its recomputation for the model.
std::vector<LayoutPoint> enumerate_layouts(const LayoutSpace& space, const std::vector<std::string>& searched);

/// The `--set` settings that make `p` from the base: the keys of the searched dimensions (the inapplicable ones
/// left out: sequence_parallel without tensor parallelism, schedule without pipelining, moe_shared_expert_overlap
/// without expert parallelism) and batch_size.
std::vector<std::pair<std::string, std::string>> layout_settings(const LayoutPoint& p,
                                                                 const std::vector<std::string>& searched);

/// The layout in words: "tensor 8 x pipeline 4 x data 32 x expert 8, sequence parallel, 16 micro-batches of 1,
/// recompute selective, zero1".
std::string layout_label(const LayoutPoint& p);

}  // namespace dtsim::plan
