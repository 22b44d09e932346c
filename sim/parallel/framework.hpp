#pragma once
/// How a training framework runs sharded data parallelism ([parallel] framework and its knobs): PyTorch FSDP's
/// flat-parameter copies, prefetch limits and single NCCL stream, DeepSpeed ZeRO-3's per-sub-module fetches,
/// prefetch bucket, persistent small parameters and gradient buckets; Megatron-LM's data-parallel buckets and
/// distributed optimizer (megatron/core/distributed/, megatron/core/optimizer/distrib_optimizer.py) with its
/// overlap options. "generic" is the framework-free model (a unit gathered at most two ahead, gathers and
/// reduce-scatters on their own streams, no copies).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::parallel {

enum class Framework { generic, fsdp, deepspeed, megatron };
std::vector<std::string> framework_names();
/// Throws core::InputError listing the names.
Framework parse_framework(std::string_view name);
std::string_view framework_name(Framework f);

/// FSDP's backward_prefetch (torch/distributed/fsdp/api.py, BackwardPrefetch; default BACKWARD_PRE).
enum class BackwardPrefetch { backward_pre, backward_post, none };
std::vector<std::string> backward_prefetch_names();
BackwardPrefetch parse_backward_prefetch(std::string_view name);

struct FrameworkOptions {
  Framework framework = Framework::generic;
  /// FSDP(limit_all_gathers=True) (PyTorch 2.x default): the rate limiter blocks the CPU before an all-gather while
  /// _max_num_inflight_all_gathers = 2 freed units are pending (torch/distributed/fsdp/_limiter_utils.py).
  bool limit_all_gathers = true;
  BackwardPrefetch backward_prefetch = BackwardPrefetch::backward_pre;
  /// DeepSpeed ZeRO-3 defaults (deepspeed/runtime/zero/config.py): stage3_prefetch_bucket_size 5e7,
  /// stage3_param_persistence_threshold 1e5, reduce_bucket_size 5e8 (elements).
  std::int64_t prefetch_bucket_size = 50'000'000;
  std::int64_t param_persistence_threshold = 100'000;
  std::int64_t reduce_bucket_size = 500'000'000;
  /// Megatron-Core's DistributedDataParallelConfig (megatron/core/distributed/distributed_data_parallel_config.py):
  /// overlap_grad_reduce and overlap_param_gather default False; bucket_size None (0 here) means
  /// max(40000000, 1000000 x data-parallel size) elements (megatron_bucket_size).
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  std::int64_t bucket_size = 0;
};

/// The elements per gradient bucket Megatron-LM uses for a model chunk (distributed_data_parallel.py,
/// DistributedDataParallel.__init__): bucket_size, or max(40000000, 1000000 x `data`) when 0; none (0: the whole
/// chunk one bucket) without overlap_grad_reduce, on a pipeline stage after the first, and for a model chunk after
/// the first (training.py builds those with disable_bucketing).
std::int64_t megatron_bucket_size(const FrameworkOptions& f, int data, bool first_stage_and_chunk);

/// One bucket of Megatron-LM's contiguous gradient buffer (one model chunk, one dtype).
struct MegatronBucket {
  std::int64_t elements = 0;  ///< in the buffer, padding included: what its reduce-scatter and all-gather move
  int first_tensor = 0;       ///< its first tensor in forward order (the backward fills it last)
  int last_tensor = 0;        ///< its last tensor in forward order
};
/// The buckets of a chunk whose parameter tensors have `tensors` elements (forward order), in backward order: the
/// tensors are laid out last first, a bucket closed once it holds `bucket_size` elements (0: one bucket). With the
/// distributed optimizer (DistributedOptimizer._compute_per_buffer_param_layout, optimizer/param_layout.py) each
/// tensor starts at a multiple of 64 elements and each bucket ends at a multiple of lcm(`data`, 128), so that it
/// splits evenly over the data-parallel ranks; without it (_compute_default_per_buffer_param_layout) no padding.
std::vector<MegatronBucket> megatron_buckets(const std::vector<std::int64_t>& tensors, std::int64_t bucket_size, int data,
                                             bool distributed_optimizer);

