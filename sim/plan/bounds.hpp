#pragma once
/// What a candidate costs at least, known without simulating it: the memory model decides whether it fits,
/// the compute-only time and the NIC bandwidth bound give a lower bound on its iteration time.
#include <string>

#include "sim/plan/fabric.hpp"
#include "sim/scenario/plan_spec.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::plan {

/// The cluster a candidate builds and its bounds.
struct Bounds {
  std::string gpu;             ///< GPU profile name
  int gpus = 0;
  int nodes = 0;
  double nic_Bps = 0;          ///< bandwidth of a node's NIC(s) into the network
  Fabric fabric;               ///< its NICs and switch ports
  double global_batch = 0;     ///< samples per iteration (data-parallel replicas x batch)
  double iterations = 0;       ///< iterations the job needs at this global batch (to an accuracy: 0, not known before training)
  bool to_accuracy = false;    ///< the job trains to an accuracy (numerics mode): its steps come from the training
  double accuracy = 0;         ///< that accuracy
  bool fits = true;            ///< the memory model's verdict
  double memory_peak_bytes = 0;
  double memory_capacity_bytes = 0;
  double compute_s = 0;        ///< forward + backward + update of one worker (layouts: see bounds()): no iteration is shorter
  double bandwidth_s = 0;      ///< gradient bytes a node must receive over its NIC bandwidth (0 when not known)
  bool layout = false;         ///< a [parallel] layout (tensor, pipeline, sharding)
  /// A checkpoint: the weights and optimizer state of the whole model, once (the memory model's model states).
  double checkpoint_bytes = 0;
  /// What the fullest node writes of it: each of its GPUs its own shard (the memory model's weights and optimizer
  /// state of the fullest GPU, sharded as the layout shards them), at most the whole checkpoint.
  double checkpoint_node_bytes = 0;
  /// The larger of the two: the shortest iteration this candidate can have.
  double iteration_lb_s() const { return compute_s > bandwidth_s ? compute_s : bandwidth_s; }
};

/// Bytes every node must receive per iteration for an all-reduce of `plan`'s buckets: each element of the
/// result reaches the node at least once, as its final value or as a partial sum it completes, so at least
/// the all-reduced bytes (all-gathered and gTop-k payloads are not counted: the bound stays a bound).
double allreduce_bytes_received(const scheduling::IterationPlan& plan);

/// The compute bound of a layout run `s` from `whole`, one GPU's iteration plan of a replica's batch
/// (recomputation included): each model chunk's forward and backward of a micro-batch is at least the whole batch's
/// over the micro-batches and over tensor x context (a routed expert's at the busiest expert-parallel rank's load,
/// parallel::rank_load); pipeline GPU d runs its chunks (d, d + pipeline, ...) for
/// every micro-batch, after the first micro-batch's forward through chunks 0 to d - 1 and before the last one's
/// backward through them: the iteration is at least the largest over d of those chunks' one micro-batch + the
/// micro-batches x its own chunks (1F1B: (m + p - 1) x a stage's micro-batch with equal stages; interleaved with v
/// chunks: (m + (p - 1) / v)).
double layout_compute_bound_s(const scenario::Scenario& s, const scheduling::IterationPlan& whole);

/// The bounds of scenario `s` (a candidate loaded) for `job`. Under a layout ([parallel]) a replica of
/// tensor x context x pipeline GPUs does at least the whole model's forward and backward at its batch (tensor
/// parallelism divides the matrix work and replicates the rest, micro-batches re-read the weights), and its pipeline
/// fills and drains: its compute bound is layout_compute_bound_s (ZeRO shards the optimizer step: left out); its memory is the fullest stage's; its data-parallel traffic is not bounded.
Bounds bounds(const scenario::Scenario& s, const scenario::PlanJob& job);

}  // namespace dtsim::plan
