#pragma once
/// A 3D-parallel layout ([parallel]): tensor (Megatron-LM), pipeline and data parallelism with optional
/// sharding of the data-parallel replicas (ZeRO / FSDP), and where each rank sits on the platform.
#include <array>
#include <string>
#include <string_view>
#include <vector>

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

/// The three dimensions, in the order `order` names them innermost first.
enum class Dimension { tensor, pipeline, data };

struct Layout {
  int tensor = 1;
  int pipeline = 1;
  int data = 1;
  bool sequence_parallel = false;  ///< Korthikanti et al. 2023: norms and dropout split over the tensor group's tokens
  Sharding sharding = Sharding::none;
  int micro_batch = 0;              ///< samples per micro-batch; 0: the whole batch of a replica at once
  std::string schedule = "1f1b";    ///< pipeline_schedule_names()
  int virtual_stages = 1;           ///< model chunks per GPU (interleaved 1F1B)
  std::array<Dimension, 3> order{Dimension::tensor, Dimension::pipeline, Dimension::data};  ///< innermost first
  int ranks() const { return tensor * pipeline * data; }
  /// True when the layout is plain data parallelism (every rank a whole replica, nothing sharded).
  bool data_parallel_only() const { return tensor == 1 && pipeline == 1 && sharding == Sharding::none; }
};

/// Parses parallel.order ("tensor,pipeline,data" in any order, innermost first); throws core::InputError.
std::array<Dimension, 3> parse_order(std::string_view text);
/// The order as written in scenario files.
std::string order_name(const std::array<Dimension, 3>& order);

/// A rank's coordinates in the layout.
struct Coordinates {
  int tensor = 0;
  int pipeline = 0;
  int data = 0;
};

/// Ranks of the layout on the platform's hosts (rank r on host r, gpus_per_node to a node).
class Placement {
 public:
  Placement(const Layout& layout, int gpus_per_node);
  Coordinates coordinates(int rank) const;
  int rank(const Coordinates& c) const;
  /// The members of `rank`'s group `group` in group order: "tensor", "data", "pipeline"; for hybrid sharding
  /// "shard" (the data group's ranks on rank's node) and "replica" (the data group's ranks at rank's place in
  /// their node's shard). Throws core::InputError for another name.
  std::vector<int> members(int rank, std::string_view group) const;
  /// True when `rank` is the first member of its group `group` (one rank per group instance).
  bool leads(int rank, std::string_view group) const;
  /// The rank of pipeline stage `stage` in `rank`'s pipeline (same tensor and data coordinates).
  int stage_rank(int rank, int stage) const;
  /// The lowest rank of pipeline stage `stage`: the one whose timeline the analytic level computes.
  int representative(int stage) const { return rank({0, stage, 0}); }
  const Layout& layout() const { return layout_; }
  int gpus_per_node() const { return gpus_per_node_; }

 private:
  int extent(Dimension d) const;
  Layout layout_;
  int gpus_per_node_;
  std::array<int, 3> stride_{};  ///< per Dimension
};

/// Ranks of a group sharing a node with its first member, when the members lie node by node in group order
/// (what collectives::Group assumes); 1 otherwise.
int ranks_per_node(const std::vector<int>& members, int gpus_per_node);

}  // namespace dtsim::parallel