/// How far ahead of the computation a pass gathers units, and in which order the gathers and the reduce-scatters
/// reach the one NCCL stream they share (FSDP: one process group, "any collectives, even if issued from different
/// streams, contend for the same per-device NCCL stream", BackwardPrefetch's docstring).
struct GatherOrder {
  /// Unit k's gather waits for unit k - depth's computation (the first `depth` units': the pass start); 0: every
  /// gather at the pass start.
  int depth = 2;
  /// The reduce-scatter runs on the gathers' stream (one NCCL stream).
  bool shared_stream = false;
  /// On that stream, the gather issued after unit k's computation comes before unit k's reduce-scatter.
  bool gather_before_reduce = false;
};
/// Forward (`backward` false) or backward.
GatherOrder gather_order(const FrameworkOptions& f, bool backward);

/// FSDP's gradient pre-divide factor (torch/distributed/fsdp/_init_utils.py, _get_gradient_predivide_factor):
/// f = 1, doubled while world % f == 0 and world / f > f (8 ranks: 4; 2 ranks: 2). The post-divide factor is
/// world / f. _div_if_needed divides only by a factor above 1.
int gradient_predivide_factor(int world);

/// The element-wise kernels FSDP runs around one unit's collectives on one rank (FlatParamHandle
/// in torch/distributed/fsdp/_flat_param.py, _reduce_grad and _post_reduce_grad_callback in _runtime_utils.py),
/// for a unit of `parameters` elements sharded `world` ways, parameters kept in fp32 and computed in `parameter`
/// bytes, gradients reduced in `reduced` bytes.
struct FsdpCopies {
  /// Bytes read and written by a run of element-wise kernels, and how many kernels.
  struct Kernels {
    double bytes = 0;
    std::size_t kernels = 0;
    void add(double moved) { bytes += moved, ++kernels; }
  };
  /// _use_low_precision_shard: the fp32 shard cast to the compute dtype before each all-gather (only when the compute
  /// dtype is not fp32).
  Kernels before_gather;
  /// The unsharded gradient cast to the reduce dtype (when it differs) and divided by the pre-divide factor
  /// (when > 1) before the reduce-scatter.
  Kernels before_reduce;
  /// After it: the shard divided by the post-divide factor, cast back to fp32, and (`accumulate`: a micro-batch
  /// after the first) added to the sharded gradient.
  Kernels after_reduce;
};
FsdpCopies fsdp_copies(double parameters, int world, double parameter, double reduced, bool accumulate);

/// Bytes DeepSpeed ZeRO-3 moves through HBM around a unit's reduce-scatter (deepspeed/runtime/zero/stage3.py): the
/// unsharded gradient copied into the reduce bucket (__add_grad_to_ipg_bucket), and the reduced shard cast into
/// the fp32 gradient partition (accumulated after the first micro-batch).
FsdpCopies deepspeed_copies(double parameters, int world, double parameter, double reduced, bool accumulate);

/// DeepSpeed ZeRO-3's all-gathered elements of one sub-module (a model layer) from its tensors' element counts:
/// the tensors of at least `persistence_threshold` elements (a smaller one persists on every rank and is never
/// gathered: param.ds_numel < param_persistence_threshold, deepspeed/runtime/zero/partition_parameters.py), all
/// in one all-gather (fetch_sub_module gathers a sub-module's parameters together,
/// deepspeed/runtime/zero/partitioned_param_coordinator.py).
std::int64_t fetched_elements(const std::vector<std::int64_t>& tensors, std::int64_t persistence_threshold);

/// For fetches in pass order with `elements`, the fetch that is computing when fetch j is issued: the smallest i
/// < j with sum(elements[i+1..j-1]) < bucket (the coordinator prefetches the sub-modules after the current one
/// while the elements in flight stay below stage3_prefetch_bucket_size); j itself for j = 0 or bucket 0 (on demand).
std::vector<int> prefetched_at(const std::vector<std::int64_t>& elements, std::int64_t bucket);

/// One all-gather of a pass over sharded units.
struct PassGather {
  int unit = 0;              ///< index in the pass of the unit whose computation waits for it
  std::int64_t elements = 0;  ///< gathered elements (every rank's shard)
  int after = -1;            ///< index in the pass of the unit whose computation it waits for; -1: the pass start
};
/// The all-gathers of a pass (`fetches`: per unit in pass order, its all-gathers' elements): generic and FSDP one
/// per unit, unit k's after unit k - gather_order().depth; DeepSpeed one per sub-module, issued when the unit of
/// the fetch computing at prefetched_at() starts.
std::vector<PassGather> pass_gathers(const FrameworkOptions& f, const std::vector<std::vector<std::int64_t>>& fetches,
                                     bool backward);

}  // namespace dtsim::parallel
