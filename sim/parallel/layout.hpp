#pragma once
/// A 3D-parallel layout ([parallel]): tensor (Megatron-LM), pipeline and data parallelism with optional
/// sharding of the data-parallel replicas (ZeRO / FSDP), and where each rank sits on the platform.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/parallel/framework.hpp"

namespace dtsim::parallel {

/// How data-parallel replicas shard the model states (Rajbhandari et al., "ZeRO", SC 2020; Zhao et al.,
/// "PyTorch FSDP", VLDB 2023).
enum class Sharding {
  none,    ///< every replica holds everything; gradients are all-reduced
  zero1,   ///< optimizer state sharded: gradients reduce-scattered, updated parameters all-gathered
  zero2,   ///< and gradients sharded (FSDP SHARD_GRAD_OP): the same traffic as zero1
  zero3,   ///< and parameters sharded (FSDP FULL_SHARD): all-gathered before forward and before backward
  hybrid,  ///< FSDP HYBRID_SHARD: zero3 inside a node, replicas across nodes all-reduce their shard
};

/// Names accepted for parallel.sharding, in the order of the enum.
std::vector<std::string> sharding_names();
/// Parses a sharding name; throws core::InputError listing the names.
Sharding parse_sharding(std::string_view name);
std::string_view sharding_name(Sharding s);

/// A dimension of a layout: its name (the name of its groups in the task graph and in `parallel.order`), the
/// Layout field that holds its extent, and whether the parameters are replicated along it (their gradients are then
/// summed over it: the replicas' group). A new parallelism dimension is a field of Layout and one line of
/// dimension_registry().
struct Layout;
struct DimensionEntry {
  std::string_view name;
  int Layout::*extent;
  bool replicates = false;
  bool named_when_one = true;  ///< described at extent 1 too (the 3D dimensions); otherwise only when used
  /// A re-factorisation of the ranks of a pipeline stage rather than a dimension of its own (expert parallelism, which
  /// Megatron-LM folds into the data-parallel ranks): it multiplies no ranks and takes no place in parallel.order;
  /// the folded dimensions split a stage's ranks, in rank order, innermost first in registry order, and what they
  /// leave is the group "<last folded name>_data" (placement below).
  bool folded = false;
};

/// Every dimension, in the default order (innermost first): tensor, context, pipeline, data; then the folded ones,
/// expert_tensor and expert.
std::span<const DimensionEntry> dimension_registry();

struct Layout {
  int tensor = 1;
  /// Context parallelism (Megatron-LM / Transformer Engine): each rank of a group holds 1/context of every
  /// sequence's tokens; attention exchanges keys and values over the group (sim/parallel/context_parallel.hpp)
  int context = 1;
  int pipeline = 1;
  int data = 1;
  /// Expert parallelism (Megatron-LM's expert_model_parallel_size; sim/parallel/expert_parallel.hpp): each rank of an
  /// expert group holds 1/expert of every MoE layer's routed experts, and the tokens go to their experts' ranks by
  /// all-to-all. Folded: expert_tensor x expert divides tensor x context x data, the ranks of a stage.
  int expert = 1;
  int expert_tensor = 1;  ///< expert-tensor parallelism: each routed expert's weights split over this many ranks
  /// Megatron-LM's moe_shared_expert_overlap: the shared experts compute while the tokens are dispatched.
  bool moe_shared_expert_overlap = false;
  bool sequence_parallel = false;  ///< Korthikanti et al. 2023: norms and dropout split over the tensor group's tokens
  Sharding sharding = Sharding::none;
  FrameworkOptions framework;       ///< how the framework runs sharded parameters (zero3)
  int micro_batch = 0;              ///< samples per micro-batch; 0: the whole batch of a replica at once
  std::string schedule = "1f1b";    ///< pipeline_schedule_names()
  int virtual_stages = 1;           ///< model chunks per GPU (interleaved 1F1B)
  std::string context_comm = "p2p";  ///< context_comm_names(): how attention exchanges keys and values
  /// Transformer layers of each model chunk in model order (pipeline x virtual_stages of them); empty: equal runs.
  std::vector<int> layers_per_stage;
  std::vector<std::string> order = default_order();  ///< every dimension's name once, innermost first
  int ranks() const;
  /// Ranks that hold the same parameters (the product of the replicating dimensions: data x context): the group
  /// over which gradients are summed and ZeRO/FSDP shard the model states.
  int replicas() const;
  /// True when the layout is plain data parallelism (every rank a whole replica, nothing sharded, no framework model):
  /// every registered dimension but data, folded ones included, of extent 1.
  bool data_parallel_only() const;
  /// The registry's names in its order, folded dimensions aside.
  static std::vector<std::string> default_order();
};

/// The extents as reports write them, innermost first: "tensor 8 x context 2 x pipeline 4 x data 16".
std::string extents_name(const Layout& layout);

/// Parses parallel.order (registered dimensions at most once each, comma-separated, innermost first) for `layout`:
/// a dimension of extent 1 may be left out (it places nothing; it is put outermost). Throws core::InputError.
std::vector<std::string> parse_order(std::string_view text, const Layout& layout);
/// The order as written in scenario files.
std::string order_name(const std::vector<std::string>& order);

/// Ranks of the layout on the platform's hosts (rank r on host r, gpus_per_node to a node).
class Placement {
 public:
  Placement(const Layout& layout, int gpus_per_node);
  /// `rank`'s coordinate along dimension `dimension` (a registered name; another is a bug).
  int coordinate(int rank, std::string_view dimension) const;
  /// `rank`'s pipeline stage: the role whose program it runs.
  int stage(int rank) const { return coordinate(rank, "pipeline"); }
  /// The rank whose coordinates are `rank`'s but `to` along `dimension`.
  int moved(int rank, std::string_view dimension, int to) const;
  /// The members of `rank`'s group `group` in group order: a dimension's name (the ranks that differ from `rank`
  /// along it only), except "data": the replicas' group (the ranks that differ along data and every other
  /// replicating dimension, in rank order; Megatron-LM reduces gradients over data x context); for hybrid sharding
  /// "shard" (the replicas' group's ranks on rank's node) and "replica" (the replicas' group's ranks at rank's place
  /// in their node's shard); a folded dimension's name, or "<last folded name>_data" (what the folded dimensions
  /// leave of the stage's ranks: expert_data). Throws core::InputError for another name.
  std::vector<int> members(int rank, std::string_view group) const;
  /// True when `rank` is the first member of its group `group` (one rank per group instance).
  bool leads(int rank, std::string_view group) const;
  /// The rank of pipeline stage `stage` in `rank`'s pipeline (same other coordinates).
  int stage_rank(int rank, int stage) const { return moved(rank, "pipeline", stage); }
  /// The lowest rank of pipeline stage `stage`: the one whose timeline the analytic level computes.
  int representative(int stage) const { return moved(0, "pipeline", stage); }
  const Layout& layout() const { return layout_; }
  int gpus_per_node() const { return gpus_per_node_; }

 private:
  /// A dimension as placed: its extent and the rank distance between neighbours along it.
  struct Axis {
    std::string_view name;
    int extent = 1;
    int stride = 1;
  };
  const Axis* axis(std::string_view name) const;
  /// `rank`'s group along folded dimension `name` (the last folded dimension's data group when `data`), if it is one.
  std::optional<std::vector<int>> folded_members(int rank, std::string_view name) const;
  Layout layout_;
  int gpus_per_node_;
  std::vector<Axis> axes_;  ///< in registry order
};

/// Ranks of a group sharing a node with its first member, when the members lie node by node in group order
/// (what collectives::Group assumes); 1 otherwise.
int ranks_per_node(const std::vector<int>& members, int gpus_per_node);

}  // namespace dtsim::parallel
